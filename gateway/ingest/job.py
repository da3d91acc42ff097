"""One ingest job (``gateway.ingest.jobs``): the :class:`IngestJob` record, job ids, and
:func:`run_in_daemon`, which runs blocking ingest work in a daemon thread so that a shutdown never
waits on it (an abandoned file is rolled back at the next start: its chunks stay staged).
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ParamSpec, TypeVar

__all__ = ["IngestJob", "new_job_id", "run_in_daemon", "totals"]


P = ParamSpec("P")
T = TypeVar("T")


def new_job_id() -> str:
    """A fresh job id (16 hex digits; also the name of the upload's staging folder)."""
    return uuid.uuid4().hex[:16]


@dataclass
class IngestJob:
    """One upload's ingest: ``status`` queued | running | done | failed; ``attempts`` counts
    runs (a restart mid-run makes another), ``stalls`` the runs cut short since a file was last
    finished; ``note`` says what a restart did."""

    job_id: str
    collection: str
    files: list[str]
    status: str = "queued"
    progress: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    error: str = ""
    created_at: float = field(default_factory=time.time)
    finished_at: float | None = None
    attempts: int = 0
    stalls: int = 0
    note: str = ""
    updated_at: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (API and job store)."""
        return asdict(self)

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> IngestJob:
        """The job of a stored record (unknown keys ignored)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in rec.items() if k in names})


def totals(files: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Pages and chunks of the files kept (not failed, removed or skipped) of a job report."""
    kept = [f for f in files.values() if f["status"] not in ("failed", "removed", "skipped")]
    return {"pages": sum(f["pages"] for f in kept), "chunks": sum(f["chunks"] for f in kept)}


async def run_in_daemon(fn: Callable[P, T], *args: P.args, **kw: P.kwargs) -> T:
    """``fn(*args, **kw)`` in a daemon thread (a shutdown never waits on it); its result.

    :raises Exception: whatever ``fn`` raised.
    """
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[T] = loop.create_future()

    def settle(outcome: tuple[T] | BaseException) -> None:
        if fut.done():
            return
        if isinstance(outcome, BaseException):
            fut.set_exception(outcome)
        else:
            fut.set_result(outcome[0])

    def work() -> None:
        outcome: tuple[T] | BaseException
        try:
            outcome = (fn(*args, **kw),)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            outcome = exc
        try:
            loop.call_soon_threadsafe(settle, outcome)
        except RuntimeError:  # the loop is gone (shutdown): nobody waits any more
            pass

    threading.Thread(target=work, daemon=True, name="loopgate-ingest").start()
    return await fut
