"""A fitted escalation rule: send to the LoopAgent the questions where it is likely to find
evidence that the RAG path misses, within a budget of escalations (issue 14, item 3).

The model is a logistic regression (the IRLS fit of ``rag.confidence.fit_logistic``) over what
the router knows when it decides — the RAG confidence and its features, the question's
language, its signals (reference / comparison / multipart) and whether the top candidate comes
from a Markdown/text document rather than a PDF — fitted to the label "the LoopAgent hit the
evidence and RAG did not" on the questions where the two paths differ (both-hit and both-miss
questions teach nothing about which path to pick). At decision time a question is escalated
when its score is at least ``threshold``; :func:`fit_router` chooses the threshold that
maximises the evidence hit of the combined pick on the fitting records, escalating at most
``budget`` of them, and reports a k-fold cross-validated estimate beside the in-sample one.

In the router the rule replaces the confidence threshold: a question that names a section or
page, compares, or has several parts (``routing_rules.detect_signals``) is still escalated.

``loopgate calibrate --router RAG_RESULTS LOOP_RESULTS`` fits it from two ``loopgate eval``
runs on the same questions and writes ``gateway/routing.json`` (package data); the router uses
it when ``LOOPGATE_ROUTER_RULE=fitted`` (the default when the file exists).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rag.confidence import FEATURE_NAMES

__all__ = [
    "ROUTER_FEATURES",
    "RoutingModel",
    "decision_features",
    "fit_router",
]

PACKAGED = Path(__file__).with_name("routing.json")
_CONF_FEATURES = FEATURE_NAMES  # the RAG confidence features (rag.types.ConfidenceFeatures)
ROUTER_FEATURES: tuple[str, ...] = (
    "confidence", *_CONF_FEATURES, "zh", "traditional", "sig_reference", "sig_comparison",
    "sig_multipart", "top_text_doc", "resolved", "asks_quantity", "log_length",
)
_TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".docx")


def decision_features(
    confidence: float | None,
    features: Mapping[str, Any] | None,
    question: str,
    signals: Sequence[str],
    top_path: str = "",
    *,
    resolved: bool = False,
) -> dict[str, float]:
    """The router's features for one question, keyed by :data:`ROUTER_FEATURES`.

    :param confidence: the RAG confidence (0..1) or ``None`` (scored as 0).
    :param features: ``ConfidenceFeatures.to_dict()`` of the retrieval (missing keys are 0).
    :param signals: signal kinds from ``routing_rules.detect_signals``.
    :param top_path: path of the top RAG candidate (``""`` when none).
    :param resolved: document resolution narrowed the search (``Retrieval.resolution.sure``).
    """
    from corpus.tokenizer import asks_quantity

    feats = dict(features or {})
    han = sum("\u4e00" <= ch <= "\u9fff" for ch in question)
    out = {"confidence": float(confidence or 0.0)}
    out.update({k: float(feats.get(k) or 0.0) for k in _CONF_FEATURES})
    out["zh"] = 1.0 if han * 2 > len(question.strip()) else 0.0
    out["traditional"] = 1.0 if han and _traditional(question) else 0.0
    out["resolved"] = 1.0 if resolved else 0.0
    out["asks_quantity"] = 1.0 if asks_quantity(question) else 0.0
    out["log_length"] = math.log1p(len(question.strip()))
    for kind in ("reference", "comparison", "multipart"):
        out[f"sig_{kind}"] = 1.0 if kind in signals else 0.0
    out["top_text_doc"] = 1.0 if top_path.lower().endswith(_TEXT_SUFFIXES) else 0.0
    return out


def _traditional(text: str) -> bool:
    """True when OpenCC's Traditional → Simplified conversion changes ``text``."""
    import unicodedata

    from corpus.tokenizer import Tokenizer

    return Tokenizer().normalize(text) != unicodedata.normalize("NFKC", text).lower()


@dataclass
class RoutingModel:
    """A fitted escalation rule (see the module docstring).

    :param weights: one per name in ``names``; ``bias`` the intercept; ``means``/``stds``
        standardise the inputs.
    :param threshold: escalate when :meth:`score` ≥ this (0..1).
    :param meta: fit report (records, budget, in-sample and cross-validated hit, expected gain).
    """

    names: list[str]
    weights: list[float]
    bias: float
    means: list[float]
    stds: list[float]
    threshold: float
    meta: dict[str, Any] = field(default_factory=dict)

    def score(self, feats: Mapping[str, float]) -> float:
        """P(the LoopAgent finds evidence RAG misses | the paths differ), in [0, 1]."""
        z = self.bias
        for name, w, m, s in zip(self.names, self.weights, self.means, self.stds, strict=True):
            z += w * (float(feats.get(name, 0.0)) - m) / (s or 1.0)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def escalate(self, feats: Mapping[str, float]) -> tuple[bool, float]:
        """``(escalate?, score)`` for one question's :func:`decision_features`."""
        p = self.score(feats)
        return p >= self.threshold, p

    def to_dict(self) -> dict[str, Any]:
        """JSON form (what ``routing.json`` holds)."""
        return {"model": "logistic-router", "names": self.names, "weights": self.weights,
                "bias": self.bias, "means": self.means, "stds": self.stds,
                "threshold": self.threshold, "meta": self.meta}

    def save(self, path: Path) -> None:
        """Write :meth:`to_dict` as JSON to ``path``."""
        path.write_text(json.dumps(self.to_dict(), indent=2), encoding="utf-8")

    @classmethod
    def load(cls, path: Path | None = None) -> RoutingModel | None:
        """Read a model (default: the packaged ``gateway/routing.json``); ``None`` when absent.

        :raises ValueError: the file exists but is not a router model.
        """
        p = path or PACKAGED
        if not p.exists():
            return None
        data = json.loads(p.read_text(encoding="utf-8"))
        if data.get("model") != "logistic-router":
            raise ValueError(f"{p} is not a LoopGate router model")
        return cls(list(data["names"]), [float(w) for w in data["weights"]], float(data["bias"]),
                   [float(m) for m in data["means"]], [float(s) for s in data["stds"]],
                   float(data["threshold"]), dict(data.get("meta") or {}))


def _fit(rows: Sequence[Mapping[str, Any]], l2: float) -> RoutingModel:
    from rag.confidence import fit_logistic

    differ = [r for r in rows if bool(r["rag_hit"]) != bool(r["loop_hit"])]
    x = [[float(r["features"].get(n, 0.0)) for n in ROUTER_FEATURES] for r in differ]
    y = [int(bool(r["loop_hit"])) for r in differ]
    w, b, means, stds = fit_logistic(x, y, l2=l2)
    return RoutingModel(list(ROUTER_FEATURES), w, b, means, stds, 1.0)


def _best_threshold(
    scores: Sequence[float], rows: Sequence[Mapping[str, Any]], budget: float
) -> tuple[float, float, float]:
    """``(threshold, hit rate, escalated share)`` maximising the combined pick's hit rate."""
    n = len(rows)
    order = sorted(range(n), key=lambda i: -scores[i])
    hits = sum(bool(r["rag_hit"]) for r in rows)
    best = (1.0 + 1e-9, hits / n, 0.0)
    limit = int(budget * n)
    for m, i in enumerate(order[:limit], 1):
        hits += int(bool(rows[i]["loop_hit"])) - int(bool(rows[i]["rag_hit"]))
        nxt = scores[order[m]] if m < n else 0.0
        if nxt == scores[i]:
            continue  # a threshold cannot split equal scores
        if hits / n > best[1] + 1e-12:
            best = (scores[i], hits / n, m / n)
    return best


def fit_router(
    rows: Sequence[Mapping[str, Any]], *, budget: float = 0.35, l2: float = 1.0,
    folds: int = 5, seed: int = 0,
) -> RoutingModel:
    """Fit the rule on ``rows`` = ``{"features": decision_features(...), "rag_hit": bool,
    "loop_hit": bool, "lang": str, "dataset": str}`` (one per question, both paths run).

    :param budget: most escalated share (0..1) the threshold may reach.
    :param folds: k of the cross-validated estimate in ``meta['cv_hit']``.
    :raises CalibrationError: fewer than 10 questions where the paths differ, or one class only.
    """
    model = _fit(rows, l2)
    scores = [model.score(r["features"]) for r in rows]
    model.threshold, hit, share = _best_threshold(scores, rows, budget)
    idx = list(range(len(rows)))
    random.Random(seed).shuffle(idx)
    cv_hits = 0
    cv_esc = 0
    for k in range(folds):
        test = idx[k::folds]
        train = [rows[i] for i in idx if i not in set(test)]
        m = _fit(train, l2)
        m.threshold = _best_threshold([m.score(r["features"]) for r in train], train, budget)[0]
        for i in test:
            esc, _ = m.escalate(rows[i]["features"])
            cv_esc += esc
            cv_hits += bool(rows[i]["loop_hit"] if esc else rows[i]["rag_hit"])
    n = len(rows)
    rag = sum(bool(r["rag_hit"]) for r in rows) / n
    loop = sum(bool(r["loop_hit"]) for r in rows) / n
    oracle = sum(bool(r["rag_hit"] or r["loop_hit"]) for r in rows) / n
    model.meta = {
        "n": n, "budget": budget, "rag_hit": round(rag, 4), "loop_hit": round(loop, 4),
        "oracle_hit": round(oracle, 4), "fitted_hit": round(hit, 4),
        "escalated": round(share, 4), "cv_hit": round(cv_hits / n, 4),
        "cv_escalated": round(cv_esc / n, 4),
        "expected_gain": round(cv_hits / n - max(rag, loop), 4),
    }
    return model
