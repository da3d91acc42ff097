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
page, compares, or has several parts (``gateway.routing.rules.detect_signals``) is still escalated.

``loopgate calibrate --router RAG_RESULTS LOOP_RESULTS`` fits it from two ``loopgate eval``
runs on the same questions and writes ``routing.json`` beside this module (package data); the
router uses it when ``LOOPGATE_ROUTER_RULE=fitted`` (the default when the file exists).
"""

from __future__ import annotations

import json
import math
import random
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.tokenizer import Tokenizer, asks_quantity
from gateway.routing.rules import Decision, Signal
from gateway.routing.types import RagResult
from gateway.settings import Settings
from rag.confidence import FEATURE_NAMES, fit_logistic

__all__ = [
    "ROUTER_FEATURES",
    "RoutingModel",
    "decision_features",
    "fit_router",
    "fitted_decision",
    "load_routing_model",
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
    return Tokenizer().normalize(text) != unicodedata.normalize("NFKC", text).lower()


@dataclass
class RoutingModel:
    """A fitted escalation rule (see the module docstring).

    :param weights: one per name in ``names``; ``bias`` the intercept; ``means``/``stds``
        standardise the inputs.
    :param threshold: escalate when :meth:`score` ≥ this (0..1).
    :param meta: fit report (records, budget, in-sample and cross-validated hit, expected gain).
    :param signals_escalate: whether question signals (reference / comparison / multipart)
        still escalate whatever the score says — chosen by :func:`fit_router` from the data
        (the issue's "question-shape triggers" are part of the fitted rule).
    """

    names: list[str]
    weights: list[float]
    bias: float
    means: list[float]
    stds: list[float]
    threshold: float
    meta: dict[str, Any] = field(default_factory=dict)
    signals_escalate: bool = True

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
                "threshold": self.threshold, "meta": self.meta,
                "signals_escalate": self.signals_escalate}

    def save(self, path: Path) -> None:
        """Write :meth:`to_dict` as JSON to ``path``."""
        path.write_text(json.dumps(self.to_dict(), indent=2), encoding="utf-8")

    @classmethod
    def load(cls, path: Path | None = None) -> RoutingModel | None:
        """Read a model (default: the packaged ``routing.json`` beside this module); ``None`` when
        absent.

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
                   float(data["threshold"]), dict(data.get("meta") or {}),
                   bool(data.get("signals_escalate", True)))


def _fit(rows: Sequence[Mapping[str, Any]], l2: float) -> RoutingModel:
    differ = [r for r in rows if bool(r["rag_hit"]) != bool(r["loop_hit"])]
    x = [[float(r["features"].get(n, 0.0)) for n in ROUTER_FEATURES] for r in differ]
    y = [int(bool(r["loop_hit"])) for r in differ]
    w, b, means, stds = fit_logistic(x, y, l2=l2)
    return RoutingModel(list(ROUTER_FEATURES), w, b, means, stds, 1.0)


def _pick(row: Mapping[str, Any], escalated: bool) -> bool:
    return bool(row["loop_hit"] if escalated else row["rag_hit"])


def _best_threshold(
    scores: Sequence[float], rows: Sequence[Mapping[str, Any]], budget: float
) -> tuple[float, float, float]:
    """``(threshold, hit rate, escalated share)`` maximising the combined pick's hit rate.

    Rows marked ``forced`` (question signals: the router escalates them whatever the rule says)
    count as escalated from the start, in the hits and against the budget; the threshold is
    chosen over the others.
    """
    n = len(rows)
    forced = [bool(r.get("forced")) for r in rows]
    free = sorted((i for i in range(n) if not forced[i]), key=lambda i: -scores[i])
    hits = sum(_pick(r, f) for r, f in zip(rows, forced, strict=True))
    n_forced = sum(forced)
    best = (1.0 + 1e-9, hits / n, n_forced / n)
    limit = int(budget * n) - n_forced
    for m, i in enumerate(free[: max(0, limit)], 1):
        hits += int(bool(rows[i]["loop_hit"])) - int(bool(rows[i]["rag_hit"]))
        nxt = scores[free[m]] if m < len(free) else 0.0
        if nxt == scores[i]:
            continue  # a threshold cannot split equal scores
        if hits / n > best[1] + 1e-12:
            best = (scores[i], hits / n, (m + n_forced) / n)
    return best


def fit_router(
    rows: Sequence[Mapping[str, Any]], *, budget: float = 0.35, l2: float = 1.0,
    folds: int = 5, seed: int = 0,
) -> RoutingModel:
    """Fit the rule on ``rows`` = ``{"features": decision_features(...), "rag_hit": bool,
    "loop_hit": bool, "lang": str, "dataset": str, "forced": bool}`` (one per question, both
    paths run; ``forced``: the question has signals).

    Two variants are fitted: question signals escalate whatever the score says (rows marked
    ``forced`` count as escalated), or signals are only inputs of the score; the one with the
    higher cross-validated hit is kept (``signals_escalate``; a tie keeps the signals).

    :param budget: most escalated share (0..1) the threshold may reach.
    :param folds: k of the cross-validated estimate in ``meta['cv_hit']``.
    :raises CalibrationError: fewer than 10 questions where the paths differ, or one class only.
    """
    with_signals = _fit_variant(rows, budget, l2, folds, seed, signals_escalate=True)
    plain = [{**r, "forced": False} for r in rows]
    without = _fit_variant(plain, budget, l2, folds, seed, signals_escalate=False)
    if without.meta["cv_hit"] > with_signals.meta["cv_hit"]:
        without.meta["signals_cv_hit"] = with_signals.meta["cv_hit"]
        return without
    with_signals.meta["no_signals_cv_hit"] = without.meta["cv_hit"]
    return with_signals


def _fit_variant(
    rows: Sequence[Mapping[str, Any]], budget: float, l2: float, folds: int, seed: int,
    *, signals_escalate: bool,
) -> RoutingModel:
    model = _fit(rows, l2)
    model.signals_escalate = signals_escalate
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
            esc = m.escalate(rows[i]["features"])[0] or bool(rows[i].get("forced"))
            cv_esc += esc
            cv_hits += _pick(rows[i], esc)
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
        "signals_escalate": signals_escalate,
    }
    return model


def load_routing_model(settings: Settings) -> RoutingModel | None:
    """The fitted escalation rule when ``router_rule`` is ``fitted`` and a model file exists."""
    if settings.router_rule != "fitted":
        return None
    return RoutingModel.load(Path(settings.router_model_path) if settings.router_model_path
                             else None)


def fitted_decision(model: RoutingModel, question: str, rag_res: RagResult,
                    signals: list[Signal], *, answer_floor: float = 0.0) -> Decision:
    """Route by the fitted rule (``gateway.routing.fit``); the reason names score and threshold.

    :param answer_floor: the RAG path's answer floor (``Settings.rag_answer_floor``, 0..1):
        under it the RAG answer is "not found" (``rag.decision``) whatever the fitted score, so
        the question is escalated and the deep read tries before RAG refuses (financebench_id_
        00799 and _00684: kept on RAG at 0.13 and 0.11, refused; the LoopAgent found both).
        0 (the default): the fitted score alone decides.
    """
    conf = rag_res.confidence
    if conf is not None and conf < answer_floor:
        return Decision("loop", f"escalated: confidence {conf:.2f} under the RAG answer floor "
                        f"{answer_floor:.2f}", tuple(signals))
    kinds = [s.kind for s in signals]
    feats = decision_features(rag_res.confidence, rag_res.features, question, kinds,
                              rag_res.hits[0].chunk.path,
                              resolved=rag_res.resolved is not None)
    esc, p = model.escalate(feats)
    if esc:
        return Decision("loop", f"escalated: fitted rule, LoopAgent gain score {p:.2f} >= "
                        f"{model.threshold:.2f}", tuple(signals))
    return Decision("rag", f"RAG kept: fitted rule, LoopAgent gain score {p:.2f} < "
                    f"{model.threshold:.2f}")
