"""The RAG path with an LLM configured: one grounded chat-completions call over the retrieved
chunks, against a real OpenAI-compatible server on loopback with scripted replies
(``tests/loop/scripted_server.py``); its citations are verified like the LoopAgent's."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _apphelp import CASE12, ask, make_settings, running, upload

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loop"))
from scripted_server import ScriptedChatServer  # noqa: E402

pytestmark = pytest.mark.integration


def _chunk_with(body: dict[str, Any], text: str) -> str:
    """The chunk id of the passage (as sent to the LLM) that contains ``text``."""
    for block in body["messages"][-1]["content"].split("[chunk_id: ")[1:]:
        if text in block:
            return block.split("]", 1)[0]
    raise AssertionError(f"{text!r} not in the passages sent")


def grounded(body: dict[str, Any]) -> dict[str, Any]:
    cid = _chunk_with(body, "3 个工作日")
    return {"content": json.dumps({"found": True, "answer": "标准配送需要 3 个工作日。",
                                   "citations": [{"chunk_id": cid, "quote": "标准配送需要 3 个工作日。"}]},
                                  ensure_ascii=False)}


def invented(body: dict[str, Any]) -> dict[str, Any]:
    cid = re.search(r"\[chunk_id: ([^\]]+)\]", body["messages"][-1]["content"]).group(1)
    return {"content": json.dumps({"found": True, "answer": "Two days.",
                                   "citations": [{"chunk_id": cid, "quote": "ships in two days"}]})}


async def test_grounded_llm_answer_and_unverified_citations(tmp_path, embed_model_path,
                                                            cases_dir: Path) -> None:
    with ScriptedChatServer([grounded, invented]) as srv:
        settings = make_settings(tmp_path, embed_model_path, llm_base_url=srv.base_url,
                                 llm_model="scripted", llm_protocol="json")
        async with running(settings) as (app, client):
            await upload(app, client, sorted((cases_dir / CASE12 / "v1").iterdir()))
            body = await ask(client, "标准配送要几天？", mode="rag")
            assert body["route"]["brain"] == "llm", body["route"]
            assert body["answer"] == "标准配送需要 3 个工作日。" and body["found"]
            assert body["citations"][0]["path"] == "shipping.md"
            assert body["citations"][0]["quote"] == "标准配送需要 3 个工作日。"
            sent = srv.requests[0]
            assert sent["messages"][0]["role"] == "system" and "标准配送要几天" in sent["messages"][1]["content"]
            # an invented quote is dropped: the extractive answer is served, flagged
            body = await ask(client, "标准配送要几天？", mode="rag", use_cache=False)
            assert "llm_citations_unverified" in body["route"]["flags"]
            assert body["route"]["brain"] == "extractive" and "Two days" not in body["answer"]
            assert all(c["quote"] != "ships in two days" for c in body["citations"])


async def test_current_date_reaches_the_loop_llm_and_skips_the_cache(
        tmp_path, embed_model_path, cases_dir: Path) -> None:
    from scripted_server import json_action

    script = [json_action("fallback_to_rag", {"reason": "broad"}), grounded,
              json_action("fallback_to_rag", {"reason": "broad"}), grounded]
    with ScriptedChatServer(script) as srv:
        settings = make_settings(tmp_path, embed_model_path, llm_base_url=srv.base_url,
                                 llm_model="scripted", llm_protocol="json")
        async with running(settings) as (app, client):
            await upload(app, client, sorted((cases_dir / CASE12 / "v1").iterdir()))
            for _ in range(2):
                body = await ask(client, "标准配送要几天？", mode="loop", current_date="2025-11-11")
                assert not body["cached"]  # the answer may depend on the date: never cached
            first = srv.requests[0]["messages"]
            assert any("Current date: 2025-11-11" in str(m.get("content")) for m in first)
            r = await client.post("/v1/query", json={"question": "q", "current_date": "11/11/2025"})
            assert r.status_code == 400 and "current_date" in r.text
