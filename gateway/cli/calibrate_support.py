"""``loopgate calibrate --support``: refit the answer-support decision
(``corpus/answer_support.json``: ``rag.support_fit``) from eval runs' per-question records."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import typer

from gateway.cli.results_file import as_dict, as_list, read_jsonl

__all__ = ["calibrate_support", "support_records"]


def support_records(path: Path) -> list[Any]:
    """``rag.support_fit.SupportRecord`` per scored row of an eval results file (a row without
    support features — no evidence — comes with empty features: it counts in its run's
    refusal shares only; one whose features are not finite numbers is left out); a refusal the
    support decision itself made (rag flag ``unsupported:…``, loop ``unsupported``) does not
    count as already refused.

    :raises typer.BadParameter: unreadable file or a line that is not JSON.
    """
    from corpus.answer_support import with_language_forms
    from rag.support_fit import SupportRecord

    out = []
    for row in read_jsonl(path):
        rec = as_dict(row.get("record"))
        route = as_dict(rec.get("route_record"))
        feats = as_dict(route.get("support"))
        score = as_dict(row.get("score"))
        if "refused" not in score:
            continue
        if not all(isinstance(v, int | float) and math.isfinite(v) for v in feats.values()):
            continue  # a corrupt row: its support features are not finite numbers
        by_support = bool(route.get("unsupported")) or any(
            str(f).startswith("unsupported:") for f in as_list(route.get("flags")))
        answerable = score.get("refusal_correct") is None
        mode = "loop" if str(row.get("mode") or route.get("final_path")) == "loop" else "rag"
        # the eval's language tags: en, zh-Hans, zh-Hant (a question's script)
        lang = str(row.get("lang") or "").split("-")[0].lower()
        out.append(SupportRecord(
            with_language_forms({k: float(v) for k, v in feats.items()}) if feats else {},
            answerable,
            bool(score.get("evidence_hit_at_k")) and answerable,
            bool(score.get("evidence_hit")) and answerable,
            (bool(score.get("refused")) and not by_support) or not feats,
            group=str(path), mode=mode,
            lang=lang if lang in ("en", "zh") else ""))
    return out


def calibrate_support(paths: list[Path], out: Path | None, l2: float, budget: float,
                      max_hit_loss: float, keep_weights: bool = False) -> None:
    """Fit on the records of ``paths`` (``results.jsonl`` files), cross-validate, keep each
    path's and language's threshold only with out-of-sample lift, write ``out`` (default: the
    packaged file) and print the figures. ``keep_weights``: the packaged model's weights stay,
    only the thresholds are chosen.

    :raises typer.Exit: code 1 when the records cannot be fitted (too few, one label).
    """
    from dataclasses import replace

    from corpus.answer_support import PACKAGED, SUPPORT_FEATURES, SupportModel
    from rag.errors import CalibrationError
    from rag.support_fit import cross_validate, fit_support

    records = [r for p in paths for r in support_records(p)]
    weights = SupportModel.load() if keep_weights else None
    try:
        model = fit_support(records, budget=budget, max_hit_loss=max_hit_loss, l2=l2,
                            meta={"source": [p.parent.name or p.name for p in paths]},
                            weights=weights)
        cv = cross_validate(records, budget=budget, max_hit_loss=max_hit_loss, l2=l2,
                            weights=weights)
    except CalibrationError as exc:
        typer.echo(f"error: {exc} ({len(records)} records with support features)", err=True)
        raise typer.Exit(1) from None
    meta = dict(model.meta)
    meta.update({f"cv_{k}": v for k, v in cv.items()})
    dropped = []
    for mode in ("rag", "loop"):
        for lang in ("", *model.languages):
            tag = f"{mode}_{lang}" if lang else mode
            if cv.get(f"{tag}_unanswerable_added", 0.0) <= cv.get(
                    f"{tag}_false_refusal_added", 0.0):
                # out of sample the threshold refuses answerable questions as readily as
                # unanswerable ones: this path keeps the model for confidence, refuses nothing
                dropped.append(tag)

    def kept(m: SupportModel, lang: str) -> SupportModel:
        rag, loop = (f"rag_{lang}", f"loop_{lang}") if lang else ("rag", "loop")
        return replace(m, threshold=0.0 if rag in dropped else m.threshold,
                       loop_threshold=0.0 if loop in dropped else m.loop_threshold)

    meta["threshold_dropped"] = dropped
    model = replace(kept(model, ""), meta=meta,
                    languages={k: kept(v, k) for k, v in model.languages.items()})
    target = out or PACKAGED
    target.write_text(json.dumps(model.to_dict(), indent=2) + "\n", encoding="utf-8")
    typer.echo(f"fitted on {meta['n']} records ({meta['positives']} on gold evidence, "
               f"{meta['unanswerable']} unanswerable); wrote {target}")
    typer.echo(f"  AUROC in sample {meta['auroc_in_sample']:.3f}, 5-fold {cv['auroc']:.3f}")
    shown_models = [("", model), *model.languages.items()]
    for mode in ("rag", "loop"):
        for lang, m in shown_models:
            tag = f"{mode}_{lang}" if lang else mode
            if f"{tag}_false_refusal" not in cv:
                continue
            t = m.loop_threshold if mode == "loop" else m.threshold
            note = " (dropped: out of sample no lift)" if tag in dropped else ""
            typer.echo(f"  {mode} {lang or 'pooled'} threshold {t:.3f}{note}")
            for key in ("unanswerable_refused", "false_refusal", "hit_loss",
                        "unanswerable_added", "false_refusal_added"):
                ins = meta.get(f"in_sample_{tag}_{key}")
                shown = "  -  " if ins is None else f"{float(ins):.3f}"
                typer.echo(f"    {key:>22} in sample {shown}   5-fold {cv[f'{tag}_{key}']:.3f}")
    for name, w in zip(SUPPORT_FEATURES, model.weights, strict=True):
        typer.echo(f"  {name:>14} {w:+.3f}")
