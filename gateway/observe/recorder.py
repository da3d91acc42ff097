"""The router's route sink: :class:`RouteRecorder` turns each finished route record (the
router's dict, or a :class:`gateway.routing.RouteRecord`) into a typed record, updates the
Prometheus metrics and appends it to the route log (:mod:`gateway.observe.routelog`).

The router hands it each record with :meth:`RouteRecorder.record_later`: the request only queues
the record, and the event loop's next turn — after the reply was written to the socket —
converts, observes and appends the queued records together, so none of that is on the reply's
critical path (it was about a third of a near-cache hit's CPU in the app). Every read of the log
(:meth:`gateway.observe.RouteLog.recent`, :meth:`~gateway.observe.RouteLog.get`) and of the
metrics (:meth:`gateway.observe.GatewayMetrics.settle`) first records what is queued, so a
reader never misses a request that has been answered.
"""

from __future__ import annotations

import asyncio
import logging
from contextvars import ContextVar
from typing import Any

from gateway.observe.metrics import GatewayMetrics
from gateway.observe.routelog import RouteLog
from gateway.routing import RouteRecord

__all__ = ["CALLER", "RouteRecorder"]

log = logging.getLogger("loopgate.gateway")

#: The API key scope of the request being served (set by ``gateway.api.deps.principal_of``
#: when API keys are configured; "" otherwise): :class:`RouteRecorder` stores it in the
#: record's ``extra["caller"]`` so ``/v1/routes`` shows a key only its own questions.
CALLER: ContextVar[str] = ContextVar("loopgate_caller", default="")


class RouteRecorder:
    """The router's ``RouteSink``: metrics first (never fails), then the route log.

    Usage example::

        recorder = RouteRecorder(MemoryRouteLog(100), GatewayMetrics())
        recorder.record_later(route)       # in a request: queued, recorded after the reply
        await recorder.record(route)       # now (queued records first, in order)

    :param route_log: where records go.
    :param metrics: Prometheus metrics updated from each record, or None.
    """

    def __init__(self, route_log: RouteLog, metrics: GatewayMetrics | None = None) -> None:
        self.route_log = route_log
        self.metrics = metrics
        self._pending: list[tuple[dict[str, Any] | RouteRecord, str]] = []
        route_log.on_read(self.drain)
        if metrics is not None:
            metrics.on_render(self.drain)

    @property
    def queued(self) -> int:
        """Records handed to :meth:`record_later` and not recorded yet."""
        return len(self._pending)

    def record_later(self, record: dict[str, Any] | RouteRecord) -> None:
        """Queue ``record`` (with the request's :data:`CALLER`); the event loop records the
        queue on its next turn (:meth:`drain`), after the current request's reply was written.
        Never raises, never waits. Without a running loop the record is recorded at once."""
        self._pending.append((record, CALLER.get()))
        if len(self._pending) > 1:
            return  # a drain is scheduled already
        try:
            asyncio.get_running_loop().call_soon(self.drain)
        except RuntimeError:  # no event loop (a synchronous caller)
            self.drain()

    def drain(self) -> int:
        """Record every queued record (metrics, then the log), in order; returns how many.
        Never raises (a record that fails is logged and skipped)."""
        batch, self._pending = self._pending, []
        for record, caller in batch:
            try:
                self._record_now(record, caller)
            except Exception:  # noqa: BLE001 - recording must never fail the loop or a reader
                log.exception("route record could not be recorded")
        return len(batch)

    async def record(self, record: dict[str, Any] | RouteRecord) -> RouteRecord:
        """Convert, observe and append one record now (queued records first); returns the
        typed record. Never raises for a slow or unreachable log (the record is then kept in
        the local ring buffer)."""
        self.drain()
        return self._record_now(record, CALLER.get())

    def _record_now(self, record: dict[str, Any] | RouteRecord, caller: str) -> RouteRecord:
        rec = record if isinstance(record, RouteRecord) else RouteRecord.from_dict(record)
        if caller and "caller" not in rec.extra:
            rec.extra["caller"] = caller
        if self.metrics is not None:
            try:
                self.metrics.observe(rec)
            except Exception:  # noqa: BLE001 - metrics must never fail a request
                log.exception("metrics update failed for trace %s", rec.trace_id)
        self.route_log.append_nowait(rec)
        return rec
