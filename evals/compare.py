"""``loopgate eval compare A/summary.json B/summary.json``: the differences of two runs.

Compares every shared numeric figure overall, per dataset and per language: rates in
percentage points (B − A), counts and latencies as values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.report import short_name

__all__ = ["FIGURES", "compare_summaries", "load_summary", "render_comparison"]

# (key, kind): "rate" fractions shown in points, "value" numbers; latency via latency_ms.
FIGURES: list[tuple[str, str]] = [
    ("n", "value"),
    ("evidence_hit", "rate"),
    ("evidence_hit_at_k", "rate"),
    ("answer_contains", "rate"),
    ("answer_precision", "rate"),
    ("refusal_accuracy", "rate"),
    ("escalation_rate", "rate"),
    ("unverified_citations", "value"),
    ("llm_calls", "value"),
    ("tokens", "value"),
    ("latency_p50", "value"),
    ("latency_p95", "value"),
    ("confidence_auroc", "value"),
]


def load_summary(path: str | Path) -> dict[str, Any]:
    """Read a ``summary.json`` (a run folder is accepted too).

    :raises ValueError: missing or not a summary.
    """
    p = Path(path)
    if p.is_dir():
        p = p / "summary.json"
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read summary {p}: {exc}") from exc
    if not isinstance(data, dict) or "n" not in data:
        raise ValueError(f"{p} is not an eval summary.json (no 'n')")
    return data


def _get(group: dict[str, Any], key: str) -> Any:
    if key.startswith("latency_"):
        return (group.get("latency_ms") or {}).get(key.split("_", 1)[1])
    return group.get(key)


def _diff_group(a: dict[str, Any], b: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for key, kind in FIGURES:
        va, vb = _get(a, key), _get(b, key)
        delta = (
            None
            if va is None or vb is None
            else round((vb - va) * (100 if kind == "rate" else 1), 4)
        )
        out[key] = {"a": va, "b": vb, "delta": delta, "kind": kind}
    return out


def compare_summaries(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """``{"all": {figure: {a, b, delta, kind}}, "by_dataset": {...}, "by_lang": {...}}``;
    ``delta`` = B − A (points for rates). Groups present in only one run are skipped."""
    out: dict[str, Any] = {
        "a_mode": a.get("mode"),
        "b_mode": b.get("mode"),
        "all": _diff_group(a, b),
    }
    for key in ("by_dataset", "by_lang"):
        ga, gb = a.get(key) or {}, b.get(key) or {}
        out[key] = {name: _diff_group(ga[name], gb[name]) for name in ga if name in gb}
    return out


def render_comparison(diff: dict[str, Any], console: Any = None) -> None:
    """Print the overall figures (A, B, Δ) and a per-dataset/language table of deltas
    (rates in %, deltas in points; latency in ms)."""
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=max(console.width, 160))

    def fmt(value: Any, kind: str, signed: bool = False, key: str = "") -> str:
        if value is None:
            return "–"
        v = value * 100 if kind == "rate" and not signed else value
        digits = 3 if key == "confidence_auroc" else 1
        return f"{v:+,.{digits}f}" if signed else f"{v:,.{digits}f}"

    top = Table(
        title=f"ALL: A={diff['a_mode']} → B={diff['b_mode']} (Δ = B − A; rates in %, Δ in points)"
    )
    for col in ("figure", "A", "B", "Δ"):
        top.add_column(col, justify="left" if col == "figure" else "right")
    for key, kind in FIGURES:
        c = diff["all"][key]
        top.add_row(
            key,
            fmt(c["a"], kind, key=key),
            fmt(c["b"], kind, key=key),
            fmt(c["delta"], kind, True, key),
        )
    console.print(top)
    keys = [(k, kind) for k, kind in FIGURES if k not in ("n", "tokens", "llm_calls")]
    grid = Table(title="Δ (B − A) per dataset and language")
    grid.add_column("group")
    grid.add_column("n", justify="right")
    for key, _ in keys:
        grid.add_column(key.replace("_", " "), justify="right")
    for level in ("by_dataset", "by_lang"):
        for name, g in diff[level].items():
            grid.add_row(
                short_name(name),
                str(g["n"]["b"]),
                *(fmt(g[k]["delta"], kind, True, k) for k, kind in keys),
            )
    console.print(grid)
