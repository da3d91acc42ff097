"""Where finished route records go: the route log (``gateway.routelog``) and the Prometheus
metrics (``gateway.metrics``), both owned by their modules; this only forwards."""

from __future__ import annotations

import inspect
import logging
from typing import Any

__all__ = ["RouteRecordSink"]

log = logging.getLogger("loopgate.gateway")


async def _call(fn: Any, record: dict[str, Any]) -> None:
    out = fn(record)
    if inspect.isawaitable(out):
        await out


class RouteRecordSink:
    """Forward each route record to the route log and the metrics (either may be ``None``).

    :param routelog: object with ``append(record)`` (sync or async).
    :param metrics: object with ``observe(record)`` (sync or async).
    """

    def __init__(self, routelog: Any, metrics: Any) -> None:
        self.routelog = routelog
        self.metrics = metrics

    async def record(self, record: dict[str, Any]) -> None:
        """Forward ``record``; a failing log or metric is logged, never raised."""
        for target, names in ((self.metrics, ("observe", "observe_route", "record")),
                              (self.routelog, ("append", "add", "record"))):
            if target is None:
                continue
            fn = next((getattr(target, n) for n in names if callable(getattr(target, n, None))),
                      None)
            if fn is None:
                continue
            try:
                await _call(fn, record)
            except Exception as exc:  # noqa: BLE001 - observability never fails a request
                log.warning("route record not stored by %s: %s", type(target).__name__, exc)
