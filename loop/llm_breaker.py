"""Circuit breaker and nested deadlines for the LLM client.

- :class:`CircuitBreaker` marks the LLM down after ``failure_threshold`` consecutive faults
  (timeouts, HTTP 5xx/429, unreachable, replies that do not validate). While it is *open* every
  call is refused at once (:class:`loop.errors.LLMUnavailableError`); after ``reset_timeout_s``
  it is *half-open*: one call goes through as a probe (others are still refused) — success
  closes it, a fault opens it again for another ``reset_timeout_s``. Callbacks registered
  with :meth:`CircuitBreaker.on_open` run when it opens: the client ends the calls still
  waiting on an LLM just marked down, so they answer without it at once instead of each
  waiting out its own deadline. Single event loop, no locks (asyncio code runs one callback
  at a time). A small class rather than ``pybreaker``
  (sync; async only through Tornado) or ``aiobreaker`` (unreleased since 2021): the gateway
  needs the state for ``/readyz`` and a refusal without awaiting anything.
- :func:`llm_deadline` sets, for the current task and the tasks it starts (a ``ContextVar``),
  an absolute ``time.monotonic()`` deadline no LLM call may outlive; scopes nest and an inner
  scope can only shorten it. :func:`time_left` reads it.

Usage example::

    breaker = CircuitBreaker(failure_threshold=3, reset_timeout_s=15)
    with llm_deadline(time.monotonic() + 30):
        reply = await client.chat(messages)   # timeout = min(config.timeout_s, time_left())
    breaker.snapshot()["state"]              # "closed" | "open" | "half_open"
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

__all__ = ["CircuitBreaker", "llm_deadline", "time_left"]

State = Literal["closed", "open", "half_open"]
_DEADLINE: ContextVar[float | None] = ContextVar("loopgate_llm_deadline", default=None)


@contextmanager
def llm_deadline(deadline: float | None) -> Iterator[float | None]:
    """Within the block, LLM calls end by ``deadline`` (``time.monotonic()`` seconds).

    Nests: the effective deadline is the earliest of this one and any enclosing one; ``None``
    keeps the enclosing one. Yields the effective deadline.
    """
    outer = _DEADLINE.get()
    eff = outer if deadline is None else (deadline if outer is None else min(outer, deadline))
    token = _DEADLINE.set(eff)
    try:
        yield eff
    finally:
        _DEADLINE.reset(token)


def time_left(now: float | None = None) -> float | None:
    """Seconds before the innermost :func:`llm_deadline` (may be ≤ 0), ``None`` when unset."""
    deadline = _DEADLINE.get()
    if deadline is None:
        return None
    return deadline - (time.monotonic() if now is None else now)


class CircuitBreaker:
    """Consecutive-fault circuit breaker (see the module docstring).

    :param failure_threshold: consecutive faults that open the circuit (≥ 1).
    :param reset_timeout_s: seconds the circuit stays open before a half-open probe (> 0).
    :param clock: monotonic clock in seconds (tests inject a fake one).
    """

    def __init__(self, failure_threshold: int = 3, reset_timeout_s: float = 15.0, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if failure_threshold < 1 or reset_timeout_s <= 0:
            raise ValueError("failure_threshold must be >= 1 and reset_timeout_s > 0")
        self.failure_threshold = failure_threshold
        self.reset_timeout_s = reset_timeout_s
        self._clock = clock
        self._state: State = "closed"
        self._failures = 0
        self._opened_at = 0.0
        self._probing = False
        self.last_error = ""
        self.opened_count = 0
        self._listeners: set[Callable[[], None]] = set()

    def on_open(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (once) the next time the circuit opens; returns a function that
        unregisters it (call it when the call ends)."""
        self._listeners.add(callback)
        return lambda: self._listeners.discard(callback)

    @property
    def state(self) -> State:
        """``closed``, ``open`` or ``half_open`` (open turns half-open once the cool-down ends)."""
        if self._state == "open" and self._clock() - self._opened_at >= self.reset_timeout_s:
            self._state = "half_open"
            self._probing = False
        return self._state

    def allow(self) -> bool:
        """Whether a call may start now; in ``half_open`` only the first caller (the probe)
        gets ``True`` until it reports :meth:`success` or :meth:`failure`."""
        state = self.state
        if state == "closed":
            return True
        if state == "half_open" and not self._probing:
            self._probing = True
            return True
        return False

    def release(self) -> None:
        """A call allowed by :meth:`allow` ended without a verdict (cancelled, or it ran out
        of the caller's time): a half-open probe slot is given back."""
        self._probing = False

    def success(self) -> None:
        """A call succeeded: close the circuit and reset the fault count."""
        self._state, self._failures, self._probing = "closed", 0, False

    def failure(self, error: str = "") -> None:
        """A call failed: count it; open the circuit at the threshold (at once when the
        failed call was the half-open probe)."""
        self.last_error = error[:300]
        self._failures += 1
        if self.state == "half_open" or self._failures >= self.failure_threshold:
            opening = self._state != "open"
            if opening:
                self.opened_count += 1
            self._state, self._opened_at, self._probing = "open", self._clock(), False
            if opening:
                waiting, self._listeners = self._listeners, set()
                for callback in waiting:
                    callback()

    def retry_in(self) -> float:
        """Seconds until the next half-open probe (0 unless open)."""
        if self.state != "open":
            return 0.0
        return max(0.0, self.reset_timeout_s - (self._clock() - self._opened_at))

    def snapshot(self) -> dict[str, Any]:
        """``{"state", "consecutive_failures", "failure_threshold", "retry_in_s",
        "last_error", "opened_count"}`` for ``/readyz`` and logs."""
        return {"state": self.state, "consecutive_failures": self._failures,
                "failure_threshold": self.failure_threshold,
                "retry_in_s": round(self.retry_in(), 3), "last_error": self.last_error,
                "opened_count": self.opened_count}
