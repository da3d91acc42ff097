"""Reports of a run: the terminal summary table (rich) and ``report.html`` (plotly, with
plotly.js embedded inline so the file opens offline).

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

__all__ = [
    "calibration_bins",
    "render_table",
    "short_name",
    "sibling_summaries",
    "summary_rows",
    "write_report",
]

_COLS = [
    ("n", "n"),
    ("evidence_hit", "evid hit"),
    ("evidence_hit_at_k", "hit@k"),
    ("answer_contains", "ans ⊂"),
    ("answer_precision", "ans prec"),
    ("refusal_accuracy", "refusal"),
    ("unverified_citations", "unverif"),
    ("escalation_rate", "escal"),
    ("llm_calls", "LLM calls"),
    ("tokens", "tokens"),
    ("p50", "p50 ms"),
    ("p95", "p95 ms"),
    ("max", "max ms"),
    ("confidence_auroc", "AUROC"),
]


def _fmt(key: str, value: Any) -> str:
    if value is None:
        return "–"
    if key in ("n", "unverified_citations", "llm_calls", "tokens"):
        return f"{int(value):,}"
    if key in ("p50", "p95", "max"):
        return f"{value:,.0f}"
    if key == "confidence_auroc":
        return f"{value:.3f}"
    return f"{100 * value:.1f}"


def short_name(dataset: str) -> str:
    """A dataset label for tables: the part in parentheses when there is one
    (``deep-rag-benchmark (GitLab Handbook)`` → ``GitLab Handbook``)."""
    if "(" in dataset and dataset.endswith(")"):
        return dataset[dataset.index("(") + 1 : -1]
    return dataset


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """``(label, formatted cells)`` per dataset, per language, ALL and image-only."""

    def cells(g: dict[str, Any]) -> list[str]:
        lat = g.get("latency_ms") or {}
        return [_fmt(k, lat.get(k) if k in ("p50", "p95", "max") else g.get(k)) for k, _ in _COLS]

    out = [(short_name(name), cells(g)) for name, g in summary.get("by_dataset", {}).items()]
    out += [(f"ALL {lang}", cells(g)) for lang, g in summary.get("by_lang", {}).items()]
    out.append(("ALL", cells(summary)))
    if summary.get("image"):
        out.append(("image-only (apart)", cells(summary["image"])))
    return out


def render_table(summary: dict[str, Any], console: Any = None) -> None:
    """Print the summary table (rates in %) and the baseline differences to the terminal."""
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=max(console.width, 160))
    table = Table(
        title=f"LoopGate eval · mode={summary.get('mode')} · collection="
        f"{summary.get('collection')} · k={summary.get('k')}"
    )
    table.add_column("dataset")
    for _, head in _COLS:
        table.add_column(head, justify="right")
    for label, cells in summary_rows(summary):
        table.add_row(label, *cells, style="bold" if label == "ALL" else None)
    console.print(table)
    mix = ", ".join(f"{k} {100 * v:.0f}%" for k, v in (summary.get("route_mix") or {}).items())
    console.print(f"route mix: {mix}   errors: {summary.get('errors', 0)}")
    base = summary.get("baseline")
    if base:
        bt = Table(title=f"vs baseline {base['name']} (same ids; points, ours − baseline)")
        for col in ("dataset", "n", "B hit@1", "evid hit", "Δ", "B hit@5", "hit@k", "Δ@k"):
            bt.add_column(col, justify="right" if col != "dataset" else "left")
        for name, c in [*base["by_dataset"].items(), ("ALL", base["all"])]:
            if not c.get("n"):
                continue
            bt.add_row(
                short_name(name),
                str(c["n"]),
                *(
                    f"{100 * c[key]:+.1f}" if key.startswith("diff") else f"{100 * c[key]:.1f}"
                    for key in (
                        "baseline_hit_at_1",
                        "evidence_hit",
                        "diff_evidence_hit_vs_hit_at_1",
                        "baseline_hit_at_5",
                        "evidence_hit_at_k",
                        "diff_hit_at_k_vs_hit_at_5",
                    )
                ),
            )
        console.print(bt)
        console.print(f"questions the baseline had in its top 5 and we missed: {base['n_missed']}")


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
    order = {"rag": 0, "loop": 1, "auto": 2}
    for mode, s in sorted(runs.items(), key=lambda kv: (order.get(kv[0], 9), kv[0])):
        by = s.get("by_dataset", {})
        acc.add_bar(
            name=f"{mode}: evidence hit",
            x=labels,
            y=[100 * ((by.get(d) or {}).get("evidence_hit") or 0) for d in datasets],
        )
        acc.add_bar(
            name=f"{mode}: hit@k",
            x=labels,
            marker_pattern_shape=".",
            y=[100 * ((by.get(d) or {}).get("evidence_hit_at_k") or 0) for d in datasets],
        )
        ans.add_bar(
            name=f"{mode}: answer contains",
            x=labels,
            y=[100 * ((by.get(d) or {}).get("answer_contains") or 0) for d in datasets],
        )
        ans.add_bar(
            name=f"{mode}: refusal accuracy",
            x=labels,
            marker_pattern_shape="x",
            y=[100 * ((by.get(d) or {}).get("refusal_accuracy") or 0) for d in datasets],
        )
    base = summary.get("baseline")
    if base:
        for key, label in (("baseline_hit_at_1", "hit@1"), ("baseline_hit_at_5", "hit@5")):
            acc.add_bar(
                name=f"baseline {base['name']} {label}",
                x=labels,
                marker_pattern_shape="/",
                y=[100 * ((base["by_dataset"].get(d) or {}).get(key) or 0) for d in datasets],
            )
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
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in _COLS)
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
