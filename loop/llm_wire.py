"""The HTTP side of the LLM client (:class:`ChatWire`): one pooled ``httpx.AsyncClient``,
``POST chat/completions`` with retries (tenacity: exponential back-off on HTTP 429 / 5xx,
timeouts and connection failures), each attempt under ``min(config.timeout_s, time left before
the enclosing loop.llm_breaker.llm_deadline)`` for the whole exchange (connect, headers and a
body sent slowly), the body read with a size cap. Errors are ``loop.errors.LLMError``
subclasses (httpx errors translated with ``from exc``). Used by ``loop.llm_client``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    stop_any,
    wait_exponential,
)
from tenacity.stop import stop_base

from loop.config import LLMConfig
from loop.errors import LLMError, LLMHTTPError, LLMProtocolError, LLMTimeoutError
from loop.llm_breaker import time_left

__all__ = ["MAX_REPLY_BYTES", "ChatWire", "NoTimeLeft"]

MAX_REPLY_BYTES = 2 * 1024 * 1024
_MIN_CALL_S = 0.05  # an attempt with less time than this left is not started
_MIN_FAULT_S = 0.5  # a timeout cut by the deadline below this is not counted as an LLM fault


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, LLMHTTPError):
        return exc.status == 429 or exc.status >= 500
    return isinstance(exc, LLMTimeoutError | _TransportFailure) and not isinstance(exc, NoTimeLeft)


class _TransportFailure(LLMError):
    """Connection refused / reset (retried, then re-raised as LLMError)."""


class NoTimeLeft(LLMTimeoutError):
    """The request deadline left no time for (another) attempt: not the LLM's fault."""


class _OutOfTime(stop_base):
    """tenacity stop: the back-off sleep would leave less than one minimal attempt."""

    def __call__(self, retry_state: RetryCallState) -> bool:
        left = time_left()
        return left is not None and left - (retry_state.upcoming_sleep or 0.0) < _MIN_CALL_S


class ChatWire:
    """POSTs chat-completions bodies and returns the raw reply bytes.

    :param config: base URL, key, ``timeout_s``, ``max_retries``, ``backoff_s``.
    :param transport: injectable httpx transport (tests).
    :param max_reply_bytes: a larger body (declared or read) raises ``LLMProtocolError``.
    """

    def __init__(self, config: LLMConfig, *, transport: httpx.AsyncBaseTransport | None = None,
                 max_reply_bytes: int = MAX_REPLY_BYTES) -> None:
        self.config = config
        self.max_reply_bytes = max_reply_bytes
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

    async def aclose(self) -> None:
        """Close the pooled HTTP client."""
        await self._http.aclose()

    def _attempt_timeout(self) -> float:
        """This attempt's timeout, seconds: ``config.timeout_s`` capped by the deadline.

        :raises NoTimeLeft: less than ``_MIN_CALL_S`` is left before the deadline."""
        left = time_left()
        if left is None:
            return self.config.timeout_s
        if left < _MIN_CALL_S:
            raise NoTimeLeft("no time left before the request deadline for an LLM call")
        return min(self.config.timeout_s, left)

    async def _read_capped(self, resp: httpx.Response) -> bytes:
        declared = resp.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise LLMProtocolError(f"reply of {declared} bytes exceeds {self.max_reply_bytes}")
        parts, size = [], 0
        async for part in resp.aiter_bytes():
            size += len(part)
            if size > self.max_reply_bytes:
                raise LLMProtocolError(f"reply exceeds {self.max_reply_bytes} bytes")
            parts.append(part)
        return b"".join(parts)

    async def _post_once(self, body: dict[str, Any]) -> bytes:
        limit = self._attempt_timeout()
        try:
            async with asyncio.timeout(limit):
                async with self._http.stream("POST", "chat/completions", json=body,
                                             timeout=httpx.Timeout(limit)) as resp:
                    raw = await self._read_capped(resp)
        except (httpx.TimeoutException, TimeoutError) as exc:
            if limit < min(self.config.timeout_s, _MIN_FAULT_S):
                # the deadline, not the LLM, left too little time: no verdict on the LLM
                raise NoTimeLeft(f"only {limit:.3g} s were left before the deadline") from exc
            raise LLMTimeoutError(f"no reply within {limit:.3g} s") from exc
        except httpx.TransportError as exc:  # refused, reset, truncated body (RemoteProtocolError)
            raise _TransportFailure(f"cannot reach {self.config.base_url}: {exc}") from exc
        except httpx.HTTPError as exc:  # undecodable body, redirect loop …
            raise LLMProtocolError(f"unusable reply: {type(exc).__name__}: {exc}") from exc
        if resp.status_code >= 300:
            raise LLMHTTPError(resp.status_code, raw[:500].decode("utf-8", "replace"))
        return raw

    async def post(self, body: dict[str, Any]) -> bytes:
        """POST ``body`` to ``chat/completions``; the reply body (2xx) as bytes.

        :raises LLMHTTPError: non-2xx after retries (429 / 5xx retried).
        :raises LLMTimeoutError: no reply in time after retries; ``NoTimeLeft`` when the
            deadline left no time to try. :raises LLMProtocolError: body too large or
            undecodable. :raises LLMError: server unreachable after retries.
        """
        retrying = AsyncRetrying(
            stop=stop_any(stop_after_attempt(self.config.max_retries + 1), _OutOfTime()),
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

