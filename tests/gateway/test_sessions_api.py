"""Sessions through the HTTP API against the real Redis: a follow-up rewritten from the
session memory, the memory surviving an app restart, TTL expiry, DELETE, callers isolated,
the OpenAI-compatible chat deriving its session, and the in-process fallback when Redis is
down."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import redis.asyncio as aioredis

from gateway.conversation import SessionMemory, memory_tokens
from tests.gateway._apphelp import make_settings, running, sse_events, upload
from tests.gateway._conversation_doc import CHAT_PAGE

DOC = [("chat.md", CHAT_PAGE.encode())]
FIRST = "What is the prefix for Group Channels in Slack?"
NEXT = "What is the prefix for Location Channels in Slack?"


async def _post(client: httpx.AsyncClient, body: dict[str, Any],
                headers: dict[str, str] | None = None) -> Any:
    r = await client.post("/v1/query", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()


async def test_follow_up_memory_restart_and_delete(tmp_path, redis_url, prefix) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        first = await _post(client, {"question": FIRST, "session_id": "conv-1"})
        assert first["found"] and "g_" in first["answer"]
        assert first["rewritten_question"] is None
        body = await _post(client, {"question": "And for the next one?",
                                    "session_id": "conv-1"})
        assert body["rewritten_question"] == NEXT
        assert body["route"]["rewrite"]["rules"] == ["ordinal"]
        assert body["route"]["session"]["turn"] == 2
        assert body["route"]["session"]["backend"] == "redis"
        assert "loc_" in body["answer"]
        # the same words without the session are not rewritten from anyone's memory
        alone = await _post(client, {"question": "And for the next one?"})
        assert alone["rewritten_question"] is None
    # a new app process over the same Redis continues the conversation
    async with running(settings) as (app, client):
        mem = (await client.get("/v1/sessions/conv-1")).json()
        assert mem["turn_count"] == 2 and mem["turns"][-1]["rewritten"] == NEXT
        assert 0 < mem["ttl_s"] <= settings.session_ttl_s
        assert mem["facts"][0]["citations"][0]["path"] == "chat.md"
        body = await _post(client, {"question": "And the one after that?",
                                    "session_id": "conv-1"})
        assert body["rewritten_question"] == "What is the prefix for Project Channels in Slack?"
        assert "proj_" in body["answer"]
        r = await client.delete("/v1/sessions/conv-1")
        assert r.status_code == 200
        assert (await client.get("/v1/sessions/conv-1")).status_code == 404
        assert (await client.delete("/v1/sessions/conv-1")).status_code == 404
        r = await client.post("/v1/query", json={"question": FIRST, "session_id": "bad id!"})
        assert r.status_code == 400 and "session_id" in r.text


#: questions of a long conversation over DOC: new questions and follow-ups, each answered
LONG_TURNS = [FIRST, "And for the next one?", "And the one after that?",
              "What is the prefix for Feature Channels?", "When is it archived?",
              "What is the expected behaviour of a Director?", "And of a Manager?",
              "Where do vendor invoices go?", "And contractor invoices?",
              "What is the scope of impact of an Executive?"]


async def test_fifty_turn_conversation_stays_under_its_token_bound(
        tmp_path: Path, redis_url: str, prefix: str) -> None:
    """Issue 16 acceptance: across a 50-turn conversation through the API the session's memory
    stays under ``session_max_tokens`` after every turn (the route record's figure and the
    memory stored in Redis, counted again here), and older turns are summarised, not lost."""
    bound_tokens = 300
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix,
                             session_max_tokens=bound_tokens)
    r = aioredis.from_url(redis_url)
    try:
        async with running(settings) as (app, client):
            await upload(app, client, DOC)
            for i in range(50):
                body = await _post(client, {"question": LONG_TURNS[i % len(LONG_TURNS)],
                                            "session_id": "long", "use_cache": False})
                session = body["route"]["session"]
                assert session["turn"] == i + 1
                assert 0 < session["memory_tokens"] <= bound_tokens, (i, session)
                keys = [k async for k in r.scan_iter(match=f"{prefix}session:*")]
                assert len(keys) == 1, keys
                raw = await r.get(keys[0])
                assert raw is not None
                stored = SessionMemory.from_dict(orjson.loads(raw))
                assert stored.turn_count == i + 1
                assert memory_tokens(stored) <= bound_tokens, (i, memory_tokens(stored))
            mem = (await client.get("/v1/sessions/long")).json()
    finally:
        await r.aclose()
    assert mem["turn_count"] == 50 and mem["memory_tokens"] <= bound_tokens
    assert len(mem["turns"]) < 50 and mem["summary"]  # the oldest turns were folded away
    assert mem["turns"][-1]["question"] == LONG_TURNS[49 % len(LONG_TURNS)]


async def test_session_expires_at_its_ttl(tmp_path, redis_url, prefix) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix,
                             session_ttl_s=1)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        await _post(client, {"question": FIRST, "session_id": "short"})
        assert (await client.get("/v1/sessions/short")).status_code == 200
        await asyncio.sleep(2.2)
        assert (await client.get("/v1/sessions/short")).status_code == 404
        body = await _post(client, {"question": "And for the next one?",
                                    "session_id": "short"})
        assert body["rewritten_question"] is None  # nothing left to resolve it with
        assert body["route"]["session"]["turn"] == 1


async def test_callers_never_see_each_others_sessions(tmp_path, redis_url, prefix) -> None:
    keys = {"key-alice-0001": ["*"], "key-alice-0002": ["*"]}  # same 6-character prefix
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix,
                             api_keys=keys)
    alice = {"Authorization": "Bearer key-alice-0001"}
    bob = {"Authorization": "Bearer key-alice-0002"}
    async with running(settings) as (app, client):
        await upload(app, client, DOC, headers=alice)
        await _post(client, {"question": FIRST, "session_id": "shared-name"}, alice)
        assert (await client.get("/v1/sessions/shared-name", headers=bob)).status_code == 404
        assert (await client.delete("/v1/sessions/shared-name",
                                    headers=bob)).status_code == 404
        body = await _post(client, {"question": "And for the next one?",
                                    "session_id": "shared-name"}, bob)
        assert body["rewritten_question"] is None
        assert (await client.get("/v1/sessions/shared-name",
                                 headers=alice)).json()["turn_count"] == 1
        body = await _post(client, {"question": "And for the next one?",
                                    "session_id": "shared-name"}, alice)
        assert body["rewritten_question"] == NEXT
        assert (await client.get("/v1/sessions/shared-name")).status_code == 401


async def test_chat_completions_derive_the_session_from_the_history(tmp_path, redis_url,
                                                                   prefix) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        msgs = [{"role": "user", "content": FIRST}]
        r = await client.post("/v1/chat/completions", json={"messages": msgs})
        assert r.status_code == 200, r.text
        reply = r.json()["choices"][0]["message"]["content"]
        msgs += [{"role": "assistant", "content": reply},
                 {"role": "user", "content": "And for the next one?"}]
        r = await client.post("/v1/chat/completions", json={"messages": msgs})
        lg = r.json()["loopgate"]
        assert lg["rewritten_question"] == NEXT and lg["route"]["session"]["turn"] == 2
        assert "loc_" in r.json()["choices"][0]["message"]["content"]
        # another conversation opening with the same question starts its own memory
        other = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": "x"},
                 {"role": "user", "content": "What is the prefix for Feature Channels?"},
                 {"role": "assistant", "content": "f_"},
                 {"role": "user", "content": "And for the next one?"}]
        r = await client.post("/v1/chat/completions", json={"messages": other})
        lg = r.json()["loopgate"]
        assert lg["rewritten_question"] is not None
        assert lg["route"]["session"]["turn"] == 1  # the memory was not this conversation's


async def test_redis_down_keeps_memory_in_process_flagged(tmp_path) -> None:
    settings = make_settings(tmp_path, redis_url="redis://127.0.0.1:1/0", timeout_cache_s=0.2)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        first = await _post(client, {"question": FIRST, "session_id": "local"})
        assert "session_memory_local" in first["route"]["flags"]
        body = await _post(client, {"question": "And for the next one?", "session_id": "local"})
        assert body["rewritten_question"] == NEXT
        assert "session_memory_local" in body["route"]["flags"]
        # the record names where the memory came from (hostile-input trial: it said "redis")
        assert body["route"]["session"]["backend"] == "memory", body["route"]["session"]


async def test_redis_down_sessions_api_serves_the_in_process_memory(tmp_path) -> None:
    """With Redis down, GET and DELETE /v1/sessions/{id} work on the in-process memory the
    queries use, flagged ``local`` (found by a new-user trial: both answered 503 while the
    queries went on with that memory, flagged ``session_memory_local``)."""
    settings = make_settings(tmp_path, redis_url="redis://127.0.0.1:1/0", timeout_cache_s=0.2)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        first = await _post(client, {"question": FIRST, "session_id": "local"})
        assert "session_memory_local" in first["route"]["flags"]
        r = await client.get("/v1/sessions/local")
        assert r.status_code == 200, r.text
        mem = r.json()
        assert mem["local"] is True and mem["turn_count"] == 1
        assert 0 < mem["ttl_s"] <= settings.session_ttl_s
        assert (await client.get("/v1/sessions/other")).status_code == 404
        r = await client.delete("/v1/sessions/local")
        assert r.status_code == 200, r.text
        assert r.json() == {"deleted": "local", "local": True}
        assert (await client.get("/v1/sessions/local")).status_code == 404
        again = await _post(client, {"question": "And for the next one?", "session_id": "local"})
        assert again["route"]["session"]["turn"] == 1  # forgotten: a new conversation
        assert again["rewritten_question"] is None


@pytest.mark.parametrize("history_only", [True])
async def test_history_without_session_is_rewritten_but_not_remembered(
        tmp_path, history_only) -> None:
    settings = make_settings(tmp_path)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        body = await _post(client, {"question": "When is it archived?",
                                    "history": [{"role": "user", "content":
                                                 "What is the prefix for Feature Channels?"}]})
        assert body["rewritten_question"] == "When is Feature Channels archived?"
        assert body["route"]["session"]["turn"] is None


async def test_stream_carries_the_session(tmp_path) -> None:
    settings = make_settings(tmp_path)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        await _post(client, {"question": FIRST, "session_id": "streamed"})
        async with client.stream("POST", "/v1/query/stream", json={
                "question": "And for the next one?", "session_id": "streamed"}) as resp:
            assert resp.status_code == 200
            answers = [data for kind, data in await sse_events(resp) if kind == "answer"]
        assert answers
        final = answers[-1]
        assert final["route"]["rewritten_question"] == NEXT
        assert "loc_" in final["answer"]
        mem = (await client.get("/v1/sessions/streamed")).json()
        assert mem["turn_count"] == 2 and mem["turns"][-1]["rewritten"] == NEXT


async def test_a_question_asked_again_is_answered_from_its_fact_card(tmp_path) -> None:
    # the threshold rule keeps this question on the RAG path, whose short quotes make a
    # complete card (a LoopAgent answer quoting more than 600 characters makes none)
    settings = make_settings(tmp_path, router_rule="threshold")
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        first = await _post(client, {"question": FIRST, "session_id": "again", "use_cache": False})
        assert first["route"]["final_path"] != "memory"
        again = await _post(client, {"question": FIRST.upper(), "session_id": "again"})
        assert again["route"]["final_path"] == "memory"
        assert again["route"]["session"]["memory_hits"] == ["fact_card:1"]
        assert again["answer"] == first["answer"] and again["citations"] == first["citations"]
        # a new document version: the card no longer answers
        await upload(app, client, [("other.md", b"# Other\n\nNothing about channels here.\n")])
        third = await _post(client, {"question": FIRST, "session_id": "again"})
        assert third["route"]["final_path"] != "memory" and third["found"]
        # the caller turned the cache off: read again
        fourth = await _post(client, {"question": FIRST, "session_id": "again",
                                      "use_cache": False})
        assert fourth["route"]["final_path"] != "memory"
