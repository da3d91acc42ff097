"""``report.html`` of a run (plotly, with plotly.js embedded inline so the file opens offline).

Charts: evidence hit and answer containment per dataset and mode (this run, sibling runs found
in the parent folder — e.g. ``eval-runs/rag``, ``eval-runs/loop``, ``eval-runs/auto`` — and the
baseline's hit@1/hit@5 on the same ids), latency distribution per final route, route mix per
dataset, and the confidence-vs-hit calibration curve (10 equal-width confidence bins).
"""

from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from evals.report import COLUMNS, short_name, summary_rows

__all__ = ["calibration_bins", "sibling_summaries", "write_report"]


def calibration_bins(rows: list[dict[str, Any]], bins: int = 10) -> list[dict[str, Any]]:
    """Confidence vs hit: per equal-width bin of ``record.confidence``, the mean confidence,
    the ``evidence_hit_at_k`` rate and the count (empty bins left out)."""
    acc: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for r in rows:
        c, hit = r["record"].get("confidence"), r["score"].get("evidence_hit_at_k")
        if c is None or hit is None:
            continue
        acc[min(int(float(c) * bins), bins - 1)].append((float(c), bool(hit)))
    return [
        {
            "bin": b,
            "confidence": sum(c for c, _ in v) / len(v),
            "hit_rate": sum(h for _, h in v) / len(v),
            "n": len(v),
        }
        for b, v in sorted(acc.items())
    ]


def sibling_summaries(out_dir: Path) -> dict[str, dict[str, Any]]:
    """``mode → summary`` of runs in the folders beside ``out_dir`` (and of ``out_dir``),
    keyed by each summary's ``mode`` (folder name when it has none)."""
    found: dict[str, dict[str, Any]] = {}
    parent = out_dir.resolve().parent
    for p in sorted(parent.glob("*/summary.json")):
        try:
            s = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        found[str(s.get("mode") or p.parent.name)] = s
    return found


def _figures(
    rows: list[dict[str, Any]], summary: dict[str, Any], others: dict[str, dict[str, Any]]
) -> list[tuple[str, Any]]:
    import plotly.graph_objects as go

    runs = {**others, str(summary.get("mode")): summary}
    datasets = list(summary.get("by_dataset", {}))
    labels = [short_name(d) for d in datasets]
    acc, ans = go.Figure(), go.Figure()

    def percents(by: dict[str, Any], key: str) -> list[float]:
        return [100 * ((by.get(d) or {}).get(key) or 0) for d in datasets]

    # (figure, bar label, summary key, bar pattern) of each mode's four bars
    bars = (
        (acc, "evidence hit", "evidence_hit", None),
        (acc, "hit@k", "evidence_hit_at_k", "."),
        (ans, "answer contains", "answer_contains", None),
        (ans, "refusal accuracy", "refusal_accuracy", "x"),
    )
    order = {"rag": 0, "loop": 1, "auto": 2}
    for mode, s in sorted(runs.items(), key=lambda kv: (order.get(kv[0], 9), kv[0])):
        by = s.get("by_dataset", {})
        for fig, label, key, pattern in bars:
            fig.add_bar(name=f"{mode}: {label}", x=labels, marker_pattern_shape=pattern,
                        y=percents(by, key))
    base = summary.get("baseline")
    if base:
        for key, label in (("baseline_hit_at_1", "hit@1"), ("baseline_hit_at_5", "hit@5")):
            acc.add_bar(name=f"baseline {base['name']} {label}", x=labels,
                        marker_pattern_shape="/", y=percents(base["by_dataset"], key))
    acc.update_layout(
        barmode="group",
        yaxis_range=[0, 100],
        title="Evidence hit per dataset and mode (%), baseline on the same ids",
    )
    ans.update_layout(
        barmode="group",
        yaxis_range=[0, 100],
        title="Answer containment and refusal accuracy per dataset and mode (%)",
    )
    lat = go.Figure()
    by_route: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        by_route[r["record"].get("route") or "unknown"].append(
            max(0.1, float(r["record"].get("latency_ms") or 0))
        )
    for route, vals in sorted(by_route.items()):
        lat.add_box(
            y=vals,
            name=f"{route} (n={len(vals)})",
            boxpoints="all",
            jitter=0.4,
            pointpos=0,
            marker_size=3,
        )
    lat.update_layout(
        title="Latency distribution by final route (ms, log scale)",
        yaxis_type="log",
        yaxis_dtick=1,
        yaxis_tickformat=",.0f",
        yaxis_title="ms",
        showlegend=False,
    )
    mix = go.Figure()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        counts[r["dataset"]][r["record"].get("route") or "unknown"] += 1
    routes = sorted({k for c in counts.values() for k in c})
    for route in routes:
        mix.add_bar(
            name=route,
            x=[short_name(d) for d in counts],
            y=[100 * counts[d][route] / sum(counts[d].values()) for d in counts],
        )
    mix.update_layout(barmode="stack", title="Route mix per dataset (%)", yaxis_range=[0, 100])
    cal = go.Figure()
    bins = calibration_bins(rows)
    cal.add_scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfect", line_dash="dash")
    if bins:
        cal.add_scatter(
            x=[b["confidence"] for b in bins],
            y=[b["hit_rate"] for b in bins],
            mode="lines+markers+text",
            text=[f"n={b['n']}" for b in bins],
            textposition="top center",
            name="evidence hit@k",
        )
    au = summary.get("confidence_auroc")
    cal.update_layout(
        title=f"Confidence vs hit (AUROC {au if au is not None else '–'})",
        xaxis_title="mean confidence in bin",
        yaxis_title="hit@k rate",
        xaxis_range=[0, 1],
        yaxis_range=[0, 1.05],
    )
    return [
        ("accuracy", acc),
        ("answers", ans),
        ("latency", lat),
        ("routes", mix),
        ("calibration", cal),
    ]


def _table_html(summary: dict[str, Any]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in COLUMNS)
    body = "".join(
        f"<tr><td>{html.escape(label)}</td>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        for label, cells in summary_rows(summary)
    )
    return f"<table><tr><th>dataset</th>{head}</tr>{body}</table>"


def write_report(out_dir: Path, rows: list[dict[str, Any]], summary: dict[str, Any]) -> Path:
    """Write ``out_dir/report.html`` (self-contained: plotly.js inline) and return its path."""
    others = {m: s for m, s in sibling_summaries(out_dir).items() if m != summary.get("mode")}
    parts = []
    for i, (name, fig) in enumerate(_figures(rows, summary, others)):
        parts.append(
            f'<section id="{name}">'
            + fig.to_html(
                full_html=False,
                include_plotlyjs=(i == 0),
                default_width="100%",
                default_height="460px",
            )
            + "</section>"
        )
    base = summary.get("baseline") or {}
    missed = "".join(
        f"<tr><td>{html.escape(m['id'])}</td><td>{html.escape(m['dataset'])}</td>"
        f"<td>{html.escape(m.get('question') or '')[:160]}</td><td>{m.get('baseline_rank')}</td>"
        f"<td>{m.get('evidence_rank')}</td><td>{html.escape(str(m.get('route')))}</td></tr>"
        for m in base.get("missed", [])
    )
    doc = f"""<!doctype html><html><head><meta charset="utf-8">
<title>LoopGate eval · {html.escape(str(summary.get("mode")))}</title>
<style>body{{font-family:system-ui,sans-serif;margin:24px;max-width:1340px}}
table{{border-collapse:collapse;font-size:13px;margin:12px 0}}td,th{{border:1px solid #ccc;
padding:3px 7px;text-align:right}}td:first-child,th:first-child{{text-align:left}}
</style></head><body>
<h1>LoopGate evaluation — mode {html.escape(str(summary.get("mode")))}, collection
{html.escape(str(summary.get("collection")))}</h1>
<p>{summary.get("n_total")} questions ({summary.get("n")} text-answerable scored; image-only apart),
k={summary.get("k")}, {summary.get("elapsed_s")} s. Rates in %; latency in ms.</p>
{_table_html(summary)}
{"".join(parts)}
<h2>Baseline {html.escape(str(base.get("name", "–")))} had it in its top 5, we missed it
({base.get("n_missed", 0)})</h2>
<table><tr><th>id</th><th>dataset</th><th>question</th><th>baseline rank</th>
<th>our candidate rank</th><th>route</th></tr>{missed}</table>
</body></html>"""
    path = out_dir / "report.html"
    path.write_text(doc, encoding="utf-8")
    return path
