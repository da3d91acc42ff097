"""Prometheus metrics of the gateway, all updated from route records (``GatewayMetrics.observe``).

Each app instance owns a dedicated ``CollectorRegistry`` (tests build several apps in one
process; the default global registry would refuse duplicate metric names). ``/metrics`` renders
``metrics.registry``; ``deploy/grafana/loopgate-dashboard.json`` charts these names:

=====================================  =========  =============================================
metric                                 type       labels
=====================================  =========  =============================================
``loopgate_requests_total``            counter    ``path`` (final path), ``mode``
``loopgate_escalations_total``         counter    ``reason``: first signal / ``fitted_rule`` /
                                                  ``low_confidence`` (threshold rule)
``loopgate_fallbacks_total``           counter    —
``loopgate_cache_lookups_total``       counter    ``result``: hit|miss|unavailable|timeout|skipped
``loopgate_tool_calls_total``          counter    ``tool``, ``status``
``loopgate_tool_timeouts_total``       counter    ``tool`` (LoopAgent tool or router stage)
``loopgate_degraded_total``            counter    ``flag``
``loopgate_not_found_total``           counter    ``path``
``loopgate_tokens_total``              counter    ``brain``
``loopgate_request_latency_seconds``   histogram  ``path``
``loopgate_stage_latency_seconds``     histogram  ``stage``
``loopgate_loop_steps``                histogram  — (requests where the LoopAgent ran)
``loopgate_rag_confidence``            histogram  — (requests with a RAG confidence)
``loopgate_sufficiency``               histogram  — (answered requests: evidence coverage)
``loopgate_rewrites_total``            counter    ``by``: rules|llm (questions rewritten)
``loopgate_sub_questions``             histogram  — (questions answered in parts)
``loopgate_memory_hits_total``         counter    — (session memory entries used)
``loopgate_conflicts_total``           counter    — (answers flagged ``conflict``)
=====================================  =========  =============================================

Label values are bounded: paths, stages, tools and flags come from small fixed vocabularies
(unknown or long values are cut to 40 characters), never from questions; each labelled child is
looked up once and kept (``prometheus_client``'s ``labels()`` validated its arguments on every
call: 5 calls, about a quarter of ``observe``'s time on a cache hit).

Records reach ``observe`` after the reply (:class:`gateway.observe.RouteRecorder` queues them);
:meth:`GatewayMetrics.settle` (called by ``render`` and ``GET /metrics``) records the queue first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest

from gateway.routing import RouteRecord

__all__ = ["GatewayMetrics", "LATENCY_BUCKETS_S", "METRIC_NAMES"]

# Seconds: cache hits take ~1 ms, RAG 10-300 ms, the LoopAgent with an LLM up to tens of seconds.
LATENCY_BUCKETS_S = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    20.0,
    30.0,
    60.0,
)
_STEP_BUCKETS = (1, 2, 3, 4, 5, 6, 7, 8, 10)
_CONF_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

METRIC_NAMES = (
    "loopgate_requests_total",
    "loopgate_escalations_total",
    "loopgate_fallbacks_total",
    "loopgate_cache_lookups_total",
    "loopgate_tool_calls_total",
    "loopgate_tool_timeouts_total",
    "loopgate_degraded_total",
    "loopgate_not_found_total",
    "loopgate_tokens_total",
    "loopgate_request_latency_seconds",
    "loopgate_stage_latency_seconds",
    "loopgate_loop_steps",
    "loopgate_rag_confidence",
    "loopgate_sufficiency",
    "loopgate_rewrites_total",
    "loopgate_sub_questions",
    "loopgate_memory_hits_total",
    "loopgate_conflicts_total",
)


def _label(value: object, default: str = "unknown") -> str:
    text = str(value or "").strip() or default
    return text[:40]


class GatewayMetrics:
    """The gateway's Prometheus metrics in their own registry.

    Usage example::

        metrics = GatewayMetrics()
        metrics.observe(RouteRecord.from_dict(route))
        body, content_type = metrics.render()

    :param registry: registry to register into; a new ``CollectorRegistry`` by default.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        self._before_render: list[Callable[[], object]] = []
        counter, histogram = self._counter, self._histogram
        self.requests = counter("loopgate_requests", "Requests by final path and requested mode.",
                                "path", "mode")
        self.escalations = counter("loopgate_escalations",
                                   "Requests the router escalated to the LoopAgent.", "reason")
        self.fallbacks = counter("loopgate_fallbacks",
                                 "LoopAgent runs that handed the question back to RAG.")
        self.cache_lookups = counter("loopgate_cache_lookups", "Answer-cache lookups by result.",
                                     "result")
        self.tool_calls = counter("loopgate_tool_calls", "LoopAgent tool calls by tool and status.",
                                  "tool", "status")
        self.tool_timeouts = counter("loopgate_tool_timeouts",
                                     "Timeouts by LoopAgent tool or router stage.", "tool")
        self.degraded = counter("loopgate_degraded", "Requests carrying a degradation flag.",
                                "flag")
        self.not_found = counter("loopgate_not_found", 'Answers that said "not found".', "path")
        self.tokens = counter("loopgate_tokens", "LLM tokens spent, by brain.", "brain")
        self.request_latency = histogram("loopgate_request_latency_seconds",
                                         "Whole-request latency by final path.",
                                         LATENCY_BUCKETS_S, "path")
        self.stage_latency = histogram("loopgate_stage_latency_seconds",
                                       "Latency of each router stage.", LATENCY_BUCKETS_S, "stage")
        self.loop_steps = histogram("loopgate_loop_steps",
                                    "LoopAgent turns per request that ran it.", _STEP_BUCKETS)
        self.confidence = histogram("loopgate_rag_confidence",
                                    "RAG confidence of scored requests.", _CONF_BUCKETS)
        self.sufficiency = histogram(
            "loopgate_sufficiency",
            "Sufficiency score of answered requests (share of the question's key terms the "
            "cited evidence covers).",
            _CONF_BUCKETS,
        )
        self.rewrites = counter("loopgate_rewrites", "Questions rewritten before retrieval.", "by")
        self.sub_questions = histogram("loopgate_sub_questions",
                                       "Parts of questions answered in parts (plan-and-execute).",
                                       (2, 3, 4, 5, 6, 8))
        self.memory_hits = counter("loopgate_memory_hits",
                                   "Session memory entries a request used.")
        self.conflicts = counter("loopgate_conflicts", "Answers whose cited documents disagree.")

    def _counter(self, name: str, documentation: str, *labels: str) -> Counter:
        """A counter ``name`` (exposed as ``name_total``) in this registry, labelled ``labels``."""
        return Counter(name, documentation, labels, registry=self.registry)

    def _histogram(
        self, name: str, documentation: str, buckets: tuple[float, ...], *labels: str
    ) -> Histogram:
        """A histogram ``name`` in this registry with ``buckets`` (upper bounds), labelled
        ``labels``."""
        return Histogram(name, documentation, labels, buckets=buckets, registry=self.registry)

    def observe(self, record: RouteRecord) -> None:
        """Update every metric from one route record (see the module table)."""
        path = _label(record.final_path)
        self._child(self.requests, path, _label(record.mode)).inc()
        if record.escalated:
            reason = (record.signals[0] if record.signals
                      else "fitted_rule" if "fitted rule" in record.reason
                      else "low_confidence")
            self._child(self.escalations, _label(reason)).inc()
        if record.final_path == "fallback_rag" or record.fallback_reason is not None:
            self.fallbacks.inc()
        flags = set(record.flags)
        if record.cache_hit:
            result = "hit"
        elif "cache_unavailable" in flags:
            result = "unavailable"
        elif "cache_timeout" in flags:
            result = "timeout"
        elif "cache_get" in record.latency_ms:
            result = "miss"
        else:
            result = "skipped"
        self._child(self.cache_lookups, result).inc()
        for call in record.tool_calls:
            self._child(self.tool_calls, _label(call.tool), _label(call.status)).inc()
        for name in record.timed_out:
            self._child(self.tool_timeouts, _label(name)).inc()
        for flag in sorted(flags | ({"degraded"} if record.degraded else set())):
            self._child(self.degraded, _label(flag.split(":", 1)[0])).inc()
        if record.found is False:
            self._child(self.not_found, path).inc()
        if record.tokens > 0:
            self._child(self.tokens, _label(record.brain.split(":", 1)[0])).inc(record.tokens)
        if record.total_ms is not None:
            self._child(self.request_latency, path).observe(record.total_ms / 1000)
        for stage, ms in record.latency_ms.items():
            if stage != "total":
                self._child(self.stage_latency, _label(stage)).observe(ms / 1000)
        if record.steps:
            self.loop_steps.observe(record.loop_steps)
        if record.confidence is not None:
            self.confidence.observe(record.confidence)
        self._observe_process(record)

    def _observe_process(self, record: RouteRecord) -> None:
        """Process metrics of issue 16 (the record's ``process``, ``rewrite``, ``conflict``)."""
        process = record.extra.get("process") or {}
        if not isinstance(process, dict):
            return
        if process.get("sufficiency") is not None and record.found:
            self.sufficiency.observe(float(process["sufficiency"]))
        if process.get("rewrites"):
            by = (record.extra.get("rewrite") or {}).get("by", "rules")
            self._child(self.rewrites, _label(by)).inc()
        if process.get("sub_questions"):
            self.sub_questions.observe(int(process["sub_questions"]))
        if process.get("memory_hits"):
            self.memory_hits.inc(int(process["memory_hits"]))
        if record.extra.get("conflict"):
            self.conflicts.inc()

    def _child(self, metric: Any, *values: str) -> Any:
        """``metric.labels(*values)``, looked up once per label values (bounded, see above)."""
        key = (id(metric), values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def on_render(self, hook: Callable[[], object]) -> None:
        """Call ``hook`` before the registry is read (:meth:`settle`)."""
        self._before_render.append(hook)

    def settle(self) -> None:
        """Observe what is queued elsewhere (route records awaiting the event loop's next
        turn) before the registry is read."""
        for hook in self._before_render:
            hook()

    def render(self) -> tuple[bytes, str]:
        """Prometheus text exposition of the registry (after :meth:`settle`) and its content
        type."""
        self.settle()
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
