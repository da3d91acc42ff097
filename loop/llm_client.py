"""OpenAI-compatible chat-completions client over one pooled ``httpx.AsyncClient``.

Retries with exponential back-off (tenacity) on HTTP 429 / 5xx, connection errors and
timeouts; token accounting from each reply's ``usage``; ``auto`` protocol detection (one probe
per client, remembered); both JSON-schema ``response_format`` dialects (``json_schema`` as in
llama.cpp's server and OpenAI, ``json_object`` + ``schema`` as in llama-cpp-python).

Every reply is validated (:func:`loop.llm_reply.parse_completion`, typed pydantic models) and
read with a size cap (``max_reply_bytes``); each attempt's timeout is
``min(config.timeout_s, time left before the enclosing loop.llm_breaker.llm_deadline)`` and
covers the whole exchange (connect, headers, a body sent slowly); retries stop when no time is
left. Whatever goes wrong surfaces as a :class:`loop.errors.LLMError` subclass, never as
another exception. A :class:`loop.llm_breaker.CircuitBreaker` counts failed calls: after
``failure_threshold`` in a row calls are refused with ``LLMUnavailableError`` without a
request until a half-open probe succeeds.

Usage example::

    client = AsyncLLMClient(LLMConfig(base_url="http://127.0.0.1:8080/v1", protocol="json"))
    reply = await client.chat([{"role": "user", "content": "hi"}])
    print(reply.content, reply.prompt_tokens)
    await client.aclose()
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from loop.config import LLMConfig
from loop.errors import LLMError, LLMHTTPError, LLMUnavailableError
from loop.llm_breaker import CircuitBreaker
from loop.llm_reply import parse_completion
from loop.llm_wire import MAX_REPLY_BYTES, ChatWire, NoTimeLeft
from loop.types import ToolCall

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


# HTTP statuses that refuse one request (too long, bad schema), not a sign the LLM is down
_REQUEST_FAULTS = frozenset({400, 413, 422})


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


class AsyncLLMClient:
    """Async chat-completions client; one instance per endpoint, shared across questions.

    :param config: endpoint, model, key, timeout, retries, protocol.
    :param transport: injectable httpx transport (tests: ``httpx.MockTransport``).
    :param breaker: the circuit breaker counting failed calls (default: 3 faults, 15 s).
    :param max_reply_bytes: larger reply bodies are an ``LLMProtocolError`` (read stops there).
    """

    def __init__(
        self, config: LLMConfig, *, transport: httpx.AsyncBaseTransport | None = None,
        breaker: CircuitBreaker | None = None, max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        self.config = config
        self.breaker = breaker or CircuitBreaker()
        self._wire = ChatWire(config, transport=transport, max_reply_bytes=max_reply_bytes)
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
        await self._wire.aclose()

    async def __aenter__(self) -> AsyncLLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _post(self, body: dict[str, Any]) -> bytes:
        return await self._wire.post(body)

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
        :raises LLMHTTPError: non-2xx after retries. :raises LLMTimeoutError: after retries,
            or no time left before the request deadline (not counted as a fault).
        :raises LLMProtocolError: a reply that is not JSON, not the chat-completions shape, or
            larger than ``max_reply_bytes``. :raises LLMError: server unreachable.
        :raises LLMUnavailableError: the circuit breaker is open (nothing sent), or it opened
            (other calls failed) while this one waited: the call is abandoned at once.

        Every ``LLMError`` counts as a fault for the breaker except ``NoTimeLeft`` (the deadline,
        not the LLM) and HTTP 400 / 413 / 422 (this request was refused, e.g. too long).
        """
        if not self.breaker.allow():
            snap = self.breaker.snapshot()
            raise LLMUnavailableError(
                f"LLM marked down after {snap['consecutive_failures']} consecutive faults "
                f"(next probe in {snap['retry_in_s']:.1f} s): {snap['last_error']}")
        verdict = False
        call = asyncio.ensure_future(self._chat(messages, tools=tools, json_schema=json_schema,
                                                max_tokens=max_tokens))
        marked_down: list[bool] = []

        def abandon() -> None:  # the breaker opened while this call waited
            if not call.done():
                marked_down.append(True)
                call.cancel()

        forget = self.breaker.on_open(abandon)
        try:
            try:
                reply = await call
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if marked_down and (task is None or not task.cancelling()):
                    raise LLMUnavailableError(
                        "LLM marked down while this call waited: "
                        f"{self.breaker.last_error}") from None
                raise
            verdict = True
            self.breaker.success()
            return reply
        except (NoTimeLeft, LLMUnavailableError):
            raise  # the deadline, or the breaker: no verdict on this call
        except LLMHTTPError as exc:
            if exc.status not in _REQUEST_FAULTS:
                verdict = True
                self.breaker.failure(f"{type(exc).__name__}: {exc}")
            raise
        except LLMError as exc:
            verdict = True
            self.breaker.failure(f"{type(exc).__name__}: {exc}")
            raise
        finally:
            forget()
            if not verdict:  # cancelled by the caller, or out of time: no verdict on the LLM
                self.breaker.release()

    async def _chat(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None,
                    json_schema: dict[str, Any] | None, max_tokens: int | None) -> ChatReply:
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
        parsed = parse_completion(data)
        choice = parsed.choices[0]
        usage = parsed.usage
        reply = ChatReply(
            content=choice.message.text(),
            tool_calls=choice.message.calls(),
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            finish_reason=choice.finish_reason or "",
            elapsed_ms=(time.perf_counter() - t0) * 1000,
        )
        self.calls += 1
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens
        return reply

    async def _post_with_schema(self, body: dict[str, Any], schema: dict[str, Any]) -> bytes:
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
        The result is remembered for the client's lifetime.

        :raises LLMUnavailableError: the circuit breaker is open (also when the protocol is
            configured: callers take their no-LLM path at once).
        :raises LLMHTTPError, LLMTimeoutError, LLMError: the probe failed (not on HTTP 4xx).
        """
        if self.breaker.state == "open":
            raise LLMUnavailableError(f"LLM marked down: {self.breaker.last_error}")
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
