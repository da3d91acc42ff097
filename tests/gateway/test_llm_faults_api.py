"""The fake-LLM suite at the HTTP API: real chat-completions servers on loopback that hang,
answer HTTP 500, truncated or wrong-shaped JSON or a huge body (``scripted_server.FAULTS``).

Every mode (rag, loop, auto) and endpoint (``/v1/query``, ``/v1/query/stream``,
``/v1/chat/completions`` plain and streamed) answers 200 with a flagged answer built without the
LLM (extractive / offline LoopAgent), never a 500; with the LLM hung the first request answers
within ``request_deadline_s`` with the extractive answer; after ``llm_breaker_failures`` faults
``/readyz`` shows the LLM down and rag/auto answer without waiting on it; a half-open probe that
succeeds brings the LLM back. Documents are small Markdown files, keyword-only (no model).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from _apphelp import make_settings, running, upload

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loop"))
from scripted_server import FAULTS, ScriptedChatServer  # noqa: E402

pytestmark = pytest.mark.integration

DOCS = [
    ("shipping.md", b"# Shipping\n\n## Standard delivery\n\nStandard delivery takes 3 working "
                    b"days within the country.\n\n## Express delivery\n\nExpress delivery "
                    b"takes 1 working day and costs 12 euros.\n"),
    ("returns.md", b"# Returns\n\n## Return period\n\nGoods can be returned within 30 days of "
                   b"delivery with the receipt.\n"),
]
QUESTION = "How many working days does standard delivery take?"


def _settings(tmp_path: Path, srv: ScriptedChatServer, **kw: Any) -> Any:
    return make_settings(tmp_path, None, llm_base_url=srv.base_url, llm_model="fake",
                         llm_protocol="json", **{"request_deadline_s": 4.0, **kw})


async def _sse(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> tuple[int, str]:
    async with client.stream("POST", url, json=body) as resp:
        text = "".join([line + "\n" async for line in resp.aiter_lines()])
    return resp.status_code, text


async def _every_endpoint(client: httpx.AsyncClient) -> dict[str, tuple[int, Any]]:
    """One request per mode and endpoint: name → (status, JSON body or SSE text)."""
    out: dict[str, tuple[int, Any]] = {}
    for mode in ("rag", "loop", "auto"):
        r = await client.post("/v1/query", json={"question": QUESTION, "mode": mode,
                                                 "use_cache": False})
        out[f"query_{mode}"] = (r.status_code, r.json())
    out["query_stream"] = await _sse(client, "/v1/query/stream",
                                     {"question": QUESTION, "mode": "auto", "use_cache": False})
    chat = {"model": "loopgate-rag", "messages": [{"role": "user", "content": QUESTION}]}
    r = await client.post("/v1/chat/completions", json=chat)
    out["chat"] = (r.status_code, r.json())
    out["chat_stream"] = await _sse(client, "/v1/chat/completions", {**chat, "stream": True})
    return out


@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_no_http_500_from_any_llm_fault_in_any_mode_or_endpoint(tmp_path, fault) -> None:
    with ScriptedChatServer([FAULTS[fault]]) as srv:
        # a breaker that never opens: every request below really meets the fault
        settings = _settings(tmp_path, srv, llm_breaker_failures=100, request_deadline_s=3.0)
        async with running(settings) as (app, client):
            await upload(app, client, DOCS)
            app.state.components.router.cache = None  # every request reaches the LLM
            t0 = time.monotonic()
            got = await _every_endpoint(client)
            took = time.monotonic() - t0
    assert srv.requests, "the fake LLM was never asked"
    for name, (status, body) in got.items():
        assert status == 200, (fault, name, body)
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        assert "No answer could be produced" not in text, (fault, name, text[:500])
        assert "event: error" not in text and '"error":' not in text, (fault, name, text[:500])
    for mode in ("rag", "loop", "auto"):
        route = got[f"query_{mode}"][1]["route"]
        assert "llm_unavailable" in route["flags"], (fault, mode, route["flags"])
        assert route["brain"] in ("extractive", "loop-offline"), (fault, mode, route["brain"])
    rag = got["query_rag"][1]
    assert rag["found"] and "3 working days" in rag["answer"], rag
    assert "3 working days" in got["chat"][1]["choices"][0]["message"]["content"]
    assert got["chat_stream"][1].rstrip().endswith("data: [DONE]")
    assert took < 6 * 3.0, took  # each request within its deadline


async def test_hung_llm_first_request_within_deadline_then_breaker_open(tmp_path) -> None:
    with ScriptedChatServer([FAULTS["hang"]]) as srv:
        settings = _settings(tmp_path, srv, llm_breaker_failures=3, llm_retry_s=600)
        async with running(settings) as (app, client):
            await upload(app, client, DOCS)
            r = await client.get("/readyz")
            assert r.json()["checks"]["llm"]["circuit"]["state"] == "closed", r.json()
            slow = []
            for i in range(3):
                t0 = time.monotonic()
                r = await client.post("/v1/query", json={"question": QUESTION, "mode": "rag",
                                                         "use_cache": False})
                slow.append(time.monotonic() - t0)
                body = r.json()
                assert r.status_code == 200 and body["found"], body
                assert "3 working days" in body["answer"] and body["route"]["brain"] == "extractive"
                assert "llm_unavailable" in body["route"]["flags"]
                llm = (await client.get("/readyz")).json()["checks"]["llm"]
                assert llm["status"] == ("down" if i == 2 else "ok"), (i, llm)
            assert all(t < settings.request_deadline_s for t in slow), slow
            assert llm["circuit"]["state"] == "open" and "marked down" in llm["detail"]
            asked = len(srv.requests)
            fast = []
            for mode in ("rag", "auto", "loop", "rag"):
                t0 = time.monotonic()
                r = await client.post("/v1/query", json={"question": QUESTION, "mode": mode,
                                                         "use_cache": False})
                fast.append(time.monotonic() - t0)
                body = r.json()
                assert r.status_code == 200 and body["found"], (mode, body)
                assert "llm_unavailable" in body["route"]["flags"], (mode, body["route"])
            r = await client.post("/v1/chat/completions", json={
                "model": "loopgate-auto", "messages": [{"role": "user", "content": QUESTION}]})
            assert r.status_code == 200 and "3 working days" in r.text
            assert all(t < 2.0 for t in fast), fast
            assert len(srv.requests) == asked  # nothing was sent while the circuit was open
    print(f"\nhung LLM, deadline {settings.request_deadline_s} s: before the breaker opened "
          f"{[round(t, 2) for t in slow]} s, after {[round(t, 3) for t in fast]} s")


async def test_half_open_probe_brings_the_llm_back(tmp_path) -> None:
    def grounded(body: dict[str, Any]) -> dict[str, Any]:
        block = body["messages"][-1]["content"].split("[chunk_id: ")
        cid = next(b.split("]", 1)[0] for b in block[1:] if "3 working days" in b)
        quote = "Standard delivery takes 3 working days within the country."
        return {"content": json.dumps({"found": True, "answer": "Three working days.",
                                       "citations": [{"chunk_id": cid, "quote": quote}]})}

    with ScriptedChatServer([FAULTS["http_500"]]) as srv:
        settings = _settings(tmp_path, srv, llm_breaker_failures=2, llm_retry_s=1.0)
        async with running(settings) as (app, client):
            await upload(app, client, DOCS)
            for _ in range(2):
                body = (await client.post("/v1/query", json={
                    "question": QUESTION, "mode": "rag", "use_cache": False})).json()
                assert body["route"]["brain"] == "extractive"
            assert (await client.get("/readyz")).json()["checks"]["llm"]["status"] == "down"
            srv.set_script([grounded])
            await asyncio.sleep(1.1)
            half = (await client.get("/readyz")).json()["checks"]["llm"]
            assert half["status"] == "down" and half["circuit"]["state"] == "half_open"
            body = (await client.post("/v1/query", json={
                "question": QUESTION, "mode": "rag", "use_cache": False})).json()
            assert body["route"]["brain"] == "llm" and body["answer"] == "Three working days."
            llm = (await client.get("/readyz")).json()["checks"]["llm"]
            assert llm["status"] == "ok" and llm["circuit"]["state"] == "closed", llm


@pytest.mark.parametrize("fault", ["wrong_shape", "truncated_body"])
async def test_native_tools_protocol_faults_give_the_offline_loop_answer(tmp_path, fault) -> None:
    with ScriptedChatServer([FAULTS[fault]]) as srv:
        settings = make_settings(tmp_path, None, llm_base_url=srv.base_url, llm_model="fake",
                                 llm_protocol="tools", llm_breaker_failures=100,
                                 request_deadline_s=3.0)
        async with running(settings) as (app, client):
            await upload(app, client, DOCS)
            r = await client.post("/v1/query", json={"question": QUESTION, "mode": "loop",
                                                     "use_cache": False})
    body = r.json()
    assert r.status_code == 200 and body["found"], body
    assert body["route"]["brain"] == "loop-offline" and "llm_unavailable" in body["route"]["flags"]
    assert any(s.get("status") == "llm_error" for s in body["route"]["steps"]), body["route"]


async def test_a_stalled_conversation_stage_leaves_the_answer_its_time(tmp_path) -> None:
    """The first request after a start on a busy machine met the CC-CEDICT index still loading
    (the cross-language terms wait up to 3 s for it) and the whole 3 s deadline went on it:
    'No answer could be produced'. The conversation stage now stops ``llm_deadline_reserve_s``
    before the deadline, so the extractive answer still comes, within the deadline."""
    from gateway.conversation import cedict

    with ScriptedChatServer([FAULTS["hang"]]) as srv:
        settings = _settings(tmp_path, srv, request_deadline_s=3.0, llm_deadline_reserve_s=1.0)
        async with running(settings) as (app, client):
            await upload(app, client, DOCS)
            app.state.components.router.cache = None
            cedict.cedict_index()  # loaded, then put back in the state of a cold start:
            with cedict._LOCK:  # the loader holds the lock, the index is not ready
                cedict._READY.clear()
                try:
                    t0 = time.monotonic()
                    r = await client.post("/v1/query", json={"question": QUESTION, "mode": "rag",
                                                             "use_cache": False})
                    took = time.monotonic() - t0
                finally:
                    cedict._READY.set()
    body = r.json()
    assert r.status_code == 200 and body["found"], body
    assert "3 working days" in body["answer"] and body["route"]["brain"] == "extractive"
    assert took < settings.request_deadline_s + 0.3, took
