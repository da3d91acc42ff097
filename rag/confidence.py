"""Confidence of a retrieval: features, a logistic-regression calibration stored as JSON data in
the package (``rag/calibration.json``), and the refit that produces it.

The model is ``p = sigmoid(b + Σ w_i * (x_i - mean_i) / std_i)`` over the features of
:class:`rag.types.ConfidenceFeatures`, fitted to the label "the top-k holds the gold evidence"
(``loopgate calibrate`` reads an eval run's per-question records). The fit is plain
L2-regularised logistic regression by Newton's method (IRLS; Hastie, Tibshirani & Friedman,
"The Elements of Statistical Learning", §4.4.1) in numpy.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from corpus.term_match import holds_term
from corpus.types import SearchHit
from rag.confidence_fit import auroc, cross_validated_auroc, fit_logistic
from rag.confidence_signals import period_match, phrase_coverage, question_terms, top_ranks
from rag.errors import CalibrationError
from rag.types import ConfidenceFeatures, RetrievedChunk

__all__ = [
    "FEATURE_NAMES",
    "LogisticConfidence",
    "auroc",
    "compute_features",
    "fit_logistic",
    "readable_features",
    "refit_calibration",
]

FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(ConfidenceFeatures))
_NUMBER = re.compile(r"\d")
_CALIBRATION_FILE = "calibration.json"
_PACKAGED = Path(__file__).with_name(_CALIBRATION_FILE)  # package data (pyproject: *.json)


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def compute_features(
    dense: Sequence[SearchHit],
    keyword: Sequence[SearchHit],
    items: Sequence[RetrievedChunk],
    key_terms: Sequence[str],
    normalize: Callable[[str], str] | None = None,
    pages: Sequence[SearchHit] = (),
    *,
    question: str = "",
    analyse: Callable[[str], list[str]] | None = None,
) -> ConfidenceFeatures:
    """Features of one retrieval (see :class:`ConfidenceFeatures` for each one's meaning).

    :param dense: the dense hit list, best first (cosine scores); may be empty.
    :param keyword: the BM25 hit list, best first; may be empty.
    :param items: the fused top-k result items.
    :param key_terms: the question's key terms (``Tokenizer.key_terms``, already normalised).
    :param normalize: text normaliser matching the key terms' form (``Tokenizer.normalize``:
        NFKC, lower case, Traditional → Simplified); default NFKC + lower case.
    :param pages: the page list fused with the two similarity lists (``rag.pages``), if any.
    :param question: the question as searched (phrase coverage, the years it names).
    :param analyse: the tokenizer's index-side analysis (``Tokenizer.terms``) for phrase
        coverage; default a lower-cased word split.
    """
    norm = normalize or _norm
    d1 = dense[0].score if dense else 0.0
    d2 = dense[1].score if len(dense) > 1 else 0.0
    k1 = keyword[0].score if keyword else 0.0
    k2 = keyword[1].score if len(keyword) > 1 else 0.0
    dtop = {h.chunk.chunk_id for h in dense[:5]}
    ktop = {h.chunk.chunk_id for h in keyword[:5]}
    agreement = len(dtop & ktop) / 5.0 if dtop and ktop else 0.0
    same_doc = float(bool(dense and keyword and dense[0].chunk.doc_id == keyword[0].chunk.doc_id))
    text = norm("\n".join(f"{it.chunk.title} {it.chunk.section} {it.text}" for it in items))
    terms = [t for t in dict.fromkeys(key_terms) if t]
    found = [t for t in terms if holds_term(t, text)]  # exact: fw-301 is not in fw-3010
    numbers = [t for t in terms if _NUMBER.search(t)]
    coverage = len(found) / len(terms) if terms else 0.0
    number_cov = sum(1 for t in numbers if holds_term(t, text)) / len(numbers) if numbers else 1.0
    concentration = (
        sum(1 for it in items if it.chunk.doc_id == items[0].chunk.doc_id) / len(items)
        if items
        else 0.0
    )
    d_mean = sum(h.score for h in dense) / len(dense) if dense else 0.0
    k_mean = sum(h.score for h in keyword) / len(keyword) if keyword else 0.0
    d_rank, k_rank = top_ranks(items)
    return ConfidenceFeatures(
        dense_top=float(d1),
        dense_margin=float(d1 - d2) if dense else 0.0,
        keyword_top=math.log1p(max(0.0, float(k1))),
        keyword_margin=float((k1 - k2) / k1) if k1 > 0 else 0.0,
        agreement=agreement,
        top_doc_agreement=same_doc,
        coverage=coverage,
        number_coverage=number_cov,
        doc_concentration=concentration,
        dense_spread=float(d1 - d_mean) if dense else 0.0,
        keyword_spread=math.log(k1 / k_mean) if k1 > 0 and k_mean > 0 else 0.0,
        page_support=float(
            bool(items and pages)
            and bool({h.chunk.chunk_id for h in pages} & set(items[0].chunk_ids))
        ),
        phrase_coverage=phrase_coverage(question, items, analyse) if question else 0.0,
        top_dense_rank=d_rank,
        top_keyword_rank=k_rank,
        question_terms=question_terms(terms),
        period_match=period_match(question, items),
    )


# features undefined without a dense hit list (imputed by their means in that case)
_NEEDS_DENSE = frozenset({"dense_top", "dense_margin", "dense_spread", "agreement",
                          "top_doc_agreement", "top_dense_rank"})


@dataclass(frozen=True, slots=True)
class LogisticConfidence:
    """Calibrated confidence: logistic regression over standardised features.

    Usage example::

        scorer = LogisticConfidence.load()           # the packaged rag/calibration.json
        p = scorer.score(features)                   # 0..1

    :param names: feature names in order; ``weights``, ``means``, ``stds`` align with them.
    :param bias: intercept.
    :param meta: provenance (eval run, n, AUROC per language, date) — informative only.
    """

    names: tuple[str, ...]
    weights: tuple[float, ...]
    means: tuple[float, ...]
    stds: tuple[float, ...]
    bias: float
    meta: dict[str, Any]

    def score(self, features: ConfidenceFeatures) -> float:
        """The calibrated probability in [0, 1] that the top-k holds the evidence.

        Without a dense list (keyword-only retrieval, or the embedding timed out: every dense
        feature is 0, which no real cosine gives), the features that need it are imputed with
        their calibration means (they add nothing), so the keyword and coverage evidence
        decides instead of a "cosine 0" that reads as certain failure."""
        x = features.to_dict()
        if x.get("dense_top", 0.0) == 0.0 and x.get("dense_spread", 0.0) == 0.0:
            x = {k: v for k, v in x.items() if k not in _NEEDS_DENSE}
        z = self.bias
        for name, w, m, s in zip(self.names, self.weights, self.means, self.stds, strict=True):
            z += w * (x.get(name, m) - m) / (s or 1.0)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the calibration file's content)."""
        return {
            "model": "logistic",
            "features": list(self.names),
            "weights": list(self.weights),
            "means": list(self.means),
            "stds": list(self.stds),
            "bias": self.bias,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LogisticConfidence:
        """Rebuild from :meth:`to_dict` output.

        :raises CalibrationError: missing keys, unknown features or lengths that differ.
        """
        try:
            names = tuple(str(n) for n in data["features"])
            arrays = [tuple(float(v) for v in data[k]) for k in ("weights", "means", "stds")]
            bias = float(data["bias"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(f"malformed calibration data: {exc!r}") from exc
        unknown = set(names) - set(FEATURE_NAMES)
        if unknown or any(len(a) != len(names) for a in arrays):
            raise CalibrationError(
                f"calibration data does not fit the features (unknown: {sorted(unknown)})"
            )
        return cls(names, arrays[0], arrays[1], arrays[2], bias, dict(data.get("meta") or {}))

    @classmethod
    def load(cls, path: Path | None = None) -> LogisticConfidence:
        """Load a calibration file (default: the one packaged as ``rag/calibration.json``).

        :raises CalibrationError: unreadable or malformed file.
        """
        try:
            if path is None:
                raw = _PACKAGED.read_text("utf-8")
            else:
                raw = Path(path).read_text("utf-8")
            return cls.from_dict(json.loads(raw))
        except (OSError, json.JSONDecodeError) as exc:
            raise CalibrationError(
                f"cannot read calibration {path or _CALIBRATION_FILE}: {exc}"
            ) from exc


def readable_features(data: Any) -> ConfidenceFeatures | None:
    """The confidence features a results row holds (``features``: a dict as
    :meth:`ConfidenceFeatures.to_dict` writes it), or ``None`` when it is no non-empty dict or a
    known feature is no finite number (``"abc"``, a list, ``NaN``, ``1e999``): such a row
    cannot be fitted on."""
    if not isinstance(data, dict) or not data:
        return None
    try:
        feats = ConfidenceFeatures.from_dict(data)
    except (TypeError, ValueError):
        return None
    return feats if all(math.isfinite(v) for v in feats.to_dict().values()) else None


def refit_calibration(
    records: Sequence[dict[str, Any]],
    *,
    out: Path | None = None,
    l2: float = 1.0,
    meta: dict[str, Any] | None = None,
    features: Sequence[str] = FEATURE_NAMES,
) -> tuple[LogisticConfidence, dict[str, float]]:
    """Refit the confidence model from eval records and write it as JSON.

    :param records: one dict per question with ``features`` (dict from
        :meth:`ConfidenceFeatures.to_dict`; a missing feature takes its default), ``hit``
        (bool: top-k holds the gold evidence) and optionally ``lang`` and ``dataset``;
        records without a boolean ``hit`` (e.g. unanswerable) or without readable features
        (:func:`readable_features`) are skipped.
    :param out: file to write (default: the packaged ``rag/calibration.json``).
    :param features: the features the model reads (default all of :data:`FEATURE_NAMES`:
        a backward selection chosen inside each fold ranked FinanceBench worse, 0.58 vs 0.65).
    :returns: the new model and the in-sample AUROC overall and per language. The model's
        meta also holds ``auroc_cv``: 5-fold cross-validated AUROC overall and per dataset
        (per language when records carry no dataset), 5 shuffles
        (``rag.confidence_fit.cross_validated_auroc``).
    :raises CalibrationError: too few usable records, only one class, or an unknown feature.
    """
    names = tuple(features)
    if set(names) - set(FEATURE_NAMES):
        raise CalibrationError(f"unknown features {sorted(set(names) - set(FEATURE_NAMES))}")
    read = [(r, readable_features(r.get("features"))) for r in records
            if isinstance(r.get("hit"), bool)]
    usable = [r for r, f in read if f is not None]
    rows = [f.to_dict() for _, f in read if f is not None]
    x = [[row[n] for n in names] for row in rows]
    y = [int(r["hit"]) for r in usable]
    w, b, m, s = fit_logistic(x, y, l2=l2)
    model = LogisticConfidence(names, tuple(w), tuple(m), tuple(s), b, {})
    scores = [model.score(ConfidenceFeatures.from_dict(row)) for row in rows]
    report = {"all": auroc(scores, y)}
    for lang in sorted({str(r.get("lang", "")) for r in usable} - {""}):
        idx = [i for i, r in enumerate(usable) if r.get("lang") == lang]
        report[lang] = auroc([scores[i] for i in idx], [y[i] for i in idx])
    groups = [str(r.get("dataset") or r.get("lang") or "") for r in usable]
    by_group = {g: auroc([scores[i] for i in range(len(y)) if groups[i] == g],
                         [y[i] for i in range(len(y)) if groups[i] == g])
                for g in sorted(set(groups))}
    cv = cross_validated_auroc(x, y, groups, l2=l2)
    model = LogisticConfidence(
        names, tuple(w), tuple(m), tuple(s), b,
        {**(meta or {}), "n": len(usable), "positives": sum(y), "l2": l2,
         "auroc_in_sample": {**report, **{k: round(v, 4) for k, v in by_group.items()
                                          if not math.isnan(v)}},
         "auroc_cv": {k: round(v, 4) for k, v in cv.items()}},
    )
    target = out or _PACKAGED
    Path(target).write_text(json.dumps(model.to_dict(), indent=2) + "\n", encoding="utf-8")
    return model, report
