"""The pure decision logic: normalised duplicate detection, budgets, refusals."""

from __future__ import annotations

import time

import pytest

from loop import (
    LoopConfig,
    LoopState,
    ToolCall,
    ToolContext,
    ToolResult,
    budget_stop,
    canonical_call,
)
from loop.controller import Execute, Finish, Refuse, next_step
from loop.evidence import TermMatcher


def _state(**cfg) -> LoopState:
    ctx = ToolContext(store=None, search=None,  # type: ignore[arg-type]
                      collection="c", config=LoopConfig(**cfg))
    return LoopState("q", ctx, TermMatcher(["q"]))


def test_canonical_call_folds_whitespace_sorts_keys_and_fills_defaults():
    a = canonical_call(ToolCall("search", {"query": "电池保修期"}))
    assert a == canonical_call(ToolCall("search", {"query": " 电池保修期 "}))
    assert a == canonical_call(ToolCall("search", {"top_k": 5, "query": "电池保修期"}))
    assert a != canonical_call(ToolCall("search", {"query": "电池保修期", "top_k": 3}))
    assert canonical_call(ToolCall("search", {"query": "a  b"})) == canonical_call(
        ToolCall("search", {"query": "a b"}))


def test_duplicates_refused_then_hard_stop():
    st = _state(max_duplicates=2)
    call = ToolCall("search", {"query": "x"})
    now = time.monotonic()
    assert isinstance(next_step(st, call, now), Execute)
    st.results[canonical_call(call)] = ToolResult("1. id=a")
    for _ in range(2):
        d = next_step(st, call, now)
        assert isinstance(d, Refuse) and "already ran" in d.result.hint
        assert d.result.content == "1. id=a"  # the cached result comes back
        st.duplicates += 1
    assert next_step(st, call, now) == Finish("repeated_calls")


@pytest.mark.parametrize("call,hint", [
    (ToolCall("delete_everything", {}), "unknown tool"),
    (ToolCall("read", {}), "needs 'chunk_id'"),
    (ToolCall("search", {"query": 3}), "must be a string"),
    (ToolCall("search", {"__raw__": "{bad"}), "not a JSON object"),
])
def test_invalid_calls_refused_with_hint(call, hint):
    d = next_step(_state(), call, time.monotonic())
    assert isinstance(d, Refuse) and hint in d.result.hint


def test_budgets():
    st = _state(max_loops=3, token_budget=100, deadline_s=10)
    # a start time whose sum with 10 s is exact: (t + 10) - t fell below 10 for some monotonic
    # clock readings (8183.841226423 in a CI run) and the deadline was not yet reached
    st.started = now = 1000.0
    assert budget_stop(st, now) is None
    st.turn = 3
    assert budget_stop(st, now) == "max_loops"
    st.turn, st.prompt_tokens = 0, 100
    assert budget_stop(st, now) == "token_budget"
    st.prompt_tokens = 0
    assert budget_stop(st, now + 10) == "deadline"
    assert next_step(st, ToolCall("search", {"query": "x"}), now + 11) == Finish("deadline")


def test_loop_config_limits():
    with pytest.raises(ValueError):
        LoopConfig(max_loops=11)
    with pytest.raises(ValueError):
        LoopConfig(search_top_k=6)
    assert LoopConfig().max_loops == 6 and LoopConfig().tool_timeout_s == 5.0
