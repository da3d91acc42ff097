"""Prometheus metrics from route records, the /v1/stats aggregate, the Grafana dashboard JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _route_samples import router_dict  # tests/gateway is on sys.path (pytest rootdir mode)

from gateway.observe import METRIC_NAMES, GatewayMetrics
from gateway.routing import RouteRecord
from gateway.observe import compute_stats, pick_bucket

GRAFANA = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "loopgate-dashboard.json"


def _records() -> list[RouteRecord]:
    t = 1_800_000_000.0
    out = [
        router_dict("rag", 0.9, t),
        router_dict("cache", None, t + 1),
        router_dict("loop", 0.2, t + 2, steps=3, timeout_tool="read"),
        router_dict("fallback_rag", 0.3, t + 65, steps=2),
        router_dict("rag", 0.7, t + 130),
    ]
    out[0]["latency_ms"] = {"cache_get": 0.5, "retrieve": 10.0, "rag_answer": 5.0, "total": 20.0}
    out[2]["timeouts"] = [{"stage": "loop", "limit_s": 21.0, "request_deadline": False}]
    out[2]["flags"] = ["degraded", "llm_unavailable"]
    out[2]["degraded"] = True
    out[2]["tokens"] = 120
    out[2]["brain"] = "loop-llm:qwen:json"
    out[2]["decision"]["signals"] = ["comparison"]
    out[3]["found"] = False
    return [RouteRecord.from_dict(d) for d in out]


def test_observe_updates_every_metric() -> None:
    m = GatewayMetrics()
    for r in _records():
        m.observe(r)
    v = m.registry.get_sample_value
    assert v("loopgate_requests_total", {"path": "rag", "mode": "auto"}) == 2
    assert v("loopgate_requests_total", {"path": "cache", "mode": "auto"}) == 1
    assert v("loopgate_escalations_total", {"reason": "comparison"}) == 1
    assert v("loopgate_escalations_total", {"reason": "low_confidence"}) == 1
    assert v("loopgate_fallbacks_total") == 1
    assert v("loopgate_cache_lookups_total", {"result": "hit"}) == 1
    assert v("loopgate_cache_lookups_total", {"result": "miss"}) == 4
    assert v("loopgate_tool_calls_total", {"tool": "read", "status": "timeout"}) == 1
    assert v("loopgate_tool_timeouts_total", {"tool": "read"}) == 1
    assert v("loopgate_tool_timeouts_total", {"tool": "loop"}) == 1
    assert v("loopgate_degraded_total", {"flag": "llm_unavailable"}) == 1
    assert v("loopgate_not_found_total", {"path": "fallback_rag"}) == 1
    assert v("loopgate_tokens_total", {"brain": "loop-llm"}) == 120
    assert v("loopgate_request_latency_seconds_count", {"path": "rag"}) == 2
    assert v("loopgate_request_latency_seconds_bucket", {"path": "cache", "le": "0.001"}) == 1
    assert v("loopgate_stage_latency_seconds_count", {"stage": "retrieve"}) == 1
    assert v("loopgate_loop_steps_count") == 2 and v("loopgate_loop_steps_sum") == 4 + 2
    assert v("loopgate_rag_confidence_count") == 4
    body, ctype = m.render()
    assert b"loopgate_requests_total" in body and ctype.startswith("text/plain")


def test_two_apps_have_separate_registries() -> None:
    a, b = GatewayMetrics(), GatewayMetrics()
    a.observe(_records()[0])
    assert (
        b.registry.get_sample_value("loopgate_requests_total", {"path": "rag", "mode": "auto"})
        is None
    )


def test_label_values_are_bounded() -> None:
    m = GatewayMetrics()
    d = router_dict("x" * 300, 0.5, 1.0)
    m.observe(RouteRecord.from_dict(d))
    assert (
        m.registry.get_sample_value("loopgate_requests_total", {"path": "x" * 40, "mode": "auto"})
        == 1
    )


def test_stats_aggregate() -> None:
    s = compute_stats(_records(), now=1_800_000_000.0 + 150, bucket_s=60)
    t = s["totals"]
    assert t["requests"] == 5 and t["by_path"] == {
        "rag": 2,
        "cache": 1,
        "loop": 1,
        "fallback_rag": 1,
    }
    assert t["escalation_rate"] == 0.4 and t["fallback_rate"] == 0.5 and t["cache_hit_rate"] == 0.2
    assert t["timeouts"] == 1 and t["degraded"] == 1 and t["not_found"] == 1
    assert s["window"]["bucket_s"] == 60 and len(s["route_mix"]["t"]) == 3
    assert s["route_mix"]["series"]["rag"] == [1, 0, 1] and s["route_mix"]["series"]["cache"] == [
        1,
        0,
        0,
    ]
    assert s["rates"]["fallback"] == [0.0, 1.0, None]
    assert s["latency_ms"]["rag"] == {"count": 2, "p50": 30.0, "p95": 39.0, "max": 40.0}
    assert s["timeouts_by_tool"] == {"loop": 1, "read": 1}
    assert s["loop_steps"] == {"2": 1, "4": 1}
    assert [r["final_path"] for r in s["low_confidence"]["records"]] == ["fallback_rag", "loop"]
    json.dumps(s)  # JSON-safe
    empty = compute_stats([], now=10.0)
    assert empty["totals"]["requests"] == 0 and empty["totals"]["cache_hit_rate"] is None
    with pytest.raises(ValueError):
        compute_stats([], bucket_s=0)


def test_pick_bucket() -> None:
    assert pick_bucket(30) == 1 and pick_bucket(3600) == 60 and pick_bucket(10**9) == 86400


def test_grafana_dashboard_uses_only_real_metrics() -> None:
    dash = json.loads(GRAFANA.read_text("utf-8"))
    exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", [])]
    assert len(exprs) >= 12
    used = {
        re.sub(r"_(bucket|count|sum)$", "", n)
        for e in exprs
        for n in re.findall(r"loopgate_[a-z_]+", e)
    }
    assert used <= set(METRIC_NAMES), used - set(METRIC_NAMES)
    assert {
        "loopgate_requests_total",
        "loopgate_escalations_total",
        "loopgate_fallbacks_total",
        "loopgate_cache_lookups_total",
        "loopgate_tool_timeouts_total",
        "loopgate_request_latency_seconds",
        "loopgate_loop_steps",
    } <= used
    m = GatewayMetrics()
    m.observe(_records()[2])
    exposed = m.render()[0].decode()
    for name in used:
        assert name in exposed, name
    ids = [p["id"] for p in dash["panels"]]
    assert len(ids) == len(set(ids))


def test_process_metrics_in_stats_and_prometheus() -> None:
    """Issue 16 item 5: the record's process summary reaches /v1/stats and /metrics."""
    base = {"question": "q", "collection": "c", "mode": "auto", "ts": 100.0, "found": True,
            "final_path": "plan", "latency_ms": {"total": 10.0}}
    recs = [
        RouteRecord.from_dict({**base, "rewritten_question": "q2", "rewrite": {"by": "rules"},
                               "process": {"sufficiency": 0.5, "rewrites": 1, "sub_questions": 3,
                                           "memory_hits": 2}, "conflict": {"why": "newer"}}),
        RouteRecord.from_dict({**base, "final_path": "rag",
                               "process": {"sufficiency": 1.0, "rewrites": 0, "sub_questions": 0,
                                           "memory_hits": 0}}),
    ]
    p = compute_stats(recs, now=101.0)["process"]
    assert p["sufficiency"]["p50"] == 0.75 and p["rewritten"] == 1 and p["conflicts"] == 1
    assert p["answered_in_parts"] == 1 and p["sub_questions"] == 3 and p["memory_hits"] == 2
    assert p["in_parts_rate"] == 0.5
    m = GatewayMetrics()
    for r in recs:
        m.observe(r)
    text = m.render()[0].decode()
    assert "loopgate_sufficiency_count 2.0" in text
    assert 'loopgate_rewrites_total{by="rules"} 1.0' in text
    assert "loopgate_sub_questions_count 1.0" in text
    assert "loopgate_memory_hits_total 2.0" in text and "loopgate_conflicts_total 1.0" in text


def test_an_escalation_by_the_fitted_rule_is_not_labelled_low_confidence() -> None:
    """In auto mode the default fitted rule escalates by its gain score, whatever the RAG
    confidence: the label says so (a new user saw ``low_confidence`` for a 0.997-confidence
    question escalated with 'fitted rule, LoopAgent gain score 0.90 >= 0.68')."""
    m = GatewayMetrics()
    d = router_dict("loop", 0.997, 1_800_000_000.0)
    d["decision"]["reason"] = "escalated: fitted rule, LoopAgent gain score 0.90 >= 0.68"
    d["decision"]["signals"] = []
    m.observe(RouteRecord.from_dict(d))
    v = m.registry.get_sample_value
    assert v("loopgate_escalations_total", {"reason": "fitted_rule"}) == 1
    assert v("loopgate_escalations_total", {"reason": "low_confidence"}) is None
