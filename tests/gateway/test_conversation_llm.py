"""Conversations with an LLM configured, against a real OpenAI-compatible server on loopback
with scripted replies: the follow-up is rewritten by the model (the rules' rewrite given as its
draft), a failed rewrite call leaves the rules' rewrite, and folded turns get an LLM summary."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from _apphelp import make_settings, running, upload

from tests.gateway._conversation_doc import CHAT_PAGE

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loop"))
from scripted_server import ScriptedChatServer  # noqa: E402

STANDALONE = "Which prefix do Location Channels use in Slack?"


def reply(body: dict[str, Any]) -> dict[str, Any]:
    system = body["messages"][0]["content"]
    if system.startswith("You rewrite"):
        return {"content": json.dumps({"question": STANDALONE})}
    if system.startswith("Summarise"):
        return {"content": json.dumps({"summary": "Asked about Slack channel prefixes."})}
    return {"content": json.dumps({"found": False, "answer": "Not found in the documents.",
                                   "citations": []})}


async def test_llm_rewrites_and_summarises(tmp_path, redis_url) -> None:
    from tests.gateway._apphelp import unique_prefix

    with ScriptedChatServer([reply]) as srv:
        settings = make_settings(tmp_path, llm_base_url=srv.base_url, llm_model="scripted",
                                 llm_protocol="json", redis_url=redis_url,
                                 redis_key_prefix=unique_prefix(), session_window_turns=1)
        async with running(settings) as (app, client):
            await upload(app, client, [("chat.md", CHAT_PAGE.encode())])
            q = {"session_id": "llm-1", "mode": "rag"}
            r = await client.post("/v1/query", json={
                "question": "What is the prefix for Group Channels in Slack?", **q})
            assert r.status_code == 200, r.text
            r = await client.post("/v1/query", json={"question": "And for the next one?", **q})
            body = r.json()
            assert body["rewritten_question"] == STANDALONE
            assert body["route"]["rewrite"] == {"by": "llm", "rules": ["ordinal", "llm"]}
            sent = [m for m in srv.requests
                    if m["messages"][0]["content"].startswith("You rewrite")]
            assert "What is the prefix for Location Channels in Slack?" in \
                sent[-1]["messages"][1]["content"]  # the rules' rewrite is the model's draft
            await app.state.components.router.conversation.drain()
            mem = (await client.get("/v1/sessions/llm-1")).json()
            assert mem["summary_by"] == "llm"
            assert mem["summary"] == ["Asked about Slack channel prefixes."]
            # the rewrite call fails: the rules' rewrite stands, flagged
            srv.set_script([{"status": 400, "body": "bad request"}, reply])
            r = await client.post("/v1/query", json={"question": "And the one after that?", **q})
            body = r.json()
            assert "rewrite_llm_failed" in body["route"]["flags"]
            assert body["route"]["rewrite"]["by"] == "rules"
            # the rules step on from the model's standalone question of the previous turn
            assert body["rewritten_question"] == "Which prefix do Project Channels use in Slack?"
