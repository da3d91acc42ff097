"""The numerics of the confidence calibration: L2-regularised logistic regression by Newton's
method (IRLS; Hastie, Tibshirani & Friedman, "The Elements of Statistical Learning", §4.4.1),
AUROC (Mann–Whitney U) and a stratified k-fold cross-validated AUROC per group, in numpy.
``rag.confidence`` re-exports :func:`fit_logistic` and :func:`auroc`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from rag.errors import CalibrationError

__all__ = ["auroc", "cross_validated_auroc", "fit_logistic", "predict_logistic"]


def fit_logistic(
    x: Sequence[Sequence[float]], y: Sequence[int], *, l2: float = 1.0, iters: int = 50
) -> tuple[list[float], float, list[float], list[float]]:
    """L2-regularised logistic regression by Newton/IRLS on standardised columns.

    :returns: ``(weights, bias, means, stds)``.
    :raises CalibrationError: fewer than 10 rows, only one class, a value that is not finite
        (or whose column's mean or spread is not), or weights that are not finite.
    """
    import numpy as np

    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.ndim != 2 or len(xa) < 10 or len(set(ya.tolist())) < 2:
        raise CalibrationError("refit needs at least 10 results with both hits and misses")
    with np.errstate(all="ignore"):  # overflow is checked below, not warned about
        mean = xa.mean(axis=0)
        std = xa.std(axis=0)
    if not (np.isfinite(xa).all() and np.isfinite(mean).all() and np.isfinite(std).all()):
        raise CalibrationError("feature values must be finite numbers of a moderate size "
                               "(a column's mean or spread overflowed)")
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
    if not np.isfinite(beta).all():
        raise CalibrationError("the fit diverged (non-finite weights): nothing written")
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


def predict_logistic(x: Sequence[Sequence[float]], weights: Sequence[float], bias: float,
                     means: Sequence[float], stds: Sequence[float]) -> list[float]:
    """Probabilities of the model :func:`fit_logistic` returned, one per row of ``x``."""
    out = []
    for row in x:
        z = bias + sum(w * (v - m) / (s or 1.0)
                       for v, w, m, s in zip(row, weights, means, stds, strict=True))
        out.append(1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z)))))
    return out


def cross_validated_auroc(x: Sequence[Sequence[float]], y: Sequence[int], groups: Sequence[str],
                          *, l2: float = 1.0, folds: int = 5, repeats: int = 5,
                          seed: int = 0) -> dict[str, float]:
    """Out-of-fold AUROC overall and per group (e.g. dataset), averaged over ``repeats``
    shuffles: each group's hits and misses are dealt round-robin into ``folds`` folds (so every
    fold holds every group), the model is fitted on the other folds and scores the held-out one.
    Deterministic for a given ``seed``; a group with one class only is left out of the report.

    :raises CalibrationError: as :func:`fit_logistic` on a training split.
    """
    sums: dict[str, list[float]] = {}
    for rep in range(repeats):
        rng = random.Random(seed + rep)
        fold = [0] * len(y)
        for key in sorted({(g, int(v)) for g, v in zip(groups, y, strict=True)}):
            idx = [i for i, (g, v) in enumerate(zip(groups, y, strict=True)) if (g, int(v)) == key]
            rng.shuffle(idx)
            for j, i in enumerate(idx):
                fold[i] = j % folds
        pred = [0.0] * len(y)
        for f in range(folds):
            train = [i for i in range(len(y)) if fold[i] != f]
            test = [i for i in range(len(y)) if fold[i] == f]
            w, b, m, s = fit_logistic([x[i] for i in train], [y[i] for i in train], l2=l2)
            for i, p in zip(test, predict_logistic([x[i] for i in test], w, b, m, s), strict=True):
                pred[i] = p
        for name in ["all", *sorted(set(groups))]:
            idx = [i for i in range(len(y)) if name == "all" or groups[i] == name]
            a = auroc([pred[i] for i in idx], [y[i] for i in idx])
            if not math.isnan(a):
                sums.setdefault(name, []).append(a)
    return {k: sum(v) / len(v) for k, v in sums.items()}
