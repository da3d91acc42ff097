"""The route record as the route log stores it (DESIGN.md "Observe"), as a typed dataclass.

The router's stages fill a :class:`gateway.routing.trace.RouteTrace` while the request runs and
serialise it once into the route dict; :meth:`RouteRecord.from_dict` turns that dict into this
dataclass for the route log, the metrics and the dashboard. Unknown keys are kept in ``extra``,
so nothing the router adds is lost.

Vocabulary (what the router writes):

- ``final_path``: ``cache``, ``rag``, ``loop``, ``fallback_rag`` (LoopAgent handed back, broad
  RAG answered), ``rag_degraded`` (LoopAgent timed out, RAG answer served), ``degraded``
  (nothing in time), ``legacy`` (migration proxy);
- ``decision``: the route the router chose (``cache``, ``rag``, ``loop``) with ``reason``;
- ``brain``: ``extractive``, ``llm``, ``loop-offline``, ``loop-llm:<model>:<protocol>`` …;
- ``steps``: LoopAgent step events (``loop.results.StepEvent.to_dict``: ``step``, ``turn``,
  ``kind`` tool|llm|stop, ``tool``, ``status`` ok|empty|timeout|error|refused, ``elapsed_ms`` …);
- ``timeouts``: ``{"stage": name, "limit_s": s, …}`` for router stages that timed out;
- ``latency_ms``: milliseconds per stage plus ``total``; ``tokens``: LLM tokens spent.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from gateway.cache import normalize_question

__all__ = ["RouteRecord", "ToolCallRecord", "timed_out_names"]


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One LoopAgent tool call: ``tool`` name, ``status`` (ok/empty/timeout/error/refused),
    ``elapsed_ms`` and the 1-based ``step``."""

    tool: str
    status: str
    elapsed_ms: float
    step: int


def timed_out_names(timeouts: Iterable[Any], steps: Iterable[Any]) -> list[str]:
    """Names of what ran out of time in a route: the router stages of ``timeouts``
    (``{"stage": name, …}``), then the LoopAgent tool calls of ``steps`` whose status is
    ``timeout`` (only a tool call can time out: ``loop.results.StepEvent``). Reads route
    records and the eval harness's records of a LoopAgent run alike."""
    names = [str(t.get("tool") or t.get("stage") or "unknown") if isinstance(t, Mapping)
             else "unknown" for t in timeouts]
    return names + [str(s.get("tool")) for s in steps
                    if isinstance(s, Mapping) and s.get("kind", "tool") == "tool"
                    and s.get("tool") and s.get("status", "ok") == "timeout"]


_ORJSON_OPTS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _json_default(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


@dataclass(slots=True)
class RouteRecord:
    """One request's route record (see the module docstring for the vocabulary).

    :param trace_id: hex id of the request; ``ts`` Unix time (seconds) when it started.
    :param normalized_question: the cache-key form (:func:`gateway.cache.normalize_question`).
    :param confidence: RAG confidence in [0, 1], or None when not scored; ``features`` its inputs.
    :param escalated: True when an ``auto`` request was sent to the LoopAgent.
    :param fallback_reason: the LoopAgent's reason when it handed the question back to RAG.
    :param flags: degradation and notable conditions (``cache_unavailable``, ``keyword_only``,
        ``llm_unavailable``, ``degraded`` …); ``degraded`` True when a timeout cut the answer.
    :param found: False for a "not found" answer, None when unknown.
    :param extra: every other key of the router's dict (retrieval query, candidates …).
    """

    trace_id: str
    ts: float
    collection: str
    question: str
    normalized_question: str = ""
    mode: str = "auto"
    corpus_version: str = ""
    cache_hit: bool = False
    confidence: float | None = None
    features: dict[str, Any] = field(default_factory=dict)
    decision: str = ""
    reason: str = ""
    signals: list[str] = field(default_factory=list)
    escalated: bool = False
    fallback_reason: str | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    timeouts: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    latency_ms: dict[str, float] = field(default_factory=dict)
    final_path: str = ""
    brain: str = ""
    flags: list[str] = field(default_factory=list)
    degraded: bool = False
    found: bool | None = None
    errors: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    # --- derived views --------------------------------------------------------------------
    @property
    def tool_calls(self) -> list[ToolCallRecord]:
        """The LoopAgent's tool calls, in order."""
        return [
            ToolCallRecord(
                str(s.get("tool", "")),
                str(s.get("status", "ok")),
                float(s.get("elapsed_ms") or 0.0),
                int(s.get("step") or 0),
            )
            for s in self.steps
            if s.get("kind", "tool") == "tool" and s.get("tool")
        ]

    @property
    def loop_steps(self) -> int:
        """LoopAgent turns taken (0 when the LoopAgent did not run)."""
        turns = [int(s.get("turn") or 0) for s in self.steps]
        if turns and max(turns) > 0:
            return max(turns)
        return len(self.tool_calls)

    @property
    def timed_out(self) -> list[str]:
        """Names of what timed out: router stages, then LoopAgent tools
        (:func:`timed_out_names`)."""
        return timed_out_names(self.timeouts, self.steps)

    @property
    def total_ms(self) -> float | None:
        """Whole-request latency in milliseconds, when recorded."""
        value = self.latency_ms.get("total")
        return None if value is None else float(value)

    # --- conversion -----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RouteRecord:
        """Build from the router's dict or from :meth:`to_dict` output.

        :raises ValueError: when ``data`` is not a dict or lacks ``question``.
        """
        if not isinstance(data, dict) or "question" not in data:
            raise ValueError("a route record needs at least a 'question'")
        kw: dict[str, Any] = {}
        extra = dict(data.get("extra") or {})
        for k, v in data.items():
            if k in _FIELDS:
                kw[k] = v
            elif k not in _DERIVED:
                extra[k] = v
        decision = data.get("decision")
        if isinstance(decision, dict):
            kw["decision"] = str(decision.get("route", ""))
            kw["reason"] = str(decision.get("reason", kw.get("reason", "")))
            kw["signals"] = list(decision.get("signals") or ())
        fallback = data.get("fallback")
        if isinstance(fallback, dict):
            kw["fallback_reason"] = str(fallback.get("reason", ""))
        kw.setdefault("trace_id", "")
        kw.setdefault("ts", time.time())
        kw.setdefault("collection", "")
        if not kw.get("normalized_question"):
            kw["normalized_question"] = normalize_question(str(data["question"]))
        if kw.get("confidence") is not None:
            kw["confidence"] = float(kw["confidence"])
        kw["tokens"] = int(kw.get("tokens") or 0)
        kw["latency_ms"] = {str(k): float(v) for k, v in (kw.get("latency_ms") or {}).items()}
        kw["extra"] = extra
        return cls(**kw)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict, with the derived ``loop_steps``, ``tool_calls`` and ``timed_out``."""
        data: dict[str, Any] = orjson.loads(self.to_json())
        data["loop_steps"] = self.loop_steps
        data["tool_calls"] = [
            {"tool": c.tool, "status": c.status, "elapsed_ms": c.elapsed_ms, "step": c.step}
            for c in self.tool_calls
        ]
        data["timed_out"] = self.timed_out
        return data

    def to_json(self) -> str:
        """Compact JSON of the stored fields (what the Redis stream holds); orjson serialises
        the dataclass directly (numpy scalars and tuples included)."""
        return orjson.dumps(self, option=_ORJSON_OPTS, default=_json_default).decode()

    @classmethod
    def from_json(cls, raw: str | bytes) -> RouteRecord:
        """Inverse of :meth:`to_json`."""
        return cls.from_dict(orjson.loads(raw))


_FIELDS = frozenset(RouteRecord.__dataclass_fields__) - {"extra"}
_DERIVED = frozenset({"tool_calls", "loop_steps", "timed_out", "fallback", "extra"})
