"""The LLM client against fake LLM servers on loopback (``scripted_server.FAULTS``): every reply
that is not a valid chat completion — wrong shape, truncated, huge, HTTP 500, a hang, a body
dripped byte by byte — is an ``LLMError`` subclass (never another exception), within the
deadline given by ``loop.llm_breaker.llm_deadline``; the circuit breaker opens after the
configured consecutive faults, refuses calls without a request while open and lets one
half-open probe through after the cool-down."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from scripted_server import FAULTS, ScriptedChatServer

from loop.config import LLMConfig
from loop.errors import LLMError, LLMProtocolError, LLMTimeoutError, LLMUnavailableError
from loop.llm_breaker import CircuitBreaker, llm_deadline, time_left
from loop.llm_client import AsyncLLMClient
from loop.llm_reply import parse_completion

MSG = [{"role": "user", "content": "hi"}]


def _client(srv: ScriptedChatServer, breaker: CircuitBreaker | None = None,
            **kw: Any) -> AsyncLLMClient:
    cfg = LLMConfig(base_url=srv.base_url, protocol="json", backoff_s=0.0,
                    **{"max_retries": 0, "timeout_s": 60.0, **kw})
    return AsyncLLMClient(cfg, breaker=breaker or CircuitBreaker(100, 60))


@pytest.mark.parametrize("fault", [f for f in FAULTS if f != "hang"])
def test_every_fault_is_an_llm_error_and_counted(fault: str) -> None:
    async def go() -> tuple[BaseException, CircuitBreaker]:
        with ScriptedChatServer([FAULTS[fault]]) as srv:
            c = _client(srv)
            with pytest.raises(LLMError) as ei:
                await c.chat(MSG)
            await c.aclose()
            return ei.value, c.breaker
    err, breaker = asyncio.run(go())
    assert breaker.snapshot()["consecutive_failures"] == 1, (fault, err)
    if fault in ("wrong_shape", "no_choices", "message_not_object", "truncated_json",
                 "not_json", "huge"):
        assert isinstance(err, LLMProtocolError), (fault, repr(err))


def test_hung_llm_ends_at_the_deadline_not_at_the_llm_timeout() -> None:
    async def go() -> float:
        with ScriptedChatServer([FAULTS["hang"]]) as srv:
            c = _client(srv, max_retries=2)  # retries must not outlive the deadline either
            t0 = time.monotonic()
            with llm_deadline(t0 + 1.0), pytest.raises(LLMTimeoutError):
                await c.chat(MSG)
            took = time.monotonic() - t0
            await c.aclose()
            return took
    took = asyncio.run(go())
    assert 0.9 <= took < 1.5, took


def test_a_dripping_body_is_cut_by_the_whole_exchange_timeout() -> None:
    async def go() -> float:
        with ScriptedChatServer([{"content": "ok", "drip": 0.05}]) as srv:
            c = _client(srv, timeout_s=1.0)  # each byte comes well within a read timeout
            t0 = time.monotonic()
            with pytest.raises(LLMTimeoutError):
                await c.chat(MSG)
            await c.aclose()
            return time.monotonic() - t0
    assert asyncio.run(go()) < 1.6


def test_deadlines_nest_and_only_shorten() -> None:
    assert time_left() is None
    now = time.monotonic()
    with llm_deadline(now + 10):
        with llm_deadline(now + 20):
            assert time_left(now) == pytest.approx(10)
        with llm_deadline(now + 2):
            assert time_left(now) == pytest.approx(2)
        with llm_deadline(None):
            assert time_left(now) == pytest.approx(10)
    assert time_left() is None


def test_no_time_left_is_not_an_llm_fault() -> None:
    async def go() -> CircuitBreaker:
        with ScriptedChatServer([{"content": "ok"}]) as srv:
            c = _client(srv)
            with llm_deadline(time.monotonic() - 1), pytest.raises(LLMTimeoutError):
                await c.chat(MSG)
            assert srv.requests == []
            await c.aclose()
            return c.breaker
    assert asyncio.run(go()).snapshot()["consecutive_failures"] == 0


def test_breaker_opens_refuses_without_a_request_and_half_open_probe_closes_it() -> None:
    async def go() -> None:
        with ScriptedChatServer([FAULTS["http_500"]]) as srv:
            c = _client(srv, breaker=CircuitBreaker(3, 0.3))
            for _ in range(3):
                with pytest.raises(LLMError):
                    await c.chat(MSG)
            assert c.breaker.state == "open" and len(srv.requests) == 3
            t0 = time.monotonic()
            with pytest.raises(LLMUnavailableError):
                await c.chat(MSG)
            with pytest.raises(LLMUnavailableError):
                await c.resolve_protocol()  # the agent's first call: offline policy at once
            assert time.monotonic() - t0 < 0.05 and len(srv.requests) == 3
            await asyncio.sleep(0.35)
            assert c.breaker.state == "half_open"
            with pytest.raises(LLMError):  # the probe fails: open again
                await c.chat(MSG)
            assert c.breaker.state == "open" and len(srv.requests) == 4
            srv.set_script([{"content": "fine"}])
            await asyncio.sleep(0.35)
            assert (await c.chat(MSG)).content == "fine"
            assert c.breaker.snapshot()["state"] == "closed"
            assert c.breaker.snapshot()["consecutive_failures"] == 0
            await c.aclose()
    asyncio.run(go())


def test_half_open_lets_one_probe_through_and_a_cancelled_probe_gives_the_slot_back() -> None:
    now = [0.0]
    b = CircuitBreaker(2, 10, clock=lambda: now[0])
    b.failure("x")
    assert b.state == "closed" and b.allow()
    b.failure("y")
    assert b.state == "open" and not b.allow() and b.retry_in() == 10
    now[0] = 10.0
    assert b.state == "half_open" and b.allow() and not b.allow()
    b.release()  # the probe was cancelled: no verdict
    assert b.allow()
    b.success()
    assert b.state == "closed" and b.snapshot()["opened_count"] == 1
    with pytest.raises(ValueError):
        CircuitBreaker(0, 1)


def test_cancelled_call_leaves_no_verdict() -> None:
    async def go() -> CircuitBreaker:
        with ScriptedChatServer([FAULTS["hang"]]) as srv:
            c = _client(srv)
            task = asyncio.create_task(c.chat(MSG))
            await asyncio.sleep(0.2)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await c.aclose()
            return c.breaker
    assert asyncio.run(go()).snapshot()["consecutive_failures"] == 0


def test_reply_models_accept_real_server_variants() -> None:
    r = parse_completion(b'{"choices": [{"message": {"content": [{"type": "text", "text": "a"},'
                         b' {"type": "text", "text": "b"}], "tool_calls": null},'
                         b' "finish_reason": null}], "usage": {"prompt_tokens": null}}')
    assert r.choices[0].message.text() == "ab" and r.usage and r.usage.prompt_tokens == 0
    calls = parse_completion(
        '{"choices": [{"message": {"tool_calls": [{"function": {"name": "read",'
        ' "arguments": {"chunk_id": "c"}}}, {"function": {"name": "s", "arguments": "[1]"}}]}}]}'
    ).choices[0].message.calls()
    assert calls[0].arguments == {"chunk_id": "c"} and calls[0].call_id == "call_0"
    assert calls[1].arguments == {"__raw__": "[1]"}
    for bad in ('{"choices": "notalist"}', '{"choices": [{"message": {"tool_calls": "x"}}]}',
                '{"choices": [{}], "usage": {"prompt_tokens": -1}}', "[]"):
        with pytest.raises(LLMProtocolError):
            parse_completion(bad)


def test_a_refused_request_is_not_an_outage() -> None:
    async def go() -> CircuitBreaker:
        with ScriptedChatServer([{"status": 400, "body": "context length exceeded"}]) as srv:
            c = _client(srv, breaker=CircuitBreaker(1, 60))
            for _ in range(2):
                with pytest.raises(LLMError):
                    await c.chat(MSG)
            assert len(srv.requests) == 2
            await c.aclose()
            return c.breaker
    assert asyncio.run(go()).state == "closed"


def test_calls_waiting_on_an_llm_just_marked_down_end_at_once() -> None:
    """A call in flight when the breaker opens (other calls' faults) ends at once with
    LLMUnavailableError, uncounted, instead of waiting out its own deadline (the soak: requests
    in flight when the LLM hung waited their whole 29 s)."""
    async def go() -> tuple[float, CircuitBreaker]:
        with ScriptedChatServer([FAULTS["hang"]]) as srv:
            c = _client(srv, breaker=CircuitBreaker(1, 60))

            async def long_call() -> None:
                with llm_deadline(time.monotonic() + 30):
                    await c.chat(MSG)

            t0 = time.monotonic()
            waiting = asyncio.create_task(long_call())
            await asyncio.sleep(0.2)
            with llm_deadline(time.monotonic() + 2.5), pytest.raises(LLMTimeoutError):
                await c.chat(MSG)  # the fault that opens the breaker
            with pytest.raises(LLMUnavailableError, match="while this call waited"):
                await waiting
            took = time.monotonic() - t0
            await c.aclose()
            return took, c.breaker
    took, breaker = asyncio.run(go())
    assert took < 4.0, took  # the short call's 2.5 s, not the long one's 30 s
    assert breaker.state == "open" and breaker.snapshot()["consecutive_failures"] == 1
