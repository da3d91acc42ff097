"""What the line-reading policy's steps share (:mod:`loop.policies.llm_read`): one LLM call
under the reading deadline and the token budget (:meth:`ReadCalls._chat`; a fault, the deadline
or the budget raise :class:`ReadStop`), one call with one re-ask on an unusable reply
(:meth:`ReadCalls._ask`), and the :class:`loop.results.LoopResult` a run returns
(:meth:`ReadCalls._result`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from corpus.types import Citation
from loop.controller import LoopState
from loop.errors import LLMError, LLMTimeoutError
from loop.llm_breaker import llm_deadline
from loop.llm_client import AsyncLLMClient
from loop.policies.read_nav import Navigator
from loop.policies.read_parse import ReplyError
from loop.results import LoopResult, StopReason
from loop.types import NOT_FOUND

__all__ = ["FAULTS", "ReadCalls", "ReadStop"]

T = TypeVar("T")

#: stop reasons after which the answer is the offline policy's (an evidence answer)
FAULTS = ("deadline", "llm_error", "token_budget")


class ReadStop(Exception):
    """Reading ends: ``reason`` (deadline, token budget, LLM fault) and a note."""

    def __init__(self, reason: StopReason, note: str = "") -> None:
        super().__init__(note)
        self.reason = reason


class ReadCalls:
    """The LLM calls and the result of :class:`loop.policies.llm_read.LLMReadPolicy`.

    :param client: the chat-completions client (JSON schema through ``response_format``).
    """

    def __init__(self, client: AsyncLLMClient) -> None:
        self.client = client
        self.brain = f"llm:{client.config.model}:read"
        self.invalid = self.dropped_lines = 0
        self._deadline = 0.0

    async def _chat(self, nav: Navigator, msgs: list[dict[str, Any]], schema: dict[str, Any],
                    max_tokens: int) -> tuple[str, float, int]:
        """One call under the reading deadline and the token budget: reply text, elapsed
        milliseconds, tokens. :raises ReadStop: deadline, token budget or LLM fault."""
        state, cfg = nav.state, nav.state.ctx.config
        if cfg.token_budget and state.prompt_tokens + state.completion_tokens >= cfg.token_budget:
            raise ReadStop("token_budget")
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise ReadStop("deadline", "no time left for an LLM call")
        t0 = time.perf_counter()
        try:
            with llm_deadline(self._deadline):
                reply = await asyncio.wait_for(self.client.chat(
                    msgs, json_schema=schema, max_tokens=max_tokens), left)
        except TimeoutError as exc:
            raise ReadStop("deadline", "LLM call cancelled at the loop deadline") from exc
        except LLMError as exc:
            late = isinstance(exc, LLMTimeoutError) and time.monotonic() >= self._deadline - 0.1
            await nav.emit(kind="llm", status="error", note=f"{type(exc).__name__}: {exc}"[:300])
            raise ReadStop("deadline" if late else "llm_error", f"{type(exc).__name__}") from exc
        state.llm_calls += 1
        state.prompt_tokens += reply.prompt_tokens
        state.completion_tokens += reply.completion_tokens
        return (reply.content, (time.perf_counter() - t0) * 1000,
                reply.prompt_tokens + reply.completion_tokens)

    async def _ask(self, nav: Navigator, msgs: list[dict[str, Any]], schema: dict[str, Any],
                   max_tokens: int, parse: Callable[[str], T], reask: str, where: str
                   ) -> tuple[T, int, float, int] | None:
        """One call and, when its reply cannot be parsed (``ReplyError``: an ``invalid`` step
        noted ``where: error``), one re-ask with the error (``reask``, formatted with
        ``error``). :returns: ``(parsed, attempt, milliseconds, tokens)`` of the usable reply,
        or ``None`` when both were unusable. :raises ReadStop: deadline, budget or fault."""
        for attempt in range(2):
            text, ms, tokens = await self._chat(nav, msgs, schema, max_tokens)
            try:
                return parse(text), attempt, ms, tokens
            except ReplyError as exc:
                self.invalid += 1
                await nav.emit(kind="llm", status="invalid", elapsed_ms=ms, tokens=tokens,
                               note=f"{where}: {exc}"[:300])
                msgs = [*msgs[:2], {"role": "assistant", "content": text[:1000]},
                        {"role": "user", "content": reask.format(error=exc)}]
        return None

    def _result(self, state: LoopState, base: LoopResult | None, reason: StopReason, guard: str,
                dense_error: str, written: tuple[str, list[Citation]] | None = None
                ) -> LoopResult:
        """The LoopResult: ``base``'s answer (offline; ``brain`` ``offline``) or the LLM's
        ``written`` answer and citations; ``guard`` says why."""
        answer, citations = (base.answer, list(base.citations)) if base is not None else \
            written or (NOT_FOUND, [])
        return LoopResult(
            answer=answer, found=base.found if base is not None else bool(citations),
            citations=citations, stop_reason=reason,
            brain="offline" if base is not None else self.brain,
            dropped_citations=state.dropped + self.dropped_lines, steps=list(state.events),
            llm_calls=state.llm_calls, prompt_tokens=state.prompt_tokens,
            completion_tokens=state.completion_tokens, tool_calls=state.tool_calls,
            elapsed_ms=(time.monotonic() - state.started) * 1000,
            read_chunk_ids=list(state.ctx.read),
            evidence_answer=base is not None and reason in FAULTS,
            dense_error=dense_error, guard=guard, invalid_actions=self.invalid)
