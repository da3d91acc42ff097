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
from rag.errors import CalibrationError
from rag.types import ConfidenceFeatures, RetrievedChunk

__all__ = [
    "FEATURE_NAMES",
    "LogisticConfidence",
    "auroc",
    "compute_features",
    "fit_logistic",
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
) -> ConfidenceFeatures:
    """Features of one retrieval (see :class:`ConfidenceFeatures` for each one's meaning).

    :param dense: the dense hit list, best first (cosine scores); may be empty.
    :param keyword: the BM25 hit list, best first; may be empty.
    :param items: the fused top-k result items.
    :param key_terms: the question's key terms (``Tokenizer.key_terms``, already normalised).
    :param normalize: text normaliser matching the key terms' form (``Tokenizer.normalize``:
        NFKC, lower case, Traditional → Simplified); default NFKC + lower case.
    :param pages: the page list fused with the two similarity lists (``rag.pages``), if any.
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
    )


# features undefined without a dense hit list (imputed by their means in that case)
_NEEDS_DENSE = frozenset(
    {"dense_top", "dense_margin", "dense_spread", "agreement", "top_doc_agreement"})


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


def fit_logistic(
    x: Sequence[Sequence[float]], y: Sequence[int], *, l2: float = 1.0, iters: int = 50
) -> tuple[list[float], float, list[float], list[float]]:
    """L2-regularised logistic regression by Newton/IRLS on standardised columns.

    :returns: ``(weights, bias, means, stds)``.
    :raises CalibrationError: fewer than 10 rows or only one class.
    """
    import numpy as np

    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.ndim != 2 or len(xa) < 10 or len(set(ya.tolist())) < 2:
        raise CalibrationError("refit needs at least 10 results with both hits and misses")
    mean = xa.mean(axis=0)
    std = xa.std(axis=0)
    std[std < 1e-9] = 1.0
    z = np.hstack([np.ones((len(xa), 1)), (xa - mean) / std])
    beta = np.zeros(z.shape[1])
    reg = np.eye(z.shape[1]) * l2
    reg[0, 0] = 0.0  # the intercept is not penalised
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -50, 50)))
        grad = z.T @ (p - ya) + reg @ beta
        hess = (z.T * (p * (1 - p))) @ z + reg
        step = np.linalg.solve(hess, grad)
        beta -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    return beta[1:].tolist(), float(beta[0]), mean.tolist(), std.tolist()


def auroc(scores: Sequence[float], labels: Sequence[int]) -> float:
    """Area under the ROC curve (Mann–Whitney U with tied ranks averaged); NaN for one class."""
    pairs = sorted(zip(scores, labels, strict=True), key=lambda t: t[0])
    pos = sum(1 for _, y in pairs if y)
    neg = len(pairs) - pos
    if not pos or not neg:
        return float("nan")
    rank_sum, i = 0.0, 0
    while i < len(pairs):
        j = i
        while j < len(pairs) and pairs[j][0] == pairs[i][0]:
            j += 1
        avg = (i + j + 1) / 2.0  # mean of 1-based ranks i+1..j
        rank_sum += avg * sum(1 for _, y in pairs[i:j] if y)
        i = j
    return (rank_sum - pos * (pos + 1) / 2.0) / (pos * neg)


def refit_calibration(
    records: Sequence[dict[str, Any]],
    *,
    out: Path | None = None,
    l2: float = 1.0,
    meta: dict[str, Any] | None = None,
) -> tuple[LogisticConfidence, dict[str, float]]:
    """Refit the confidence model from eval records and write it as JSON.

    :param records: one dict per question with ``features`` (dict from
        :meth:`ConfidenceFeatures.to_dict`), ``hit`` (bool: top-k holds the gold evidence) and
        optionally ``lang``; records without a boolean ``hit`` (e.g. unanswerable) are skipped.
    :param out: file to write (default: the packaged ``rag/calibration.json``).
    :returns: the new model and the in-sample AUROC overall and per language.
    :raises CalibrationError: too few usable records or only one class.
    """
    usable = [r for r in records if isinstance(r.get("hit"), bool) and r.get("features")]
    x = [[float(r["features"].get(n, 0.0)) for n in FEATURE_NAMES] for r in usable]
    y = [int(r["hit"]) for r in usable]
    w, b, m, s = fit_logistic(x, y, l2=l2)
    model = LogisticConfidence(FEATURE_NAMES, tuple(w), tuple(m), tuple(s), b, {})
    scores = [model.score(ConfidenceFeatures.from_dict(r["features"])) for r in usable]
    report = {"all": auroc(scores, y)}
    for lang in sorted({str(r.get("lang", "")) for r in usable} - {""}):
        idx = [i for i, r in enumerate(usable) if r.get("lang") == lang]
        report[lang] = auroc([scores[i] for i in idx], [y[i] for i in idx])
    model = LogisticConfidence(
        FEATURE_NAMES,
        tuple(w),
        tuple(m),
        tuple(s),
        b,
        {**(meta or {}), "n": len(usable), "positives": sum(y), "auroc_in_sample": report},
    )
    target = out or _PACKAGED
    Path(target).write_text(json.dumps(model.to_dict(), indent=2) + "\n", encoding="utf-8")
    return model, report
