"""``loopgate calibrate RESULTS.jsonl [--out FILE]``: refit the RAG confidence calibration.

Reads an eval run's per-question records — ``loopgate eval`` ``results.jsonl`` rows (label
``score.evidence_hit_at_k``, features found under the record's route record) or the records of
``benchmarks/retrieval_eval.py --out`` (``hit`` and ``features``) — fits the logistic model
(``rag.confidence.refit_calibration``) and writes it (default: the packaged
``rag/calibration.json``), printing the in-sample AUROC overall and per language. Exit code 1
when the file has too few usable records (a row whose features are not finite numbers is not
usable) or the fit gives weights that are not finite (nothing is written); exit code 2 with
one message when the file is unreadable, not UTF-8 or holds a line that is no JSON object.

``loopgate calibrate RESULTS --support [--also MORE_RESULTS ...] [--budget 0.05]`` instead fits
the answer-support decision (``rag.support_fit``: is the answer in the evidence) from the
route records' ``support`` features of one or more runs (rag or loop mode) and writes
``corpus/answer_support.json`` (or ``--out``), printing the in-sample and 5-fold
cross-validated AUROC, unanswerable questions refused, answerable ones refused and gold
citations lost at the chosen threshold.

``loopgate calibrate RAG_RESULTS --router LOOP_RESULTS [--budget 0.35]`` instead fits the auto
mode's escalation rule (``gateway.routing.fit``) from two eval runs on the same questions, one
per path, and writes ``gateway/routing/routing.json`` (or ``--out``), printing each path's
evidence hit, the best possible pick, the fitted rule's in-sample and cross-validated hit and
its escalated share.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from gateway.cli.calibrate_support import calibrate_support
from gateway.cli.results_file import as_dict, find_features, read_jsonl

__all__ = ["calibrate_command", "calibration_records", "register"]


def calibration_records(path: Path) -> list[dict[str, Any]]:
    """``{"features", "hit", "lang", "dataset"}`` per usable row of an eval results file
    (the dataset groups the refit's cross-validated AUROC; ``""`` when the row has none); a row
    whose features are not finite numbers (``rag.confidence.readable_features``) is not usable.

    :raises typer.BadParameter: unreadable file or a line that is not JSON.
    """
    from rag.confidence import readable_features

    out = []
    for row in read_jsonl(path):
        hit = row.get("hit")
        if hit is None and isinstance(row.get("score"), dict):
            hit = row["score"].get("evidence_hit_at_k")
        feats = find_features(row)
        if isinstance(hit, bool) and readable_features(feats) is not None:
            lang = str(row.get("lang", ""))
            out.append({"features": feats, "hit": hit, "lang": "en" if lang == "en" else "zh",
                        "dataset": str(row.get("dataset") or "")})
    return out


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    return {str(row.get("id")): row for row in read_jsonl(path)}


def router_records(rag_path: Path, loop_path: Path) -> list[dict[str, Any]]:
    """Rows for ``gateway.routing.fit.fit_router``: questions answered in both runs. A path
    "hits" a question with a gold location when it cites it (``evidence_hit``), and an
    unanswerable question when it refuses it (``refusal_correct``): the rule then weighs a
    LoopAgent's right "not found" like a right citation (fitted on evidence hit alone, a refit
    at 31a59cf escalated less and refused 27.9 -> 18.6 % of the unanswerable dev questions).
    Questions with neither (``answer_needs_image``) are left out, and so are rows without a
    ``score`` object or whose confidence and features are not finite numbers. The
    ``confidence`` feature is the retrieval confidence (``route_record.retrieval_confidence``),
    the value ``gateway.routing.fit.fitted_decision`` reads at run time; a run recorded before
    that field existed falls back to the answer's confidence (the support probability).

    :raises typer.BadParameter: unreadable file or a line that is not JSON.
    """
    from gateway.routing import decision_features, detect_signals

    rag, loop = _rows(rag_path), _rows(loop_path)
    out = []
    for qid, r in rag.items():
        lp = loop.get(qid)
        if lp is None:
            continue
        rs, ls = as_dict(r.get("score")), as_dict(lp.get("score"))
        rh, lh = rs.get("evidence_hit"), ls.get("evidence_hit")
        if rh is None or lh is None:  # unanswerable: the right output is a refusal
            rh, lh = rs.get("refusal_correct"), ls.get("refusal_correct")
            if rh is None or lh is None:
                continue
        rec = as_dict(r.get("record"))
        route = as_dict(rec.get("route_record"))
        cands = [c for c in rec.get("candidates") or [] if isinstance(c, dict) and "path" in c]
        question = str(r.get("question") or "")
        signals = [s.kind for s in detect_signals(question)]
        try:
            feats = decision_features(
                # the retrieval confidence the router reads at run time; older runs
                # recorded only the answer's confidence (the support probability)
                route.get("retrieval_confidence", rec.get("confidence")),
                route.get("features") or find_features(r), question,
                signals, str(cands[0]["path"]) if cands else "",
                resolved=bool(route.get("resolution")),
            )
        except (TypeError, ValueError, AttributeError):
            continue  # a corrupt row: its confidence or features are not numbers
        if not all(math.isfinite(v) for v in feats.values()):
            continue
        out.append({"features": feats, "rag_hit": bool(rh), "loop_hit": bool(lh),
                    "lang": r.get("lang", ""), "dataset": r.get("dataset", ""),
                    "forced": bool(signals)})
    return out


def calibrate_command(
    results: Annotated[Path, typer.Argument(help="results.jsonl of an eval run.")],
    out: Annotated[
        Path | None,
        typer.Option(help="Where to write (default: rag/calibration.json; with --router "
                     "gateway/routing/routing.json)."),
    ] = None,
    l2: Annotated[float, typer.Option(min=0.0, help="L2 regularisation strength.")] = 1.0,
    router: Annotated[
        Path | None,
        typer.Option(help="results.jsonl of a --mode loop run on the same questions: fit the "
                     "auto mode's escalation rule instead (RESULTS is then the --mode rag run)."),
    ] = None,
    budget: Annotated[
        float | None, typer.Option(min=0.0, max=1.0, help="With --router: most escalated "
                                   "share (default 0.35); with --support: most answerable "
                                   "questions refused (default 0.05).")
    ] = None,
    support: Annotated[
        bool, typer.Option(help="Fit the answer-support decision (corpus/answer_support.json) "
                           "from the runs' support features instead.")
    ] = False,
    also: Annotated[
        list[Path] | None,
        typer.Option(help="With --support: more results.jsonl files (other datasets, modes).")
    ] = None,
    max_hit_loss: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="With --support: most answerable questions "
                            "whose gold citation the threshold may remove.")
    ] = 0.01,
    keep_weights: Annotated[
        bool, typer.Option(help="With --support: keep the packaged model's weights "
                           "(corpus/answer_support.json), choose only the refusal thresholds.")
    ] = False,
) -> None:
    """Refit the RAG confidence calibration (or, with --router, the escalation rule; with
    --support, the answer-support decision)."""
    from rag.confidence import refit_calibration
    from rag.errors import CalibrationError

    if support:
        calibrate_support([results, *(also or [])], out, l2,
                          0.05 if budget is None else budget, max_hit_loss, keep_weights)
        return
    if router is not None:
        budget = 0.35 if budget is None else budget
        _calibrate_router(results, router, out, l2, budget)
        return

    records = calibration_records(results)
    try:
        model, report = refit_calibration(records, out=out, l2=l2, meta={"source": results.name})
    except CalibrationError as exc:
        typer.echo(f"error: {exc} ({len(records)} usable records in {results})", err=True)
        raise typer.Exit(1) from None
    typer.echo(
        f"fitted on {model.meta['n']} records ({model.meta['positives']} hits); "
        f"wrote {out or 'rag/calibration.json'}"
    )
    for name, auc in report.items():
        typer.echo(f"  AUROC {name}: {auc:.3f}")
    for name, w in zip(model.names, model.weights, strict=True):
        typer.echo(f"  {name:>18} {w:+.3f}")


def _calibrate_router(rag: Path, loop: Path, out: Path | None, l2: float, budget: float) -> None:
    from gateway.routing.fit import PACKAGED, fit_router
    from rag.errors import CalibrationError

    rows = router_records(rag, loop)
    try:
        model = fit_router(rows, budget=budget, l2=l2)
    except CalibrationError as exc:
        typer.echo(f"error: {exc} ({len(rows)} questions answered in both runs)", err=True)
        raise typer.Exit(1) from None
    model.meta["source"] = [rag.parent.name or rag.name, loop.parent.name or loop.name]
    target = out or PACKAGED
    model.save(target)
    m = model.meta
    typer.echo(f"fitted on {m['n']} questions; wrote {target}")
    for key in ("rag_hit", "loop_hit", "oracle_hit", "fitted_hit", "escalated", "cv_hit",
                "cv_escalated", "expected_gain"):
        typer.echo(f"  {key:>14} {100 * m[key]:6.1f} %")
    typer.echo(f"  threshold {model.threshold:.3f}")


def register(app: typer.Typer) -> None:
    """Add ``calibrate`` to the ``loopgate`` command line."""
    app.command("calibrate")(calibrate_command)
