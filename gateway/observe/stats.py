"""The ``/v1/stats`` aggregate over recent route records (what the ops dashboard draws).

:func:`compute_stats` returns one JSON-safe dict::

    {
      "generated_at": 1764470000.0,            # Unix seconds
      "window": {"since": t0, "until": t1, "records": 412, "bucket_s": 60},
      "totals": {
        "requests": 412, "by_path": {"rag": 250, "cache": 120, "loop": 30, "fallback_rag": 12},
        "escalations": 42, "fallbacks": 12, "cache_hits": 120, "cache_lookups": 400,
        "timeouts": 3, "degraded": 2, "not_found": 17,
        "escalation_rate": 0.102,    # escalated / requests
        "fallback_rate": 0.286,      # LoopAgent hand-backs / LoopAgent runs
        "cache_hit_rate": 0.3,       # hits / lookups (None when no lookup)
        "timeout_rate": 0.007, "not_found_rate": 0.041
      },
      "route_mix": {"t": [bucket starts…], "series": {"rag": [counts…], "cache": […], …}},
      "rates": {"t": […], "escalation": […], "fallback": […], "cache_hit": […]},  # None = no data
      "latency_ms": {"rag": {"count": 250, "p50": 42.1, "p95": 120.0, "max": 300.2}, …},
      "stage_latency_ms": {"retrieve": {"count": …, "p50": …, "p95": …, "max": …}, …},
      "timeouts_by_tool": {"search": 2, "loop": 1},
      "loop_steps": {"1": 3, "2": 10, "3": 7},  # LoopAgent turns → requests
      "brains": {"extractive": 250, "loop-offline": 30},
      "flags": {"keyword_only": 5},
      "process": {"sufficiency": {"count", "p50", "p95", "max"} | None (found answers),
                  "rewritten": 9, "answered_in_parts": 3, "sub_questions": 7,
                  "memory_hits": 4, "conflicts": 1, "rewrite_rate": 0.02,
                  "in_parts_rate": 0.007},
      "low_confidence": {"threshold": 0.5, "records": [route records, newest first]}
    }

Percentiles are numpy's default linear interpolation (``numpy.percentile``).
"""

from __future__ import annotations

import math
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from gateway.routing import RouteRecord

__all__ = ["compute_stats", "pick_bucket"]

_BUCKETS_S = (1, 5, 10, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 86400)
_LOOP_PATHS = ("loop", "fallback_rag", "rag_degraded")


def pick_bucket(span_s: float, max_buckets: int = 60) -> int:
    """The smallest bucket width (seconds) from a fixed ladder giving at most ``max_buckets``."""
    for b in _BUCKETS_S:
        if span_s / b <= max_buckets:
            return b
    return _BUCKETS_S[-1]


def _summary(values: Sequence[float]) -> dict[str, float | int]:
    arr = np.asarray(values, dtype=float)
    p50, p95 = np.percentile(arr, [50, 95])
    return {
        "count": int(arr.size),
        "p50": round(float(p50), 3),
        "p95": round(float(p95), 3),
        "max": round(float(arr.max()), 3),
    }


def _rate(num: int, den: int) -> float | None:
    return None if den == 0 else round(num / den, 4)


def _is_lookup(r: RouteRecord) -> bool:
    return r.cache_hit or "cache_get" in r.latency_ms


def compute_stats(
    records: Sequence[RouteRecord],
    *,
    now: float | None = None,
    bucket_s: int | None = None,
    low_confidence: float = 0.5,
    low_limit: int = 20,
) -> dict[str, Any]:
    """Aggregate ``records`` (any order) into the dict documented in the module docstring.

    :param now: end of the window (Unix seconds); default the current time.
    :param bucket_s: width of the time buckets; default :func:`pick_bucket` of the span.
    :param low_confidence: records with a RAG confidence below this are listed.
    :param low_limit: how many low-confidence records to list (newest first).
    :raises ValueError: non-positive ``bucket_s`` or negative ``low_limit``.
    """
    if bucket_s is not None and bucket_s <= 0:
        raise ValueError("bucket_s must be > 0")
    if low_limit < 0:
        raise ValueError("low_limit must be >= 0")
    now = time.time() if now is None else now
    recs = sorted(records, key=lambda r: r.ts)
    t0 = recs[0].ts if recs else now
    t1 = max(now, recs[-1].ts) if recs else now
    width = bucket_s or pick_bucket(max(t1 - t0, 1.0))
    first = math.floor(t0 / width) * width
    n_buckets = int((t1 - first) // width) + 1 if recs else 0
    starts = [first + i * width for i in range(n_buckets)]

    by_path: Counter[str] = Counter()
    mix: dict[str, list[int]] = defaultdict(lambda: [0] * n_buckets)
    esc, hand, loops, hits, lookups = ([0] * n_buckets for _ in range(5))
    latency: dict[str, list[float]] = defaultdict(list)
    stages: dict[str, list[float]] = defaultdict(list)
    timeouts: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    brains: Counter[str] = Counter()
    flags: Counter[str] = Counter()
    degraded = not_found = n_timeouts = 0
    suff: list[float] = []
    process: Counter[str] = Counter()
    for r in recs:
        _process(r, suff, process)
        path = r.final_path or "unknown"
        i = min(int((r.ts - first) // width), n_buckets - 1)
        by_path[path] += 1
        mix[path][i] += 1
        esc[i] += r.escalated
        loop_ran = path in _LOOP_PATHS or bool(r.steps)
        loops[i] += loop_ran
        hand[i] += path == "fallback_rag" or r.fallback_reason is not None
        hits[i] += r.cache_hit
        lookups[i] += _is_lookup(r)
        if r.total_ms is not None:
            latency[path].append(r.total_ms)
        for stage, ms in r.latency_ms.items():
            if stage != "total":
                stages[stage].append(ms)
        names = r.timed_out
        timeouts.update(names)
        n_timeouts += bool(names)
        if r.steps:
            steps[str(r.loop_steps)] += 1
        if r.brain:
            brains[r.brain] += 1
        flags.update(r.flags)
        degraded += r.degraded or "degraded" in r.flags
        not_found += r.found is False

    total = len(recs)
    totals = {
        "requests": total,
        "by_path": dict(by_path.most_common()),
        "escalations": sum(esc),
        "fallbacks": sum(hand),
        "loop_runs": sum(loops),
        "cache_hits": sum(hits),
        "cache_lookups": sum(lookups),
        "timeouts": n_timeouts,
        "degraded": degraded,
        "not_found": not_found,
        "escalation_rate": _rate(sum(esc), total),
        "fallback_rate": _rate(sum(hand), sum(loops)),
        "cache_hit_rate": _rate(sum(hits), sum(lookups)),
        "timeout_rate": _rate(n_timeouts, total),
        "not_found_rate": _rate(not_found, total),
    }
    low = [r for r in reversed(recs) if r.confidence is not None and r.confidence < low_confidence]
    return {
        "generated_at": round(now, 3),
        "window": {
            "since": round(t0, 3),
            "until": round(t1, 3),
            "records": total,
            "bucket_s": width,
        },
        "totals": totals,
        "route_mix": {"t": starts, "series": {p: mix[p] for p in by_path}},
        "rates": {
            "t": starts,
            "escalation": [
                _rate(e, n) for e, n in zip(esc, _bucket_totals(mix, n_buckets), strict=True)
            ],
            "fallback": [_rate(h, n) for h, n in zip(hand, loops, strict=True)],
            "cache_hit": [_rate(h, n) for h, n in zip(hits, lookups, strict=True)],
        },
        "latency_ms": {p: _summary(v) for p, v in sorted(latency.items())},
        "stage_latency_ms": {s: _summary(v) for s, v in sorted(stages.items())},
        "timeouts_by_tool": dict(timeouts.most_common()),
        "loop_steps": {k: steps[k] for k in sorted(steps, key=int)},
        "brains": dict(brains.most_common()),
        "flags": dict(flags.most_common()),
        "process": {
            "sufficiency": _summary(suff) if suff else None,
            "rewritten": process["rewritten"], "answered_in_parts": process["in_parts"],
            "sub_questions": process["sub_questions"], "memory_hits": process["memory_hits"],
            "conflicts": process["conflicts"],
            "rewrite_rate": _rate(process["rewritten"], total),
            "in_parts_rate": _rate(process["in_parts"], total),
        },
        "low_confidence": {
            "threshold": low_confidence,
            "records": [r.to_dict() for r in low[:low_limit]],
        },
    }


def _process(r: RouteRecord, suff: list[float], counts: Counter[str]) -> None:
    """Add one record's ``process`` (issue 16 item 5) to the running aggregates."""
    p = r.extra.get("process")
    if not isinstance(p, dict):
        return
    if p.get("sufficiency") is not None and r.found:
        suff.append(float(p["sufficiency"]))
    counts["rewritten"] += bool(p.get("rewrites"))
    counts["in_parts"] += bool(p.get("sub_questions"))
    counts["sub_questions"] += int(p.get("sub_questions") or 0)
    counts["memory_hits"] += int(p.get("memory_hits") or 0)
    counts["conflicts"] += bool(r.extra.get("conflict"))


def _bucket_totals(mix: dict[str, list[int]], n: int) -> list[int]:
    return [sum(series[i] for series in mix.values()) for i in range(n)]
