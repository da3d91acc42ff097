"""The LoopAgent reads the question as the router reads it, on every entry point: a follow-up
rewritten from the session memory (/v1/query, /v1/query/stream, the OpenAI-compatible chat,
``loopgate chat``) and an exclusion question without its exclusion clause (``loopgate ask
--mode loop``, which runs the agent without the router's path). Real components: a generated
handbook page and a distractor page ingested keyword-only into a real embedded Qdrant."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest
from _apphelp import ask, make_settings, running, sse_events, unique_prefix, upload
from rich.console import Console
from typer.testing import CliRunner

from gateway.cli import app as cli_app
from tests._support.followup import (
    DOCS,
    EXCLUDING,
    FIRST,
    FOLLOW_UP,
    STANDALONE,
    followup_collection,
)

FILES = [(name, text.encode()) for name, text in DOCS.items()]


def _searches(steps: list[dict[str, Any]]) -> list[str]:
    return [str(s["arguments"]["query"]) for s in steps if s.get("tool") == "search"]


def _check_loop_read(route: dict[str, Any], answer_quotes: list[str]) -> None:
    assert route["final_path"] == "loop"
    assert route["rewritten_question"] == STANDALONE
    searches = _searches(route["steps"])
    assert searches and searches[0] == STANDALONE, searches
    assert not any("next one" in s.lower() for s in searches), searches
    assert any("loc_" in q for q in answer_quotes), answer_quotes


async def test_query_stream_and_chat_give_the_loop_the_rewritten_follow_up(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, redis_key_prefix=unique_prefix())
    async with running(settings) as (app, client):
        await upload(app, client, FILES)
        # /v1/query
        await ask(client, FIRST, mode="loop", session_id="s-query", use_cache=False)
        got = await ask(client, FOLLOW_UP, mode="loop", session_id="s-query", use_cache=False)
        assert got["rewritten_question"] == STANDALONE
        _check_loop_read(got["route"], [c["quote"] for c in got["citations"]])
        # /v1/query/stream
        await ask(client, FIRST, mode="loop", session_id="s-stream", use_cache=False)
        body = {
            "question": FOLLOW_UP,
            "collection": "docs",
            "mode": "loop",
            "session_id": "s-stream",
            "use_cache": False,
        }
        async with client.stream("POST", "/v1/query/stream", json=body) as resp:
            assert resp.status_code == 200
            events = await sse_events(resp)
        answer = next(data for name, data in events if name == "answer")
        _check_loop_read(answer["route"], [c["quote"] for c in answer["citations"]])
        stream_searches = [
            str(data.get("text", ""))
            for name, data in events
            if name == "step" and data.get("tool") == "search"
        ]
        assert stream_searches and "Location" in stream_searches[0], stream_searches
        # the OpenAI-compatible chat: the client sends the whole conversation
        first = (
            await client.post(
                "/v1/chat/completions",
                json={"model": "loopgate-loop", "messages": [{"role": "user", "content": FIRST}]},
            )
        ).json()
        reply = first["choices"][0]["message"]["content"]
        resp = await client.post(
            "/v1/chat/completions",
            json={
                "model": "loopgate-loop",
                "messages": [
                    {"role": "user", "content": FIRST},
                    {"role": "assistant", "content": reply},
                    {"role": "user", "content": FOLLOW_UP},
                ],
            },
        )
        assert resp.status_code == 200, resp.text
        chat = resp.json()
        route = chat["loopgate"]["route"]
        _check_loop_read(route, [c["quote"] for c in chat["citations"]])


def test_chat_in_loop_mode_reads_the_rewritten_follow_up(tmp_path: Path) -> None:
    from gateway.cli.chat import ChatSession
    from gateway.settings import Settings
    from gateway.wiring import build_components

    settings = Settings(data_dir=followup_collection(tmp_path, "docs"), embed_model_path=None)
    c = build_components(settings)
    out = io.StringIO()
    session = ChatSession(c, "docs", "loop", Console(file=out, width=200, emoji=False))
    bodies: list[Any] = []
    real_ask = c.router.ask

    async def spy(q: Any, *a: Any, **kw: Any) -> Any:
        res = await real_ask(q, *a, **kw)
        bodies.append(res)
        return res

    c.router.ask = spy  # type: ignore[method-assign]
    with asyncio.Runner() as runner:
        try:
            session.handle(FIRST, runner)
            session.handle(FOLLOW_UP, runner)
        finally:
            runner.run(c.aclose())
    assert f"read as: {STANDALONE}" in out.getvalue()
    last = bodies[-1]
    _check_loop_read(last.route, [c.quote for c in last.citations])


#: the question with an exclusion clause the router's reading drops (read as STANDALONE)
def _cli_collection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Collection ``docs`` of the two pages in a data dir under ``tmp_path``, which the CLI uses
    (keyword-only: no embedding model)."""
    data = followup_collection(tmp_path, "docs")
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(data))
    monkeypatch.delenv("LOOPGATE_EMBED_MODEL_PATH", raising=False)


def _ask_json(*args: str) -> dict[str, Any]:
    """``loopgate ask … --json`` through the CLI: exit code 0, the JSON report."""
    result = CliRunner().invoke(cli_app, ["ask", *args, "--json"])
    assert result.exit_code == 0, result.output
    body: dict[str, Any] = json.loads(result.output[result.output.index("{") :])
    return body


def test_ask_mode_loop_reads_the_focused_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``loopgate ask --mode loop`` runs the agent itself: it reads the question as the router
    would (here without the exclusion clause), shows it as ``rewritten_question`` and seeds the
    agent with the RAG retrieval's candidates for it, as the router does."""
    _cli_collection(tmp_path, monkeypatch)
    asked = EXCLUDING
    data = _ask_json(asked, "--collection", "docs", "--mode", "loop")
    assert data["rewritten_question"] == STANDALONE
    searches = [str(s["arguments"]["query"]) for s in data["steps"] if s["tool"] == "search"]
    assert searches[0] == STANDALONE, searches
    assert data["found"] and "loc_" in data["citations"][0]["quote"]
    # seeded as the router seeds it: the RAG retrieval of the question as read
    assert data["retrieval_query"] == STANDALONE
    assert data["citations"][0]["chunk_id"] in data["candidates"]
    plain = CliRunner().invoke(cli_app, ["ask", asked, "--collection", "docs", "--mode", "loop"])
    assert plain.exit_code == 0, plain.output
    assert f"read as: {STANDALONE}" in " ".join(plain.output.split())


def test_ask_mode_rag_reads_the_question_as_v1_query_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``loopgate ask --mode rag`` runs the RAG pipeline itself: it reads the question as
    ``/v1/query`` with mode rag does (``Router.read_as``: here without the exclusion clause),
    retrieves and answers that reading, shows it (``read as: …`` / ``rewritten_question``) and
    keeps its ``--doc`` filter and JSON report."""
    _cli_collection(tmp_path, monkeypatch)
    asked = EXCLUDING
    data = _ask_json(asked, "--collection", "docs", "--mode", "rag")
    assert data["rewritten_question"] == STANDALONE
    assert data["retrieval_query"] == STANDALONE
    assert data["found"] and "loc_" in data["citations"][0]["quote"], data["citations"]
    # the pipeline's report is unchanged in kind
    assert data["items"] and "coverage" in data["features"] and data["timings_ms"]["total"] > 0
    # the caller's document filter is kept under the reading
    got = _ask_json(asked, "--collection", "docs", "--mode", "rag", "--doc", "onboarding.md")
    assert got["rewritten_question"] == STANDALONE
    assert {it["path"] for it in got["items"]} <= {"onboarding.md"}
    assert not any("loc_" in c["quote"] for c in got["citations"])
    plain = CliRunner().invoke(cli_app, ["ask", asked, "--collection", "docs", "--mode", "rag"])
    assert plain.exit_code == 0, plain.output
    assert f"read as: {STANDALONE}" in " ".join(plain.output.split())
    # a question read as asked shows no reading
    body = _ask_json(STANDALONE, "--collection", "docs")
    assert "rewritten_question" not in body and body["retrieval_query"] == STANDALONE
