"""OpenAI-compatible chat-completions client over one pooled ``httpx.AsyncClient``.

Retries with exponential back-off (tenacity) on HTTP 429 / 5xx, connection errors and
timeouts; token accounting from each reply's ``usage``; ``auto`` protocol detection (one probe
per client, remembered); both JSON-schema ``response_format`` dialects (``json_schema`` as in
llama.cpp's server and OpenAI, ``json_object`` + ``schema`` as in llama-cpp-python).

Usage example::

    client = AsyncLLMClient(LLMConfig(base_url="http://127.0.0.1:8080/v1", protocol="json"))
    reply = await client.chat([{"role": "user", "content": "hi"}])
    print(reply.content, reply.prompt_tokens)
    await client.aclose()
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from loop.errors import LLMError, LLMHTTPError, LLMProtocolError, LLMTimeoutError
from loop.types import LLMConfig, ToolCall

__all__ = ["AsyncLLMClient", "ChatReply"]

_PROBE_TOOL = {
    "type": "function",
    "function": {
        "name": "ping",
        "description": "Reply to a ping.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
    },
}


@dataclass(slots=True)
class ChatReply:
    """One assistant reply.

    :param content: assistant text (``""`` when it only called tools).
    :param tool_calls: native tool calls; arguments that are not a JSON object are kept as
        ``{"__raw__": text}`` so the caller can tell the model its call was malformed.
    :param prompt_tokens, completion_tokens: from ``usage`` (0 when the server sends none).
    :param elapsed_ms: request time including retries.
    """

    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = ""
    elapsed_ms: float = 0.0


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, LLMHTTPError):
        return exc.status == 429 or exc.status >= 500
    return isinstance(exc, LLMTimeoutError | _TransportFailure)


class _TransportFailure(LLMError):
    """Connection refused / reset (retried, then re-raised as LLMError)."""


def _parse_tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for i, raw in enumerate(message.get("tool_calls") or []):
        fn = raw.get("function") or {}
        args_raw = fn.get("arguments", {})
        if isinstance(args_raw, str):
            try:
                args = json.loads(args_raw) if args_raw.strip() else {}
            except json.JSONDecodeError:
                args = {"__raw__": args_raw}
        else:
            args = args_raw
        if not isinstance(args, dict):
            args = {"__raw__": json.dumps(args)}
        calls.append(ToolCall(str(fn.get("name", "")), args, str(raw.get("id") or f"call_{i}")))
    return calls


class AsyncLLMClient:
    """Async chat-completions client; one instance per endpoint, shared across questions.

    :param config: endpoint, model, key, timeout, retries, protocol.
    :param transport: injectable httpx transport (tests: ``httpx.MockTransport``).
    """

    def __init__(
        self, config: LLMConfig, *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self.config = config
        headers = {"Content-Type": "application/json"}
        if config.api_key is not None and config.api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
        self._http = httpx.AsyncClient(
            base_url=config.base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(config.timeout_s),
            transport=transport,
            limits=httpx.Limits(max_connections=16, max_keepalive_connections=8),
        )
        self._protocol: str | None = None if config.protocol == "auto" else config.protocol
        self._dialect: str | None = None if config.json_dialect == "auto" else config.json_dialect
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    @property
    def protocol(self) -> str | None:
        """``tools`` or ``json`` once known (set, or probed by :meth:`resolve_protocol`)."""
        return self._protocol

    async def aclose(self) -> None:
        """Close the pooled HTTP client."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncLLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _post_once(self, body: dict[str, Any]) -> dict[str, Any]:
        try:
            resp = await self._http.post("chat/completions", json=body)
        except httpx.TimeoutException as exc:
            raise LLMTimeoutError(f"no reply within {self.config.timeout_s} s") from exc
        except httpx.TransportError as exc:
            raise _TransportFailure(f"cannot reach {self.config.base_url}: {exc}") from exc
        if resp.status_code >= 300:
            raise LLMHTTPError(resp.status_code, resp.text)
        try:
            data = resp.json()
        except ValueError as exc:
            raise LLMProtocolError(f"reply is not JSON: {resp.text[:200]!r}") from exc
        if not isinstance(data, dict) or not data.get("choices"):
            raise LLMProtocolError(f"reply has no choices: {resp.text[:200]!r}")
        return data

    async def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.max_retries + 1),
            wait=wait_exponential(multiplier=self.config.backoff_s, max=8),
            retry=retry_if_exception(_retryable),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._post_once(body)
        except _TransportFailure as exc:
            raise LLMError(str(exc)) from exc.__cause__
        raise LLMError("unreachable")  # pragma: no cover

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ChatReply:
        """One chat-completions call.

        :param tools: OpenAI ``tools`` list (native protocol).
        :param json_schema: constrain the reply to this schema (JSON-action protocol), in the
            server's dialect (probed once when ``json_dialect='auto'``).
        :raises LLMHTTPError: non-2xx after retries. :raises LLMTimeoutError: after retries.
        :raises LLMProtocolError: unparseable reply. :raises LLMError: server unreachable.
        """
        import time

        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature,
            "max_tokens": max_tokens or self.config.max_tokens,
        }
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        t0 = time.perf_counter()
        if json_schema is not None:
            data = await self._post_with_schema(body, json_schema)
        else:
            data = await self._post(body)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        usage = data.get("usage") or {}
        reply = ChatReply(
            content=str(message.get("content") or ""),
            tool_calls=_parse_tool_calls(message),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            finish_reason=str(choice.get("finish_reason") or ""),
            elapsed_ms=(time.perf_counter() - t0) * 1000,
        )
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        return reply

    async def _post_with_schema(
        self, body: dict[str, Any], schema: dict[str, Any]
    ) -> dict[str, Any]:
        dialects = [self._dialect] if self._dialect else ["json_schema", "json_object"]
        last: LLMHTTPError | None = None
        for dialect in dialects:
            if dialect == "json_schema":
                fmt = {"type": "json_schema",
                       "json_schema": {"name": "action", "strict": True, "schema": schema}}
            else:
                fmt = {"type": "json_object", "schema": schema}
            try:
                data = await self._post({**body, "response_format": fmt})
            except LLMHTTPError as exc:
                if 400 <= exc.status < 500 and exc.status != 429 and self._dialect is None:
                    last = exc
                    continue
                raise
            self._dialect = dialect
            return data
        assert last is not None
        raise last

    async def resolve_protocol(self) -> str:
        """``tools`` or ``json``: the configured one, or probe once (a ``ping`` tool the model
        is asked to call; a reply with a proper ``tool_calls`` entry means native tools work).
        The result is remembered for the client's lifetime."""
        if self._protocol is not None:
            return self._protocol
        messages = [
            {"role": "system", "content": "You are a function-calling assistant."},
            {"role": "user", "content": "Call the ping tool with text \"ok\"."},
        ]
        try:
            reply = await self.chat(messages, tools=[_PROBE_TOOL], max_tokens=64)
            ok = any(c.name == "ping" and "__raw__" not in c.arguments for c in reply.tool_calls)
        except LLMHTTPError as exc:
            if exc.status == 429 or exc.status >= 500:
                raise
            ok = False
        self._protocol = "tools" if ok else "json"
        return self._protocol
