"""Aggregation of scored results (``results.jsonl`` rows) into ``summary.json`` figures, the
confidence AUROC, and the per-question comparison with the naive baseline.

A row is ``{"id", "dataset", "lang", "tags", "score": {…}, "record": {…}}`` (see
``evals.harness``). Rates are fractions in [0, 1] (``None`` when nothing was eligible).
``answer_needs_image`` questions are left out of every figure and summarised apart under
``image`` (they cannot be answered from text; the baseline skips them too).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gateway.routing import timed_out_names

__all__ = [
    "auroc",
    "compare_with_baseline",
    "evidence_kind",
    "load_baseline",
    "summarise",
    "summarise_group",
]

# Tags used as a per-tag breakdown only when at least this many questions carry them.
MIN_TAG_N = 5

# The evidence sources MMLongBench-Doc annotates (tag ``evidence:[...]``) that text extraction
# can read; issue 15 sets its goal on the questions whose evidence is only these ("text/table").
TEXT_EVIDENCE_SOURCES = frozenset({"Pure-text (Plain-text)", "Table"})


def evidence_kind(tags: Iterable[str]) -> str | None:
    """The evidence kind of a question from its ``evidence:[...]`` tag (MMLongBench-Doc's
    ``evidence_sources``): ``"text_table"`` when every listed source is plain text or a table,
    ``"visual"`` when any is a chart, figure or layout, ``"none"`` when the list is empty (the
    unanswerable questions); ``None`` when the question has no such tag (other datasets)."""
    for t in tags:
        if t.startswith("evidence:[") and t.endswith("]"):
            kinds = {k.strip().strip("'\"") for k in t[len("evidence:[") : -1].split(",")}
            kinds.discard("")
            if not kinds:
                return "none"
            return "text_table" if kinds <= TEXT_EVIDENCE_SOURCES else "visual"
    return None


def auroc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """Area under the ROC curve of ``scores`` for binary ``labels`` by the Mann–Whitney rank
    statistic (ties get average ranks): ``(R₁ − n₁(n₁+1)/2) / (n₁·n₀)``. ``None`` when either
    class is empty. 0.5 = no better than chance, 1.0 = every positive scored above every
    negative."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    n1, n0 = int(y.sum()), int((~y).sum())
    if n1 == 0 or n0 == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=float)
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    r1 = float(ranks[y].sum())
    return (r1 - n1 * (n1 + 1) / 2.0) / (n1 * n0)


def _rate(values: Iterable[Any]) -> float | None:
    vals = [bool(v) for v in values if v is not None]
    return round(sum(vals) / len(vals), 4) if vals else None


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "max": None, "mean": None}
    arr = np.asarray(values, dtype=float)
    return {
        "p50": round(float(np.percentile(arr, 50)), 1),
        "p95": round(float(np.percentile(arr, 95)), 1),
        "max": round(float(arr.max()), 1),
        "mean": round(float(arr.mean()), 1),
    }


def summarise_group(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one group of rows (the fields ``summary.json`` repeats per dataset,
    language and tag). ``confidence_auroc`` ranks ``record.confidence`` against
    ``evidence_hit_at_k`` (what RAG's confidence claims: the top-k holds the evidence), over
    questions with a gold location and a confidence. ``timed_out`` counts answers with a step
    out of time (:func:`timed_out`)."""
    sc = [r["score"] for r in rows]
    rec = [r["record"] for r in rows]
    n = len(rows)
    routes = Counter(r.get("route") or "unknown" for r in rec)
    conf = [
        (float(r["confidence"]), bool(s["evidence_hit_at_k"]))
        for r, s in zip(rec, sc, strict=True)
        if r.get("confidence") is not None and s.get("evidence_hit_at_k") is not None
    ]
    au = auroc([c for c, _ in conf], [h for _, h in conf]) if conf else None
    llm = sum(int(r.get("llm_calls") or 0) for r in rec)
    tok = sum(int(r.get("tokens") or 0) for r in rec)
    return {
        "n": n,
        "n_unanswerable": sum(1 for s in sc if s.get("refusal_correct") is not None),
        "evidence_hit": _rate(s.get("evidence_hit") for s in sc),
        "evidence_hit_at_k": _rate(s.get("evidence_hit_at_k") for s in sc),
        "doc_hit": _rate(s.get("doc_hit") for s in sc),
        "answer_precision": _rate(s.get("answer_precision") for s in sc),
        "section_hit": _rate(s.get("section_hit") for s in sc),
        "answer_contains": _rate(s.get("answer_contains") for s in sc),
        "refusal_accuracy": _rate(s.get("refusal_correct") for s in sc),
        "false_refusal_rate": _rate(s.get("false_refusal") for s in sc),
        "unverified_citations": sum(int(r.get("unverified_citations") or 0) for r in rec),
        "latency_ms": _percentiles([float(r.get("latency_ms") or 0.0) for r in rec]),
        "route_mix": {k: round(v / n, 4) for k, v in sorted(routes.items())} if n else {},
        "escalation_rate": _rate(r.get("escalated") for r in rec),
        "llm_calls": llm,
        "llm_calls_per_question": round(llm / n, 3) if n else None,
        "tokens": tok,
        "tokens_per_question": round(tok / n, 1) if n else None,
        "confidence_auroc": None if au is None else round(au, 4),
        "confidence_n": len(conf),
        "errors": sum(1 for r in rec if r.get("error")),
        "timed_out": sum(1 for r in rec if timed_out(r)),
    }


def timed_out(record: Mapping[str, Any]) -> bool:
    """Whether a step of this answer ran out of its time (a record's ``route_record`` with a
    ``*_timeout`` flag, e.g. ``embed_timeout`` = keyword-only retrieval, or a router stage or
    LoopAgent tool call in ``timeouts``): such an answer measures the machine's load as much
    as the product, so two runs are compared fairly only where both count 0."""
    route = record.get("route_record") or {}
    if not isinstance(route, Mapping):
        return False
    flags = route.get("flags") or []
    return (bool(route.get("timed_out"))
            or bool(timed_out_names(route.get("timeouts") or (), route.get("steps") or ()))
            or any(str(f).endswith("_timeout") for f in flags))


def _by(rows: Sequence[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[str(r.get(key) or "")].append(r)
    return {k: summarise_group(v) for k, v in sorted(groups.items())}


def summarise(rows: Sequence[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    """The whole ``summary.json``: overall figures (text-answerable questions), ``by_dataset``,
    ``by_lang``, ``by_tag`` (tags on ≥ ``MIN_TAG_N`` questions), ``by_evidence_kind``
    (``dataset/kind`` per :func:`evidence_kind`, for datasets that annotate it), ``image`` (the
    ``answer_needs_image`` questions alone), ``n_total`` and any ``meta`` (mode, collection …)."""
    text_rows = [r for r in rows if "answer_needs_image" not in (r.get("tags") or [])]
    image_rows = [r for r in rows if "answer_needs_image" in (r.get("tags") or [])]
    out: dict[str, Any] = dict(meta)
    out.update(summarise_group(text_rows))
    out["n_total"] = len(rows)
    out["by_dataset"] = _by(text_rows, "dataset")
    out["by_lang"] = _by(text_rows, "lang")
    tag_groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in text_rows:
        for t in r.get("tags") or []:
            tag_groups[t].append(r)
    out["by_tag"] = {
        t: summarise_group(v) for t, v in sorted(tag_groups.items()) if len(v) >= MIN_TAG_N
    }
    kind_groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in text_rows:
        kind = evidence_kind(r.get("tags") or [])
        if kind is not None:
            kind_groups[f"{r.get('dataset') or ''}/{kind}"].append(r)
    out["by_evidence_kind"] = {k: summarise_group(v) for k, v in sorted(kind_groups.items())}
    out["image"] = summarise_group(image_rows) if image_rows else None
    return out


def load_baseline(path: str | Path) -> dict[str, dict[str, Any]]:
    """Per-question baseline results (``baseline/B3.jsonl``) keyed by question ``id``.

    :raises ValueError: the file is unreadable or a line is not a JSON object with an ``id``.
    """
    p = Path(path)
    out: dict[str, dict[str, Any]] = {}
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read baseline {p}: {exc}") from exc
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            out[str(row["id"])] = row
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"{p}:{i}: not a baseline record ({exc})") from exc
    return out


def _cmp(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    def mean(vals: list[bool]) -> float | None:
        return round(sum(vals) / len(vals), 4) if vals else None

    b5 = [bool(b["hit@5"]) for _, b in pairs]
    b1 = [bool(b["hit@1"]) for _, b in pairs]
    o_k = [bool(r["score"]["evidence_hit_at_k"]) for r, _ in pairs]
    o_e = [bool(r["score"]["evidence_hit"]) for r, _ in pairs]
    out = {
        "n": len(pairs),
        "baseline_hit_at_1": mean(b1),
        "baseline_hit_at_5": mean(b5),
        "evidence_hit": mean(o_e),
        "evidence_hit_at_k": mean(o_k),
    }
    e, e_k, h1, h5 = mean(o_e), mean(o_k), mean(b1), mean(b5)
    if e is not None and e_k is not None and h1 is not None and h5 is not None:
        out["diff_evidence_hit_vs_hit_at_1"] = round(e - h1, 4)
        out["diff_hit_at_k_vs_hit_at_5"] = round(e_k - h5, 4)
    return out


def compare_with_baseline(
    rows: Sequence[dict[str, Any]], baseline: dict[str, dict[str, Any]], name: str = "B3"
) -> dict[str, Any]:
    """Per-question comparison on the ids both have (answerable, text-only, baseline hit@5 not
    null): baseline hit@1/hit@5 against our ``evidence_hit``/``evidence_hit_at_k`` overall and
    per dataset, with differences (ours − baseline, fractions), and ``missed``: the questions the
    baseline had in its top 5 (``hit@5``) and whose final answer we did not cite at gold
    (``evidence_hit`` false), with our hit@k and rank beside them."""
    pairs = [
        (r, baseline[r["id"]])
        for r in rows
        if r["id"] in baseline
        and baseline[r["id"]].get("hit@5") is not None
        and r["score"].get("evidence_hit") is not None
        and "answer_needs_image" not in (r.get("tags") or [])
    ]
    by_ds: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for p in pairs:
        by_ds[p[0]["dataset"]].append(p)
    missed = [
        {
            "id": r["id"],
            "dataset": r["dataset"],
            "question": r.get("question", ""),
            "baseline_rank": b.get("rank"),
            "evidence_hit_at_k": r["score"]["evidence_hit_at_k"],
            "evidence_rank": r["score"].get("evidence_rank"),
            "route": r["record"].get("route"),
        }
        for r, b in pairs
        if b["hit@5"] and not r["score"]["evidence_hit"]
    ]
    return {
        "name": name,
        "all": _cmp(pairs),
        "by_dataset": {k: _cmp(v) for k, v in sorted(by_ds.items())},
        "n_missed": len(missed),
        "missed": missed,
    }
