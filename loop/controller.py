"""The loop controller: a pure decision function and one async driver (STYLE.md §4).

:func:`next_step` decides, without I/O, what happens to a tool call a policy proposed:
execute it, refuse it (a repeated identical call: the cached result comes back with a hint),
or stop (a budget is spent, or too many repeats — a hard stop, case 22). :func:`budget_stop`
says whether another turn may start. :func:`drive` is the only I/O: it asks the policy for
calls (the LLM round trip), runs tools under their timeouts, checks citations, emits a
:class:`~loop.results.StepEvent` per step, and builds the :class:`~loop.results.LoopResult`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from corpus.labels import asked_item
from loop.citations import check_citations
from loop.errors import LLMError
from loop.evidence import TermMatcher, best_evidence
from loop.results import LoopResult, StepEvent, StopReason
from loop.tools import TOOLS, ToolContext, run_tool, validate
from loop.types import NOT_FOUND, ToolCall, ToolResult

__all__ = [
    "EventCallback", "Execute", "Finish", "LoopState", "Proposal", "ReadingPolicy", "Refuse",
    "budget_stop", "canonical_call", "drive", "evidence_answer", "next_step",
]

MAX_CALLS_PER_TURN = 3
# on_event may be sync or async (the gateway streams events from an async sink)
EventCallback = Callable[[StepEvent], "None | Awaitable[None]"]


def _fold(v: Any) -> Any:
    if isinstance(v, str):
        return " ".join(v.split())
    if isinstance(v, dict):
        return {k: _fold(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_fold(x) for x in v]
    return v


def canonical_call(call: ToolCall) -> str:
    """Normalised call key: tool name + canonical JSON of the arguments (defaults filled in,
    strings trimmed and whitespace-folded, keys sorted)."""
    tool = TOOLS.get(call.name)
    args = {**(tool.defaults if tool else {}), **call.arguments}
    return call.name + json.dumps(_fold(args), sort_keys=True, ensure_ascii=False)


@dataclass(slots=True)
class LoopState:
    """Everything the decisions look at; mutated only by :func:`drive`."""

    question: str
    ctx: ToolContext
    matcher: TermMatcher
    #: the text the first search asks (the caller's search query: a follow-up with its earlier
    #: turn, a relative period with its year); ``""``: the question
    query: str = ""
    started: float = field(default_factory=time.monotonic)
    turn: int = 0
    step: int = 0
    events: list[StepEvent] = field(default_factory=list)
    tool_calls: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    results: dict[str, ToolResult] = field(default_factory=dict)
    duplicates: int = 0
    answer_retries: int = 0
    dropped: int = 0

    @property
    def last_turn(self) -> bool:
        """True when the current turn is the last one ``max_loops`` allows."""
        return self.turn >= self.ctx.config.max_loops


@dataclass(frozen=True, slots=True)
class Execute:
    """Run the call."""


@dataclass(frozen=True, slots=True)
class Refuse:
    """Do not run the call; send ``result`` back instead."""

    result: ToolResult


@dataclass(frozen=True, slots=True)
class Finish:
    """End the loop with ``reason``."""

    reason: StopReason


def budget_stop(state: LoopState, now: float) -> StopReason | None:
    """The budget that forbids another turn, or ``None``."""
    cfg = state.ctx.config
    if cfg.deadline_s and now - state.started >= cfg.deadline_s:
        return "deadline"
    if cfg.token_budget and state.prompt_tokens + state.completion_tokens >= cfg.token_budget:
        return "token_budget"
    if state.turn >= cfg.max_loops or state.tool_calls >= 2 * cfg.max_loops:
        return "max_loops"
    return None


def next_step(state: LoopState, call: ToolCall, now: float) -> Execute | Refuse | Finish:
    """Decide what to do with one proposed call (pure; reads ``state`` only)."""
    cfg = state.ctx.config
    if cfg.deadline_s and now - state.started >= cfg.deadline_s:
        return Finish("deadline")
    tool = TOOLS.get(call.name)
    if tool is None:
        return Refuse(ToolResult("", status="refused", hint=f"unknown tool {call.name!r}; "
                                 f"tools: {', '.join(TOOLS)}"))
    problem = validate(tool, call.arguments)
    if problem:
        return Refuse(ToolResult("", status="refused", hint=problem))
    if tool.terminal:
        return Execute()
    key = canonical_call(call)
    if key in state.results:
        if state.duplicates >= cfg.max_duplicates:
            return Finish("repeated_calls")
        prev = state.results[key]
        return Refuse(ToolResult(prev.content, data=prev.data, status="refused",
                                 hint=f"you already ran this {call.name}; the result is above. "
                                 "Do something else: read a candidate, or answer."))
    if state.tool_calls >= 2 * cfg.max_loops:
        return Finish("max_loops")
    return Execute()


class Proposal(Protocol):
    """What a policy turn returns (see :class:`loop.policies.base.Turn`)."""

    calls: list[ToolCall]
    prompt_tokens: int
    completion_tokens: int
    llm_calls: int
    note: str


class ReadingPolicy(Protocol):
    """A brain: proposes tool calls and observes their results."""

    brain: str

    async def propose(self, state: LoopState) -> Proposal:
        """The next tool calls (may call an LLM)."""

    def observe(self, call: ToolCall, result: ToolResult) -> None:
        """Take the result of a call (or a refusal / rejection) into account."""


async def _emit(state: LoopState, on_event: EventCallback | None, **kw: Any) -> None:
    state.step += 1
    ev = StepEvent(step=state.step, turn=state.turn, **kw)
    state.events.append(ev)
    if on_event is not None:
        maybe = on_event(ev)
        if inspect.isawaitable(maybe):
            await maybe


def _result(state: LoopState, brain: str, reason: StopReason, answer: str, found: bool,
            citations: list[Any], **kw: Any) -> LoopResult:
    return LoopResult(
        answer=answer, found=found, citations=citations, stop_reason=reason, brain=brain,
        dropped_citations=state.dropped, steps=list(state.events), llm_calls=state.llm_calls,
        prompt_tokens=state.prompt_tokens, completion_tokens=state.completion_tokens,
        tool_calls=state.tool_calls, elapsed_ms=(time.monotonic() - state.started) * 1000,
        read_chunk_ids=list(state.ctx.read), **kw)


def evidence_answer(state: LoopState, brain: str, reason: StopReason) -> LoopResult:
    """Answer from the best verified evidence read (else shown) so far, or "not found"."""
    pool = list(state.ctx.read.values()) or list(state.ctx.seen.values())
    label = asked_item(state.question)
    m = state.matcher.known([c.context_text() for c in state.ctx.seen.values()], label=label)
    ev = best_evidence(pool, m, limit=1, label=label)
    if ev and ev[0].coverage >= state.ctx.config.min_coverage:
        state.ctx.read.setdefault(ev[0].chunk.chunk_id, ev[0].chunk)
        chk = check_citations([{"chunk_id": ev[0].chunk.chunk_id, "quote": ev[0].text}],
                              state.ctx.read, state.ctx.resolve)
        if chk.verified:
            return _result(state, brain, reason, ev[0].text, True, chk.verified,
                           evidence_answer=True)
    return _result(state, brain, reason, NOT_FOUND, False, [], evidence_answer=True)


async def drive(policy: ReadingPolicy, state: LoopState,
                on_event: EventCallback | None = None) -> LoopResult:
    """Run the loop to its end; never raises for LLM or tool failures (they end the loop with
    the evidence so far, ``stop_reason`` saying why)."""
    cfg = state.ctx.config
    while True:
        stop = budget_stop(state, time.monotonic())
        if stop is not None:
            await _emit(state, on_event, kind="stop", status=stop, note="budget")
            return evidence_answer(state, policy.brain, stop)
        state.turn += 1
        t0 = time.perf_counter()
        remaining = cfg.deadline_s - (time.monotonic() - state.started) if cfg.deadline_s else None
        try:
            prop = await asyncio.wait_for(policy.propose(state), remaining)
        except TimeoutError:
            await _emit(state, on_event, kind="stop", status="deadline",
                        note="policy turn timed out")
            return evidence_answer(state, policy.brain, "deadline")
        except LLMError as exc:
            await _emit(state, on_event, kind="stop", status="llm_error", note=str(exc)[:300])
            return evidence_answer(state, policy.brain, "llm_error")
        state.llm_calls += prop.llm_calls
        state.prompt_tokens += prop.prompt_tokens
        state.completion_tokens += prop.completion_tokens
        if prop.llm_calls:
            await _emit(state, on_event, kind="llm", elapsed_ms=(time.perf_counter() - t0) * 1000,
                  tokens=prop.prompt_tokens + prop.completion_tokens, note=prop.note)
        if not prop.calls:
            await _emit(state, on_event, kind="stop", status="no_action", note=prop.note)
            return evidence_answer(state, policy.brain, "no_action")
        for call in prop.calls[:MAX_CALLS_PER_TURN]:
            done = await _one_call(policy, state, call, on_event)
            if done is not None:
                return done


async def _one_call(policy: ReadingPolicy, state: LoopState, call: ToolCall,
                    on_event: EventCallback | None) -> LoopResult | None:
    t0 = time.perf_counter()
    decision = next_step(state, call, time.monotonic())
    if isinstance(decision, Finish):
        await _emit(state, on_event, kind="stop", tool=call.name, arguments=call.arguments,
              status=decision.reason, note="hard stop")
        return evidence_answer(state, policy.brain, decision.reason)
    if isinstance(decision, Refuse):
        if canonical_call(call) in state.results:
            state.duplicates += 1
        policy.observe(call, decision.result)
        await _emit(state, on_event, kind="tool", tool=call.name, arguments=call.arguments,
              status="refused", result_chars=len(decision.result.text()),
              elapsed_ms=(time.perf_counter() - t0) * 1000, note=decision.result.hint)
        return None
    if call.name == "fallback_to_rag":
        reason = str(call.arguments.get("reason", ""))
        await _emit(state, on_event, kind="tool", tool=call.name, arguments=call.arguments,
              elapsed_ms=(time.perf_counter() - t0) * 1000, note=reason)
        return _result(state, policy.brain, "fallback_to_rag", "", False, [],
                       fallback_reason=reason)
    if call.name == "answer":
        return await _answer(policy, state, call, on_event, t0)
    res = await run_tool(TOOLS[call.name], state.ctx, call.arguments)
    state.tool_calls += 1
    state.results[canonical_call(call)] = res
    policy.observe(call, res)
    await _emit(state, on_event, kind="tool", tool=call.name, arguments=call.arguments,
          status=res.status, result_chars=len(res.text()),
          elapsed_ms=(time.perf_counter() - t0) * 1000, note=res.hint)
    return None


async def _answer(policy: ReadingPolicy, state: LoopState, call: ToolCall,
            on_event: EventCallback | None, t0: float) -> LoopResult | None:
    args = call.arguments
    found = args.get("found", True) is not False and str(args.get("found")).lower() != "false"
    chk = check_citations(args.get("citations") or [], state.ctx.read, state.ctx.resolve)
    state.dropped += chk.dropped
    note = "; ".join(chk.reasons)[:300]
    if found and not chk.verified and state.answer_retries < 1 and not state.last_turn:
        state.answer_retries += 1
        hint = ("answer rejected: no citation could be verified (" + note + "). Cite a chunk "
                "you read, copying the quote exactly; or answer with found=false.")
        policy.observe(call, ToolResult("", status="refused", hint=hint))
        await _emit(state, on_event, kind="tool", tool="answer", arguments=args, status="refused",
              elapsed_ms=(time.perf_counter() - t0) * 1000, note=hint)
        return None
    await _emit(state, on_event, kind="tool", tool="answer", arguments=args,
          status="ok" if chk.verified or not found else "unsupported",
          elapsed_ms=(time.perf_counter() - t0) * 1000, note=note)
    if not found:  # what it cites is what was closest: shown apart, never the answer
        return _result(state, policy.brain, "answer", str(args.get("response") or NOT_FOUND),
                       False, [], related=chk.verified)
    if not chk.verified:
        return _result(state, policy.brain, "answer", NOT_FOUND, False, [])
    return _result(state, policy.brain, "answer", str(args.get("response", "")), True,
                   chk.verified)
