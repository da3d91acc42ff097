"""Route-record dicts shaped like ``gateway.routing.RouteTrace.to_dict`` after a request (test
data)."""

from __future__ import annotations

import uuid


def router_dict(
    path: str,
    confidence: float | None,
    ts: float,
    *,
    collection: str = "c",
    question: str = "退货期限是几天？",
    steps: int = 0,
    timeout_tool: str = "",
) -> dict:
    """A record shaped like ``gateway.routing.RouteTrace.to_dict`` after a request."""
    step_events = [
        {
            "step": i + 1,
            "turn": i + 1,
            "kind": "tool",
            "tool": "search" if i == 0 else "read",
            "status": "ok",
            "elapsed_ms": 2.0,
        }
        for i in range(steps)
    ]
    if timeout_tool:
        step_events.append(
            {
                "step": steps + 1,
                "turn": steps + 1,
                "kind": "tool",
                "tool": timeout_tool,
                "status": "timeout",
                "elapsed_ms": 5000.0,
            }
        )
    return {
        "trace_id": uuid.uuid4().hex,
        "ts": ts,
        "question": question,
        "collection": collection,
        "mode": "auto",
        "cache_hit": path == "cache",
        "confidence": confidence,
        "features": {"top_score": 0.4},
        "escalated": path in ("loop", "fallback_rag"),
        "decision": {
            "route": "cache" if path == "cache" else ("rag" if path == "rag" else "loop"),
            "reason": "r",
            "signals": [],
        },
        "fallback": {"reason": "broad"} if path == "fallback_rag" else None,
        "steps": step_events,
        "timeouts": [],
        "tokens": 0,
        "final_path": path,
        "brain": "extractive",
        "flags": [],
        "errors": [],
        "dropped_citations": 0,
        "latency_ms": {"cache_get": 0.3, "total": 1.0 if path == "cache" else 40.0},
        "corpus_version": "v1",
        "candidates": ["abc-00001"],
    }
