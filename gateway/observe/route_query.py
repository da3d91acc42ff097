"""Queries over the route log (:class:`RouteQuery`): filters by final path, confidence range,
time, collection, cache hit and escalation; ``/v1/routes``, the route logs and
``gateway.observe.stats`` use them."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from gateway.routing import RouteRecord

__all__ = ["RouteQuery", "select"]


@dataclass(frozen=True, slots=True)
class RouteQuery:
    """Filters of :meth:`RouteLog.recent` (all optional; records must match every one given).

    :param paths: final paths to keep (``cache``, ``rag``, ``loop``, ``fallback_rag`` …).
    :param min_confidence: keep records whose RAG confidence is >= this (records without one
        are dropped when a bound is given); ``max_confidence`` likewise (<=).
    :param since: Unix time; keep newer records. ``until`` keep older-or-equal ones.
    :param collections: collections to keep (``None`` = all).
    :param cache_hit: keep only hits (True) or misses (False).
    :param escalated: keep only escalated (True) or not escalated (False) requests.
    :param limit: most records returned, newest first (1..10000).
    :param caller: keep only the records of this caller (``RouteRecord.extra["caller"]``, the
        API key's scope; ``None`` = every caller's).
    """

    paths: tuple[str, ...] = ()
    min_confidence: float | None = None
    max_confidence: float | None = None
    since: float | None = None
    until: float | None = None
    collections: frozenset[str] | None = None
    cache_hit: bool | None = None
    escalated: bool | None = None
    limit: int = 100
    caller: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.limit <= 10000:
            raise ValueError("limit must be within 1..10000")
        for name in ("since", "until"):
            value = getattr(self, name)
            if value is not None and math.isnan(value):
                raise ValueError(f"{name} must be a number (Unix seconds), not NaN")
        lo, hi = self.min_confidence, self.max_confidence
        if lo is not None and hi is not None and lo > hi:
            raise ValueError("min_confidence must not exceed max_confidence")

    def matches(self, r: RouteRecord) -> bool:
        """True when ``r`` passes every filter."""
        if self.paths and r.final_path not in self.paths:
            return False
        if self.min_confidence is not None or self.max_confidence is not None:
            if r.confidence is None:
                return False
            if self.min_confidence is not None and r.confidence < self.min_confidence:
                return False
            if self.max_confidence is not None and r.confidence > self.max_confidence:
                return False
        if self.since is not None and r.ts < self.since:
            return False
        if self.until is not None and r.ts > self.until:
            return False
        if (
            self.collections is not None
            and "*" not in self.collections
            and r.collection not in self.collections
        ):
            return False
        if self.cache_hit is not None and r.cache_hit != self.cache_hit:
            return False
        if self.caller is not None and r.extra.get("caller") != self.caller:
            return False
        return self.escalated is None or r.escalated == self.escalated


def select(records: Iterable[RouteRecord], query: RouteQuery) -> list[RouteRecord]:
    out: list[RouteRecord] = []
    for r in records:
        if query.matches(r):
            out.append(r)
            if len(out) >= query.limit:
                break
    return out
