"""Fit the answer-support decision (``corpus.answer_support.SupportModel``) from eval runs.

Each record is one question an eval run answered with evidence: its support features (the
route record's ``support``), whether it is ``answerable``, whether the retrieval held the
gold evidence (``hit``) and whether the path already refused it (``refused``, for another
reason: an absent code or year, no evidence over the floor). The label is "the answer stands
on the gold evidence": ``answerable and hit``; an unanswerable question's answer never does.
The weights are L2-regularised logistic regression (``rag.confidence.fit_logistic``), pooled
and per language (English, Chinese: each with at least ``MIN_LANGUAGE_RECORDS`` records of both
labels gets weights of its own, the pooled ones serving the other); a feature
a record lacks (``retrieval`` on the LoopAgent's records) is imputed by the mean of the
records that have it, as :meth:`SupportModel.score` does at run time.

The refusal thresholds are then chosen on the same records, one per path and language (the
languages' probabilities differ in sharpness: ``corpus.answer_support.SupportModel``), each the
one refusing the most unanswerable questions of that path and language while answerable
questions refused (already or by the threshold) stay within ``budget`` and the answerable
questions whose gold evidence would be lost stay within ``max_hit_loss`` in every ``group``
(shares of the answerable records; issue 15: ≤ 5 % wrongly refused, evidence hit down ≤ 1
point; the calibrate command makes each run a group).
``cross_validate`` reports the same figures out of sample, with the shares the thresholds
*add* (``unanswerable_added``, ``false_refusal_added``); the calibrate command keeps a path's
threshold for a language only when, out of sample, it refuses a larger share of that language's
unanswerable questions than of its answerable ones (else the model ranks confidence and
refuses nothing there).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from corpus.answer_support import SUPPORT_FEATURES, SupportModel
from rag.confidence import auroc, fit_logistic
from rag.errors import CalibrationError

# records of one language needed to give it weights of its own (else the pooled weights serve)
MIN_LANGUAGE_RECORDS = 30

__all__ = ["MIN_LANGUAGE_RECORDS", "SupportRecord", "choose_threshold", "cross_validate",
           "fit_support"]


@dataclass(frozen=True, slots=True)
class SupportRecord:
    """One answered question: ``features`` (support features), ``answerable``, ``hit`` (the
    retrieval held the gold evidence; ``False`` when unanswerable), ``cited`` (the answer as
    given cites the gold: evidence hit), ``refused`` (already "not found" for another reason),
    ``group`` (the run it came from: the budgets hold in each), ``mode`` (``rag`` or ``loop``:
    each path gets its own threshold). A record without features (the path gave no evidence)
    is never scored nor refitted; it counts in the refusal shares of its run. ``lang``:
    ``"en"`` or ``"zh"`` (``""``: from the ``zh`` feature; ``"en"`` without features)."""

    features: Mapping[str, float]
    answerable: bool
    hit: bool
    cited: bool
    refused: bool
    group: str = ""
    mode: str = "rag"
    lang: str = ""

    @property
    def language(self) -> str:
        """``"en"`` or ``"zh"``: ``lang`` when given, else the ``zh`` feature's."""
        if self.lang in ("en", "zh"):
            return self.lang
        return "zh" if float(self.features.get("zh", 0.0)) > 0 else "en"

    @property
    def label(self) -> int:
        """1 when the answer stands on the gold evidence."""
        return int(self.answerable and self.hit)


def _matrix(records: Sequence[SupportRecord], names: Sequence[str]) -> list[list[float]]:
    cols: dict[str, float] = {}
    for n in names:
        vals = [float(r.features[n]) for r in records if n in r.features]
        cols[n] = sum(vals) / len(vals) if vals else 0.0
    return [[float(r.features.get(n, cols[n])) for n in names] for r in records]


def choose_threshold(scores: Sequence[float], records: Sequence[SupportRecord], *,
                     budget: float, max_hit_loss: float) -> tuple[float, dict[str, float]]:
    """The threshold refusing the most unanswerable records within the budgets — in every
    ``group`` (run) of the records, answerable ones refused at most ``budget`` (or what was
    already refused there) and gold citations lost at most ``max_hit_loss`` — (ties: the
    lowest), and its overall figures: ``unanswerable_refused``, ``false_refusal``,
    ``hit_loss`` (shares, 0..1). ``0.0`` (never refuse) when no threshold fits.

    :raises CalibrationError: no answerable record.
    """
    ans = [i for i, r in enumerate(records) if r.answerable]
    una = [i for i, r in enumerate(records) if not r.answerable]
    if not ans:
        raise CalibrationError("threshold needs answerable records")

    def figures(t: float) -> dict[str, float]:
        out = {"false_refusal": sum(1 for i in ans if records[i].refused or scores[i] < t)
               / len(ans),
               "hit_loss": sum(1 for i in ans if records[i].cited and not records[i].refused
                               and scores[i] < t) / len(ans)}
        out["unanswerable_refused"] = (
            sum(1 for i in una if records[i].refused or scores[i] < t) / len(una) if una else 0.0)
        return out

    groups = {r.group for r in records}

    def within(t: float) -> bool:
        for g in groups:
            idx = [i for i in ans if records[i].group == g]
            if not idx:
                continue
            before = sum(1 for i in idx if records[i].refused) / len(idx)
            after = sum(1 for i in idx if records[i].refused or scores[i] < t) / len(idx)
            lost = sum(1 for i in idx if records[i].cited and not records[i].refused
                       and scores[i] < t) / len(idx)
            if after > max(budget, before) or lost > max_hit_loss:
                return False
        return True

    best, best_fig = 0.0, figures(0.0)
    for t in sorted(set(scores) - {1.0}):
        fig = figures(t)
        if not within(t):
            continue
        if fig["unanswerable_refused"] > best_fig["unanswerable_refused"]:
            best, best_fig = t, fig
    return best, best_fig


def fit_support(records: Sequence[SupportRecord], *, budget: float = 0.05,
                max_hit_loss: float = 0.01, l2: float = 1.0,
                meta: Mapping[str, Any] | None = None,
                weights: SupportModel | None = None) -> SupportModel:
    """Fit the weights and choose the thresholds (module docstring).

    :param budget: most answerable records refused (share, 0..1), counting those already
        refused; a threshold never raises the share above what was already refused.
    :param max_hit_loss: most answerable records whose gold citation the threshold removes.
    :param weights: a model whose weights (pooled and per language) are kept: only the
        thresholds are chosen (``None``: fitted here).
    :raises CalibrationError: fewer than 10 records, or only one label.
    """
    names = SUPPORT_FEATURES
    scored = [r for r in records if r.features]
    y = [r.label for r in scored]
    if weights is not None:
        model = _without_thresholds(weights)
        return _with_thresholds(model, records, scored, y, meta, budget, max_hit_loss)
    w, b, m, s = fit_logistic(_matrix(scored, names), y, l2=l2)
    languages = {}
    for lang in ("en", "zh"):
        own = [r for r in scored if (float(r.features.get("zh", 0.0)) > 0) == (lang == "zh")]
        labels = {r.label for r in own}
        if len(own) >= MIN_LANGUAGE_RECORDS and len(labels) == 2:
            lw, lb, lm, ls = fit_logistic(_matrix(own, names), [r.label for r in own], l2=l2)
            languages[lang] = SupportModel(names, tuple(lw), tuple(lm), tuple(ls), lb, 0.0,
                                           {"n": len(own)})
    model = SupportModel(names, tuple(w), tuple(m), tuple(s), b, 0.0, {}, 0.0, languages)
    return _with_thresholds(model, records, scored, y, meta, budget, max_hit_loss)


def _without_thresholds(model: SupportModel) -> SupportModel:
    """``model`` (its languages' too) with every threshold 0 and no meta."""
    return replace(model, threshold=0.0, loop_threshold=0.0, meta={},
                   languages={k: replace(v, threshold=0.0, loop_threshold=0.0)
                              for k, v in model.languages.items()})


def _with_thresholds(model: SupportModel, records: Sequence[SupportRecord],
                     scored: Sequence[SupportRecord], y: Sequence[int],
                     meta: Mapping[str, Any] | None, budget: float,
                     max_hit_loss: float) -> SupportModel:
    """``model`` with a threshold per path and language chosen on ``records`` and its meta."""
    languages = dict(model.languages)
    scores = [model.score(r.features) if r.features else 1.0 for r in records]
    info: dict[str, Any] = {
        **(meta or {}), "n": len(scored), "positives": sum(y),
        "unanswerable": sum(1 for r in scored if not r.answerable),
        "auroc_in_sample": auroc([model.score(r.features) for r in scored], y),
        "budget": budget, "max_hit_loss": max_hit_loss}
    thresholds: dict[tuple[str, str], float] = {}
    for mode in ("rag", "loop"):
        for lang in ("", *languages):  # "": the pooled threshold, for a language without a model
            idx = [i for i, r in enumerate(records)
                   if r.mode == mode and lang in ("", r.language)]
            if not any(records[i].answerable for i in idx):
                thresholds[mode, lang] = 0.0
                continue
            t, fig = choose_threshold([scores[i] for i in idx], [records[i] for i in idx],
                                      budget=budget, max_hit_loss=max_hit_loss)
            thresholds[mode, lang] = t
            tag = f"{mode}_{lang}" if lang else mode
            info.update({f"in_sample_{tag}_{k}": v for k, v in fig.items()})
    languages = {lang: replace(lm, threshold=thresholds["rag", lang],
                               loop_threshold=thresholds["loop", lang])
                 for lang, lm in languages.items()}
    return replace(model, threshold=thresholds["rag", ""], meta=info,
                   loop_threshold=thresholds["loop", ""], languages=languages)


def cross_validate(records: Sequence[SupportRecord], *, folds: int = 5, budget: float = 0.05,
                   max_hit_loss: float = 0.01, l2: float = 1.0, seed: int = 0,
                   weights: SupportModel | None = None) -> dict[str, float]:
    """Out-of-sample figures: each fold scored and thresholded (by its path's threshold) by a
    model fitted on the others (``weights``: as :func:`fit_support`); returns ``auroc``, and
    per path (``rag_…``, ``loop_…``) ``unanswerable_refused``, ``false_refusal``,
    ``hit_loss``, ``unanswerable_added``, ``false_refusal_added`` (for a path with records),
    and the same per language
    (``rag_en_…``, ``rag_zh_…``, ``loop_en_…``, ``loop_zh_…``).

    :raises CalibrationError: a training fold with too few records or one label.
    """
    order = list(range(len(records)))
    random.Random(seed).shuffle(order)
    scores = [0.0] * len(records)
    refuse = [False] * len(records)
    for k in range(folds):
        test = set(order[k::folds])
        train = [records[i] for i in order if i not in test]
        model = fit_support(train, budget=budget, max_hit_loss=max_hit_loss, l2=l2,
                            weights=weights)
        for i in test:
            scores[i] = model.score(records[i].features) if records[i].features else 1.0
            refuse[i] = bool(records[i].features) and scores[i] < model.threshold_for(
                records[i].features, records[i].mode)
    fitted = [i for i, r in enumerate(records) if r.features]
    out = {"auroc": auroc([scores[i] for i in fitted], [records[i].label for i in fitted])}
    for mode in ("rag", "loop"):
        for lang in ("", "en", "zh"):
            idx = [i for i, r in enumerate(records)
                   if r.mode == mode and lang in ("", r.language)]
            if idx:
                tag = f"{mode}_{lang}" if lang else mode
                out.update({f"{tag}_{k}": v for k, v in _refusals(
                    [records[i] for i in idx], [refuse[i] for i in idx]).items()})
    return out


def _refusals(records: Sequence[SupportRecord], refuse: Sequence[bool]) -> dict[str, float]:
    ans = [i for i, r in enumerate(records) if r.answerable]
    una = [i for i, r in enumerate(records) if not r.answerable]
    return {
        "unanswerable_added": (sum(1 for i in una if refuse[i] and not records[i].refused)
                               / len(una) if una else 0.0),
        "false_refusal_added": (sum(1 for i in ans if refuse[i] and not records[i].refused)
                                / len(ans) if ans else 0.0),
        "unanswerable_refused": (sum(1 for i in una if records[i].refused or refuse[i]) / len(una)
                                 if una else 0.0),
        "false_refusal": (sum(1 for i in ans if records[i].refused or refuse[i]) / len(ans)
                          if ans else 0.0),
        "hit_loss": sum(1 for i in ans if records[i].cited and not records[i].refused
                        and refuse[i]) / len(ans) if ans else 0.0,
    }
