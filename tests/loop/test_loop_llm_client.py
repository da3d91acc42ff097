"""Protocol parsing of the LLM client through an injected ``httpx.MockTransport`` (STYLE.md §8:
transports are injected, not patched)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from loop import AsyncLLMClient, LLMConfig, LLMHTTPError, LLMProtocolError, parse_action


def _ok(message: dict[str, Any], usage: dict[str, int] | None = None) -> httpx.Response:
    usage = usage or {"prompt_tokens": 7, "completion_tokens": 3}
    return httpx.Response(200, json={"choices": [{"message": message, "finish_reason": "stop"}],
                                     "usage": usage})


def _client(handler: Any, **kw: Any) -> AsyncLLMClient:
    cfg = LLMConfig(base_url="http://llm.test/v1", backoff_s=0.0, **kw)
    return AsyncLLMClient(cfg, transport=httpx.MockTransport(handler))


def test_usage_key_and_tool_call_parsing():
    seen: list[httpx.Request] = []

    def handler(req: httpx.Request) -> httpx.Response:
        seen.append(req)
        return _ok({"content": None, "tool_calls": [
            {"id": "c1", "function": {"name": "search", "arguments": "{\"query\": \"x\"}"}},
            {"id": "c2", "function": {"name": "read", "arguments": "not json"}}]})

    async def go() -> Any:
        c = _client(handler, api_key=SecretStr("sk-test"))
        r = await c.chat([{"role": "user", "content": "hi"}])
        await c.aclose()
        return c, r
    c, r = asyncio.run(go())
    assert seen[0].url.path == "/v1/chat/completions"
    assert seen[0].headers["authorization"] == "Bearer sk-test"
    assert [t.name for t in r.tool_calls] == ["search", "read"]
    assert r.tool_calls[0].arguments == {"query": "x"} and "__raw__" in r.tool_calls[1].arguments
    assert (r.prompt_tokens, r.completion_tokens, c.calls, c.prompt_tokens) == (7, 3, 1, 7)
    assert "sk-test" not in repr(c.config)


def test_json_schema_dialect_falls_back_to_json_object_and_remembers():
    formats: list[str] = []

    def handler(req: httpx.Request) -> httpx.Response:
        fmt = json.loads(req.content)["response_format"]
        formats.append(fmt["type"])
        if fmt["type"] == "json_schema":
            return httpx.Response(400, text="unknown response_format")
        assert fmt["schema"] == {"type": "object"}
        return _ok({"content": "{}"})

    async def go() -> None:
        c = _client(handler)
        await c.chat([{"role": "user", "content": "a"}], json_schema={"type": "object"})
        await c.chat([{"role": "user", "content": "b"}], json_schema={"type": "object"})
        await c.aclose()
    asyncio.run(go())
    assert formats == ["json_schema", "json_object", "json_object"]


def test_4xx_is_not_retried_and_bad_bodies_are_protocol_errors():
    calls = {"n": 0}

    def handler(req: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        return httpx.Response(401, text="bad key") if calls["n"] == 1 else httpx.Response(
            200, text="<html>")

    async def go() -> None:
        c = _client(handler, max_retries=3)
        with pytest.raises(LLMHTTPError) as ei:
            await c.chat([{"role": "user", "content": "a"}])
        assert ei.value.status == 401
        with pytest.raises(LLMProtocolError):
            await c.chat([{"role": "user", "content": "a"}])
        await c.aclose()
    asyncio.run(go())
    assert calls["n"] == 2


@pytest.mark.parametrize("reply,protocol", [
    ({"content": None, "tool_calls": [{"id": "p", "function": {
        "name": "ping", "arguments": "{\"text\": \"ok\"}"}}]}, "tools"),
    ({"content": "<tools>{\"name\": \"ping\"}</tools>"}, "json"),
])
def test_auto_probe(reply, protocol):
    def handler(req: httpx.Request) -> httpx.Response:
        assert json.loads(req.content)["tools"][0]["function"]["name"] == "ping"
        return _ok(reply)

    async def go() -> str:
        c = _client(handler, protocol="auto")
        got = await c.resolve_protocol()
        assert await c.resolve_protocol() == got and c.calls == 1  # probed once
        await c.aclose()
        return got
    assert asyncio.run(go()) == protocol


@pytest.mark.parametrize("text,name,args", [
    ('{"tool": "search", "arguments": {"query": "a"}}', "search", {"query": "a"}),
    ('```json\n{"tool": "read", "arguments": {"chunk_id": "x"}}\n```', "read", {"chunk_id": "x"}),
    ('Sure! {"name": "read", "args": {"chunk_id": "x",},} done', "read", {"chunk_id": "x"}),
    ('{"answer": {"response": "r", "found": false, "citations": []}}', "answer",
     {"response": "r", "found": False, "citations": []}),
    ('{"action": "search", "parameters": "{\\"query\\": \\"q\\"}"}', "search", {"query": "q"}),
])
def test_parse_action_repairs(text, name, args):
    call = parse_action(text)
    assert call is not None and call.name == name and call.arguments == args


@pytest.mark.parametrize("text", ["", "I will search now", "[1, 2]", "{\"tool\": 3}"])
def test_parse_action_gives_up(text):
    assert parse_action(text) is None
