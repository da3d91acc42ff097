"""The OpenAI-compatible facade: POST /v1/chat/completions (plain and ``stream: true``) and
GET /v1/models, on real documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _apphelp import CASE12, make_settings, running, upload
from test_api_documents import held_collection

from gateway.api.routes.chat import format_footnotes

pytestmark = pytest.mark.integration


def test_footnotes_format() -> None:
    cites = [{"path": "a.pdf", "section_path": ["1 Scope", "1.2 Terms"], "page": 3,
              "lines": [4, 6], "quote": "The  warranty\nis two years."}]
    text = format_footnotes("Two years.", cites)
    assert text.splitlines()[0] == "Two years. [1]"
    assert text.splitlines()[-1] == '[1] a.pdf › 1 Scope › 1.2 Terms, p.3 | lines 4-6: "The warranty is two years."'
    across = [{"path": "b.pdf", "section_path": [], "page": 8, "page_end": 9, "lines": [132, 2],
               "quote": "runs on"}]
    assert format_footnotes("x", across).splitlines()[-1] == '[1] b.pdf, p.8 line 132 – p.9 line 2: "runs on"'
    assert format_footnotes("Not found.", []) == "Not found."


async def test_chat_completion_plain_and_stream(tmp_path, embed_model_path, cases_dir: Path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, sorted((cases_dir / CASE12 / "v1").iterdir()))
        models = (await client.get("/v1/models")).json()
        assert {m["id"] for m in models["data"]} == {"loopgate-auto", "loopgate-rag", "loopgate-loop"}
        req = {"model": "loopgate-rag", "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "标准配送"},
            {"role": "assistant", "content": "…"},
            {"role": "user", "content": [{"type": "text", "text": "那要几天？"}]}]}
        r = await client.post("/v1/chat/completions", json=req)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["object"] == "chat.completion" and body["model"] == "loopgate-rag"
        content = body["choices"][0]["message"]["content"]
        assert "3 个工作日" in content and "[1]" in content and "\n[1] shipping.md" in content
        assert body["citations"][0]["path"] == "shipping.md"
        route = body["loopgate"]["route"]
        assert route["mode"] == "rag" and route["retrieval_query"] == "标准配送 那要几天？"

        chunks, done = [], False
        async with client.stream("POST", "/v1/chat/completions", json={**req, "stream": True}) as resp:
            assert resp.status_code == 200
            async for line in resp.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line.split(":", 1)[1].strip()
                if data == "[DONE]":
                    done = True
                    continue
                chunks.append(json.loads(data))
        assert done and chunks[0]["choices"][0]["delta"]["role"] == "assistant"
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks)
        assert text == content
        assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
        assert chunks[-1]["citations"] == body["citations"]
        assert all(c["object"] == "chat.completion.chunk" for c in chunks)


async def test_chat_bad_requests(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        r = await client.post("/v1/chat/completions", json={"model": "gpt-4", "messages": [
            {"role": "user", "content": "hi"}]})
        assert r.status_code == 404 and "loopgate-auto" in r.json()["error"]["message"]
        r = await client.post("/v1/chat/completions", json={"model": "loopgate-auto", "messages": [
            {"role": "assistant", "content": "hi"}]})
        assert r.status_code == 400 and "user message" in r.json()["error"]["message"]
        r = await client.post("/v1/chat/completions", json={"model": "loopgate-auto", "messages": []})
        assert r.status_code == 400 and r.json()["error"]["message"].startswith("messages: ")
        r = await client.post("/v1/chat/completions", json={"model": "loopgate-auto", "messages": [
            {"role": "user", "content": "hi"}], "collection": "a.b"})
        assert r.status_code == 400 and "invalid collection name" in r.json()["error"]["message"]
        # a question over 4,000 characters is refused as on /v1/query, not cut (the question
        # at its end was lost: hostile-input trial)
        long = "请回答。" * 1000 + "网络运营者应当留存相关的网络日志不少于多久？"
        r = await client.post("/v1/chat/completions", json={"model": "loopgate-auto", "messages": [
            {"role": "user", "content": long}]})
        assert r.status_code == 400 and "4000 characters" in r.json()["error"]["message"], r.text
        # named where the chat request has it, not as the query's "question" (break-it trial)
        error = r.json()["error"]
        assert error["message"].startswith("messages.0.content: "), error
        assert error["param"] == "messages.0.content", error
        # session ids follow /v1/query's rule ("" was a 200 here and a 400 there: break-it trial)
        for sid in ("", "a/b", "x" * 201):
            r = await client.post("/v1/chat/completions", json={
                "model": "loopgate-auto", "session_id": sid,
                "messages": [{"role": "user", "content": "hi"}]})
            assert r.status_code == 400 and "session_id" in r.json()["error"]["message"], sid
        # a role the API has no such, and a stream or n that are no JSON boolean / integer, are
        # refused as /v1/query refuses them (break-it trial: "hacker", "yes" and "1" were a 200)
        for extra in ({"messages": [{"role": "hacker", "content": "hi"}]},
                      {"stream": "yes"}, {"n": "1"}):
            r = await client.post("/v1/chat/completions", json={
                "model": "loopgate-auto", "messages": [{"role": "user", "content": "hi"}],
                **extra})
            assert r.status_code == 400, (extra, r.text)


async def test_fields_it_cannot_honour_are_a_400_naming_them(tmp_path, embed_model_path) -> None:
    """``n`` > 1, tools, a forced tool choice, JSON output and log-probabilities change what the
    client gets back, so they are refused with a 400 naming the field (``param``), as
    OpenAI-compatible servers without them do; sampling knobs and empty or "none" tool fields
    are accepted and ignored (found by a new-user trial: ``tools`` and ``n: 3`` were silently
    ignored, one plain answer came back)."""
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {}}}}
    msgs = [{"role": "user", "content": "标准配送要几天？"}]
    refused = [
        ({"n": 3}, "n"), ({"n": 0}, "n"), ({"tools": [tool]}, "tools"),
        ({"tools": [tool], "tool_choice": "auto"}, "tools"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"tool_choice": {"type": "function", "function": {"name": "get_weather"}}},
         "tool_choice"),
        ({"functions": [tool["function"]]}, "functions"),
        ({"function_call": {"name": "get_weather"}}, "function_call"),
        ({"response_format": {"type": "json_object"}}, "response_format"),
        ({"logprobs": True}, "logprobs"), ({"top_logprobs": 3}, "top_logprobs"),
    ]
    accepted = {"n": 1, "tools": [], "tool_choice": "none", "parallel_tool_calls": False,
                "temperature": 0.2, "top_p": 0.9, "max_tokens": 50, "stop": ["\n\n"],
                "seed": 7, "user": "u-1", "presence_penalty": 0, "frequency_penalty": 0,
                "response_format": {"type": "text"}, "logprobs": False,
                "stream_options": {"include_usage": True}, "metadata": {"k": "v"}}
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        for extra, param in refused:
            for stream in (False, True):
                r = await client.post("/v1/chat/completions", json={
                    "model": "loopgate-rag", "messages": msgs, "stream": stream, **extra})
                assert r.status_code == 400, (extra, r.text)
                err = r.json()["error"]
                assert err["param"] == param and err["code"] == "bad_request", (extra, err)
                assert "not supported" in err["message"], err
        r = await client.post("/v1/chat/completions", json={
            "model": "loopgate-rag", "messages": msgs, **accepted})
        assert r.status_code == 200, r.text
        assert len(r.json()["choices"]) == 1


async def test_long_chat_keeps_the_most_recent_turns(tmp_path, embed_model_path, cases_dir: Path) -> None:
    """Over 50 earlier messages: answered with the most recent turns as history (was a 400 with
    a raw pydantic dump)."""
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, sorted((cases_dir / CASE12 / "v1").iterdir()))
        filler = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"闲聊 {i}"}
                  for i in range(120)]
        tail = [{"role": "user", "content": "标准配送"}, {"role": "assistant", "content": "…"},
                {"role": "user", "content": "那要几天？"}]
        for stream in (False, True):
            r = await client.post("/v1/chat/completions", json={
                "model": "loopgate-rag", "stream": stream, "messages": filler + tail})
            assert r.status_code == 200, r.text
            if not stream:
                body = r.json()
                assert body["loopgate"]["route"]["retrieval_query"] == "标准配送 那要几天？"
                assert "3 个工作日" in body["choices"][0]["message"]["content"]
            else:
                assert "data: [DONE]" in r.text and '"error"' not in r.text


async def _sse_data(client, req: dict) -> tuple[int, list]:
    """Status and the ``data:`` payloads of a streamed chat completion."""
    out = []
    async with client.stream("POST", "/v1/chat/completions", json=req) as resp:
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                data = line.split(":", 1)[1].strip()
                out.append(data if data == "[DONE]" else json.loads(data))
    return resp.status_code, out


@pytest.mark.parametrize("model", ["loopgate-rag", "loopgate-loop"])
async def test_stream_failure_is_an_error_event_then_done(tmp_path, embed_model_path, model) -> None:
    """A failure after the stream started (the collection's shard held by another process)
    arrives as an OpenAI-style ``data: {"error": …}`` event and ``[DONE]``, not an empty 200."""
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        with held_collection(tmp_path / "data", "held"):
            req = {"model": model, "collection": "held", "stream": True,
                   "messages": [{"role": "user", "content": "退货期限是几天？"}]}
            status, events = await _sse_data(client, req)
        assert status == 200 and events[-1] == "[DONE]", events
        errors = [e for e in events[:-1] if "error" in e]
        assert len(errors) == 1, events
        err = errors[0]["error"]
        assert err["code"] == "data_dir_locked" and err["status"] == 503, err
        assert "held" in err["message"] and err["type"] == "server_error"


async def test_lone_surrogate_is_a_400_not_a_500(tmp_path) -> None:
    """JSON may spell a lone surrogate (``\\ud800``): Python decodes it into text UTF-8 cannot
    carry. It is bad input (a 400 naming the field, as /v1/query/stream answers), plain and
    streamed, in the question, an earlier message, a system message or a content part."""
    bodies = [
        (r'{"model":"loopgate-rag","messages":[{"role":"user","content":"Widget \ud800 warranty"}]}',
         "messages.0.content"),
        (r'{"model":"loopgate-rag","messages":[{"role":"system","content":"x\udc80"},'
         r'{"role":"user","content":"Widget warranty"}]}', "messages.0.content"),
        (r'{"model":"loopgate-rag","messages":[{"role":"user","content":"a"},{"role":"assistant",'
         r'"content":"b"},{"role":"user","content":[{"type":"text","text":"c\ud800"}]}]}',
         "messages.2.content"),
        (r'{"model":"loopgate-rag","session_id":"s\ud800","messages":[{"role":"user","content":"a"}]}',
         "session_id"),
    ]
    async with running(make_settings(tmp_path)) as (_app, client):
        for raw, field in bodies:
            for stream in (False, True):
                body = raw[:-1] + ',"stream":true}' if stream else raw
                r = await client.post("/v1/chat/completions", content=body.encode(),
                                      headers={"content-type": "application/json"})
                assert r.status_code == 400, (body, r.text)
                err = r.json()["error"]
                assert err["code"] == "bad_request" and err["message"].startswith(f"{field}: ")
                # a session id is checked as /v1/query checks it (letters, digits, ._:-)
                assert "surrogate" in err["message"] or field == "session_id", err
