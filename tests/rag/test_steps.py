"""The sync and async drivers: timeouts and errors become flagged outcomes, never exceptions."""

from __future__ import annotations

import inspect
import threading
import time

from rag.pipeline import RagPipeline
from rag.retriever import HybridRetriever
from rag.steps import Flow, Outcome, Step, drive_async, drive_inline, drive_sync


def _flow() -> Flow[list[Outcome]]:
    def slow() -> str:
        time.sleep(0.5)
        return "late"

    def boom() -> str:
        raise ValueError("index down")

    first = yield [Step("fast", lambda: 42, 1.0), Step("slow", slow, 0.05)]
    second = yield [Step("broken", boom, 1.0)]
    return [*first, *second]


def _check(outcomes: list[Outcome]) -> None:
    fast, slow, broken = outcomes
    assert fast.ok and fast.value == 42 and fast.flag == ""
    assert slow.status == "timeout" and slow.flag == "slow_timeout" and slow.ms < 400
    assert (
        broken.status == "error" and "index down" in broken.error and broken.flag == "broken_error"
    )


def test_sync_driver() -> None:
    _check(drive_sync(_flow()))


async def test_async_driver() -> None:
    _check(await drive_async(_flow()))


def test_run_and_run_async_have_identical_signatures() -> None:
    for cls in (HybridRetriever, RagPipeline):
        sync, asyn = inspect.signature(cls.run), inspect.signature(cls.run_async)
        assert list(sync.parameters) == list(asyn.parameters)
        assert inspect.iscoroutinefunction(cls.run_async)


def test_inline_driver_runs_steps_in_the_calling_thread_without_timeouts() -> None:
    """``drive_inline`` (the gateway's RAG engine, already in a worker thread): every step runs
    here, a slow one to its end (no timeout), an exception becomes an ``error`` outcome."""
    here = threading.get_ident()

    def flow() -> Flow[list[Outcome]]:
        first = yield [Step("where", threading.get_ident, 1.0),
                       Step("slow", lambda: time.sleep(0.1) or "done", 0.01)]
        second = yield [Step("broken", lambda: 1 / 0, 0.0)]
        return [*first, *second]

    where, slow, broken = drive_inline(flow())
    assert where.ok and where.value == here
    assert slow.ok and slow.value == "done"  # past its 0.01 s timeout: none applies
    assert broken.status == "error" and "ZeroDivisionError" in broken.error
    assert broken.flag == "broken_error"
