"""Errors of the deep-read path (LoopAgent).

Hierarchy (``LoopGateError`` lives in :mod:`corpus.errors`)::

    LoopGateError
     └── LoopError                   deep-read path
          ├── LLMError               the chat-completions server failed or answered nonsense
          │    ├── LLMHTTPError      non-2xx status after retries (``status`` kept)
          │    ├── LLMTimeoutError   no reply within the client timeout after retries
          │    │                     (or before the request deadline, ``loop.llm_breaker``)
          │    ├── LLMUnavailableError  refused without a call: the circuit breaker is open
          │    └── LLMProtocolError  the reply could not be parsed (after one repair / re-ask)
          ├── ToolError              a tool failed (carries ``tool`` and ``call_id``)
          └── StepLimitExceeded      a budget ended the loop (raised only on request)

httpx errors are translated at the boundary (``loop.llm_client``) with ``from exc``.
"""

from __future__ import annotations

from corpus.errors import LoopGateError

__all__ = [
    "LLMError",
    "LLMHTTPError",
    "LLMProtocolError",
    "LLMTimeoutError",
    "LLMUnavailableError",
    "LoopError",
    "StepLimitExceeded",
    "ToolError",
]


class LoopError(LoopGateError):
    """A failure of the deep-read path."""


class LLMError(LoopError):
    """The LLM server failed or replied with something unusable."""


class LLMHTTPError(LLMError):
    """The server answered with a non-2xx status (after retries on 429/5xx).

    :param status: HTTP status code.
    :param body: the first 500 characters of the response body.
    """

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"LLM server answered HTTP {status}: {body[:200]}")
        self.status = status
        self.body = body[:500]


class LLMTimeoutError(LLMError):
    """No reply within the client timeout (after retries)."""


class LLMUnavailableError(LLMError):
    """The circuit breaker is open (the LLM failed repeatedly): the call was refused at once,
    nothing was sent. Callers answer without the LLM (extractive / offline policy)."""


class LLMProtocolError(LLMError):
    """The reply could not be understood (no choices, invalid JSON action after re-ask …)."""


class ToolError(LoopError):
    """A tool failed.

    :param tool: tool name; ``call_id`` the tool call's id (``""`` when none).
    """

    def __init__(self, message: str, *, tool: str, call_id: str = "") -> None:
        super().__init__(f"{tool}: {message}")
        self.tool = tool
        self.call_id = call_id


class StepLimitExceeded(LoopError):
    """A budget (loops, tokens, deadline, duplicates) ended the loop; ``reason`` names it."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"loop stopped: {reason}")
        self.reason = reason
