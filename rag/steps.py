"""One implementation, two drivers: I/O steps under timeouts, driven sync or async.

A stage writes its logic once as a generator (:data:`Flow`) that yields groups of
:class:`Step` s (external calls: embedding, index queries) and receives their
:class:`Outcome` s; it never performs the I/O itself (the httpx ``Auth.auth_flow`` pattern,
STYLE.md §4). :func:`drive_sync` runs each step in a worker thread and waits at most its
timeout; :func:`drive_async` does the same with ``asyncio.wait_for`` and runs the steps of one
group concurrently; :func:`drive_inline` runs them in the calling thread, without timeouts.
None raises for a step: a timeout or an exception becomes an outcome (``status`` ``timeout`` /
``error``) that the flow turns into a flag.

A timed-out call keeps running in its worker thread until it returns; its result is dropped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

__all__ = ["Flow", "Outcome", "Step", "drive_async", "drive_inline", "drive_sync"]

T = TypeVar("T")

# Worker threads for external calls; small because every call is short and CPU-bound.
_EXECUTOR = ThreadPoolExecutor(max_workers=4, thread_name_prefix="loopgate-rag-io")


@dataclass(frozen=True, slots=True)
class Step:
    """An external call: ``name`` (timing key and flag prefix), the callable, its timeout (s)."""

    name: str
    fn: Callable[[], Any]
    timeout_s: float


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a step produced: ``status`` ``ok`` (``value`` set), ``timeout`` or ``error``
    (``error`` holds ``"ExcType: message"``), and its wall time in milliseconds."""

    name: str
    status: Literal["ok", "timeout", "error"]
    value: Any = None
    error: str = ""
    ms: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the step returned in time."""
        return self.status == "ok"

    @property
    def flag(self) -> str:
        """``""`` when ok, else ``"<name>_timeout"`` / ``"<name>_error"``."""
        return "" if self.ok else f"{self.name}_{self.status}"


Flow = Generator[Sequence[Step], list[Outcome], T]


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:300]


def _collect(step: Step, fut: Future[Any], t0: float) -> Outcome:
    try:
        left = max(0.0, t0 + step.timeout_s - time.perf_counter()) if step.timeout_s > 0 else None
        value = fut.result(timeout=left)
    except FutureTimeout:
        return Outcome(step.name, "timeout", ms=_ms(t0))
    except Exception as exc:
        return Outcome(step.name, "error", error=_describe(exc), ms=_ms(t0))
    return Outcome(step.name, "ok", value, ms=_ms(t0))


def _run_group_sync(group: Sequence[Step]) -> list[Outcome]:
    """Submit every step of the group to the worker threads, then wait for each in turn."""
    t0 = time.perf_counter()
    futures = [_EXECUTOR.submit(s.fn) for s in group]
    return [_collect(s, f, t0) for s, f in zip(group, futures, strict=True)]


async def _run_one_async(step: Step) -> Outcome:
    t0 = time.perf_counter()
    fut = asyncio.wrap_future(_EXECUTOR.submit(step.fn))
    try:
        if step.timeout_s > 0:
            value = await asyncio.wait_for(fut, timeout=step.timeout_s)
        else:
            value = await fut
    except TimeoutError:
        return Outcome(step.name, "timeout", ms=_ms(t0))
    except Exception as exc:
        return Outcome(step.name, "error", error=_describe(exc), ms=_ms(t0))
    return Outcome(step.name, "ok", value, ms=_ms(t0))


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


def _drive(flow: Flow[T], run_group: Callable[[Sequence[Step]], list[Outcome]]) -> T:
    """Run ``flow`` to completion in the calling thread, each group by ``run_group``."""
    try:
        group = next(flow)
        while True:
            group = flow.send(run_group(group))
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


def _run_group_inline(group: Sequence[Step]) -> list[Outcome]:
    outcomes = []
    for step in group:
        t0 = time.perf_counter()
        try:
            value = step.fn()
        except Exception as exc:
            outcomes.append(Outcome(step.name, "error", error=_describe(exc), ms=_ms(t0)))
        else:
            outcomes.append(Outcome(step.name, "ok", value, ms=_ms(t0)))
    return outcomes


def drive_sync(flow: Flow[T]) -> T:
    """Run ``flow`` to completion, blocking the caller (a group's steps run concurrently)."""
    return _drive(flow, _run_group_sync)


def drive_inline(flow: Flow[T]) -> T:
    """Run ``flow`` in the calling thread, one step after the other and without timeouts (for a
    caller already in a worker thread whose steps must not wait for the shared pool); a step
    that raises becomes an ``error`` outcome, as with the other drivers."""
    return _drive(flow, _run_group_inline)


async def drive_async(flow: Flow[T]) -> T:
    """Run ``flow`` on the event loop; the steps of one group run concurrently in threads."""
    try:
        group = next(flow)
        while True:
            outcomes = list(await asyncio.gather(*(_run_one_async(s) for s in group)))
            group = flow.send(outcomes)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
