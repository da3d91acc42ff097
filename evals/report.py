"""The terminal summary of a run (rich): :func:`render_table`; ``report.html`` is written by
:mod:`evals.report_html`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = [
    "COLUMNS",
    "render_table",
    "short_name",
    "summary_rows",
]

COLUMNS = [
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
        return [_fmt(k, lat.get(k) if k in ("p50", "p95", "max") else g.get(k)) for k, _ in COLUMNS]

    out = [(short_name(name), cells(g)) for name, g in summary.get("by_dataset", {}).items()]
    out += [(f"ALL {lang}", cells(g)) for lang, g in summary.get("by_lang", {}).items()]
    out.append(("ALL", cells(summary)))
    if summary.get("image"):
        out.append(("image-only (apart)", cells(summary["image"])))
    return out


def render_table(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the summary table (rates in %) and the baseline differences to the terminal."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=max(console.width, 160))
    table = Table(
        title=f"LoopGate eval · mode={summary.get('mode')} · collection="
        f"{summary.get('collection')} · k={summary.get('k')}"
    )
    table.add_column("dataset")
    for _, head in COLUMNS:
        table.add_column(head, justify="right")
    for label, cells in summary_rows(summary):
        table.add_row(label, *cells, style="bold" if label == "ALL" else None)
    console.print(table)
    mix = ", ".join(f"{k} {100 * v:.0f}%" for k, v in (summary.get("route_mix") or {}).items())
    console.print(f"route mix: {mix}   errors: {summary.get('errors', 0)}   "
                  f"timed out: {summary.get('timed_out', 0)}")
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


