"""Does the quoted answer hold what the question asks? Features and a calibrated decision
(issue 15, items 4–5), shared by the RAG path and the LoopAgent.

Retrieval rank says which passage is *closest*; it does not say the passage answers. This
module looks at the answer the path is about to give — its quoted unit, the unit's context
(chunk title, section path, file path, table header) and its chunk — and measures how much of
the question it holds:

- ``unit_cov`` / ``ctx_cov`` / ``chunk_cov``: the share of the question's key-term weight held
  by the unit alone, by the unit with its context, by the whole chunk with its context (a term
  holding a digit weighs 2, a name 1.5, another word 1: :func:`term_weight`);
- ``name_cov``: the share of the question's names (codes, capitalised words, tagged Chinese
  names: ``Tokenizer.name_terms``) the chunk and its context hold (1 when it names none);
- ``specific_cov``: the share of its specific terms (codes, years, a period's year:
  ``corpus.presence.specific_terms``) the unit and its context hold (1 when none);
- ``figure_match``: 0 when the question asks for a quantity (``asks_quantity``) and the unit
  holds no figure beyond the question's own codes, else 1 (the answer type);
- ``doc_cov`` / ``doc_name_cov``: the share of the key-term weight, of the names, that the
  answer's whole document holds (``corpus.document_vocabulary.DocumentVocabulary``, asked of
  the keyword index; 1 when not asked): a question about a person, product or place the
  document never writes is about another document;
- ``n_terms``: ``log1p`` of the number of key terms; ``pdf``: the unit comes from a PDF (the
  document kind shifts the fit);
- ``retrieval_en`` / ``retrieval_zh``: the retrieval's calibrated confidence when the path has
  one (the RAG path; the LoopAgent has none: imputed by the means, adding nothing), for an
  English and for a Chinese question, and ``ctx_zh``: ``ctx_cov`` of a Chinese question — each
  language gets its own slope (per-language calibration: on the keyword-only dev runs the
  retrieval confidence alone ranks Chinese answers better than coverage does, English ones
  worse). ``zh`` (the question is Chinese) is recorded, not a model feature.

:class:`SupportModel` turns them into the probability that the answer is right (a logistic
regression whose weights, means, spreads, bias and refusal ``threshold`` are data in
``corpus/answer_support.json``, refitted by ``loopgate calibrate --support``). An answer below
the threshold is "not found"; the probability is the answer's confidence, so a quote that
lacks the asked-for entity, period or figure cannot score high. Pure functions, no I/O.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.off_document import DOC_COV_FLOOR, off_document
from corpus.presence import specific_terms
from corpus.scripts import other_script, script_share
from corpus.term_match import holds_term
from corpus.tokenizer import asks_quantity, holds_figure

__all__ = ["DOC_COV_FLOOR", "PACKAGED", "SUPPORT_FEATURES", "SupportModel", "SupportModelError",
           "off_document", "support_features", "term_weight", "with_language_forms"]

SUPPORT_FEATURES: tuple[str, ...] = (
    "unit_cov", "ctx_cov", "chunk_cov", "name_cov", "specific_cov", "figure_match",
    "doc_cov", "doc_name_cov", "n_terms", "pdf", "retrieval_en", "retrieval_zh", "ctx_zh",
)
_DIGIT = re.compile(r"\d")
_CJK = re.compile(r"[\u3400-\u9fff]")
PACKAGED = Path(__file__).with_name("answer_support.json")  # package data (pyproject: *.json)


class SupportModelError(ValueError):
    """A support model file that cannot be read or does not fit :data:`SUPPORT_FEATURES`."""


def term_weight(term: str, names: frozenset[str] = frozenset()) -> float:
    """Weight of a key term in the coverage shares: 2 when it holds a digit (a figure, a
    year, a code), 1.5 for a name, else 1 (the extractive scorer's 2:1 for digits,
    ``rag.extractive.score_unit``; names between them)."""
    if _DIGIT.search(term):
        return 2.0
    return 1.5 if term in names else 1.0


def _share(terms: Sequence[str], weights: Sequence[float], text: str,
           tokens: frozenset[str] = frozenset()) -> float:
    """Share of the weight of ``terms`` that ``text`` holds (``holds_term``) or its index
    ``tokens`` hold (a stem such as ``juli`` is no substring of ``july``); 1 without terms."""
    total = sum(weights)
    if not total:
        return 1.0
    return sum(w for t, w in zip(terms, weights, strict=True)
               if t in tokens or holds_term(t, text)) / total


def support_features(
    question: str,
    key_terms: Sequence[str],
    unit: str,
    context: Sequence[str] = (),
    chunk_text: str = "",
    *,
    name_terms: Sequence[str] = (),
    normalize: Callable[[str], str] | None = None,
    path: str = "",
    retrieval: float | None = None,
    analyse: Callable[[str], Iterable[str]] | None = None,
    document: Callable[[Sequence[str]], set[str]] | None = None,
) -> dict[str, float]:
    """The support features of one answer (see the module docstring), all in [0, 1] but
    ``n_terms`` (``log1p`` of a count) — ``retrieval`` and its per-language forms left out
    when ``None``; also ``zh`` and ``retrieval``, recorded for the record.

    :param question: the question as asked (any language).
    :param key_terms: its key terms in the tokenizer's normal form (``Tokenizer.key_terms``).
    :param unit: the quoted answer unit (verbatim document text).
    :param context: the unit's context strings: chunk title, section path, path, table header.
    :param chunk_text: the text of the unit's chunk (``""``: the unit alone).
    :param name_terms: the question's names in normal form (``Tokenizer.name_terms``).
    :param normalize: text → the key terms' normal form (default NFKC + lower case).
    :param path: the unit's document path (its suffix gives the document kind).
    :param retrieval: the retrieval's calibrated confidence (0..1), when the path has one.
    :param analyse: text → its index terms (``Tokenizer.terms``: stemmed), so a stemmed key
        term matches the word it came from; default: substring matching only.
    :param document: terms → those the answer's document holds
        (``corpus.document_vocabulary.DocumentVocabulary.held`` bound to the collection and
        document; blocking, may raise); ``None``: ``doc_cov`` and ``doc_name_cov`` are 1.
    """
    norm = normalize or (lambda s: unicodedata.normalize("NFKC", s).lower())
    terms = [t for t in dict.fromkeys(key_terms) if t]
    names = frozenset(name_terms)
    weights = [term_weight(t, names) for t in terms]
    u = norm(unit)
    ctx = norm(" ".join(context))
    chunk = norm(chunk_text) if chunk_text else u
    nq = norm(question)
    specific = list(specific_terms(terms, nq, dates=False))
    named = [t for t in dict.fromkeys(name_terms) if t]

    def toks(text: str) -> frozenset[str]:
        return frozenset(analyse(text)) if analyse is not None else frozenset()

    t_unit, t_ctx = toks(unit), toks(" ".join(context))
    t_chunk = toks(chunk_text) | t_unit | t_ctx
    held_doc = document([*terms, *named]) if document is not None else None
    out = {
        "unit_cov": _share(terms, weights, u, t_unit),
        "ctx_cov": _share(terms, weights, f"{u}\n{ctx}", t_unit | t_ctx),
        "chunk_cov": _share(terms, weights, f"{chunk}\n{u}\n{ctx}", t_chunk),
        "name_cov": _share(named, [1.0] * len(named), f"{chunk}\n{u}\n{ctx}", t_chunk),
        "specific_cov": _share(specific, [1.0] * len(specific), f"{u}\n{ctx}", t_unit | t_ctx),
        "doc_cov": 1.0 if held_doc is None else _held_share(terms, weights, held_doc),
        "doc_name_cov": 1.0 if held_doc is None else _held_share(named, [1.0] * len(named),
                                                                   held_doc),
        "figure_match": 0.0 if asks_quantity(question) and not holds_figure(u, terms) else 1.0,
        "n_terms": math.log1p(len(terms)),
        "zh": 1.0 if _CJK.search(question) else 0.0,
        "pdf": 1.0 if path.lower().endswith(".pdf") else 0.0,
        # recorded, no model feature: an answer in another script than its question (an
        # English question on Chinese passages) shares no words with it (off_document)
        "other_script": 1.0 if other_script(script_share(question),
                                            script_share(f"{unit}\n{' '.join(context)}")) else 0.0,
    }
    if retrieval is not None:
        out["retrieval"] = float(retrieval)
    return with_language_forms(out)


def with_language_forms(features: Mapping[str, float]) -> dict[str, float]:
    """``features`` with the per-language forms added (``ctx_zh`` from ``ctx_cov`` and
    ``zh``; ``retrieval_en`` / ``retrieval_zh`` from ``retrieval`` when present), so records
    of runs that stored only the base features can be refitted."""
    out = dict(features)
    zh = float(out.get("zh", 0.0))
    if "ctx_cov" in out:
        out["ctx_zh"] = float(out["ctx_cov"]) * zh
    if "retrieval" in out:
        out["retrieval_en"] = float(out["retrieval"]) * (1.0 - zh)
        out["retrieval_zh"] = float(out["retrieval"]) * zh
    return out


def _held_share(terms: Sequence[str], weights: Sequence[float], held: set[str]) -> float:
    total = sum(weights)
    if not total:
        return 1.0
    return sum(w for t, w in zip(terms, weights, strict=True) if t in held) / total


@dataclass(frozen=True, slots=True)
class SupportModel:
    """The calibrated answer-support decision: ``p = sigmoid(b + Σ w_i (x_i - m_i) / s_i)``
    over :data:`SUPPORT_FEATURES`; a feature missing from an answer's features is imputed by
    its mean. ``p < threshold`` means "not found".

    Usage example::

        model = SupportModel.load()                       # corpus/answer_support.json
        feats = support_features(q, terms, unit, ctx, chunk_text)
        found = model.score(feats) >= model.threshold_for(feats, "rag")

    :param names: feature names; ``weights``, ``means``, ``stds`` align with them.
    :param bias: intercept. :param threshold: the RAG path's refusal threshold in [0, 1] (0:
        never refuse). :param loop_threshold: the LoopAgent's (its own coverage floor refuses
        first, so its runs get their own threshold).
    :param meta: provenance (runs, n, AUROC, budget) — informative only.
    :param languages: per-language weights and thresholds (``"en"``, ``"zh"``: the question is
        Chinese when its ``zh`` feature is 1), each a model of its own; a language without one
        uses these (per-language calibration: on the dev runs one pooled model ranked Chinese
        answers worse than their retrieval confidence, AUROC 0.92 → 0.75 on DRCD/CMRC; and its
        probabilities are far sharper — a Chinese answer from a document that is not in the
        collection scores below 0.01 where an English one scores 0.4 — so each language gets
        its own refusal threshold: :meth:`threshold_for`).
    """

    names: tuple[str, ...]
    weights: tuple[float, ...]
    means: tuple[float, ...]
    stds: tuple[float, ...]
    bias: float
    threshold: float
    meta: Mapping[str, Any]
    loop_threshold: float = 0.0
    languages: Mapping[str, SupportModel] = field(default_factory=dict)

    def score(self, features: Mapping[str, float]) -> float:
        """The probability in [0, 1] that the answer holds what was asked (by the model of the
        question's language when there is one)."""
        own = self.languages.get("zh" if float(features.get("zh", 0.0)) > 0 else "en")
        if own is not None:
            return own.score(features)
        z = self.bias
        for name, w, m, s in zip(self.names, self.weights, self.means, self.stds, strict=True):
            z += w * (float(features.get(name, m)) - m) / (s or 1.0)
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def threshold_for(self, features: Mapping[str, float], mode: str = "rag") -> float:
        """The refusal threshold in [0, 1] for an answer with these features on path ``mode``
        (``"rag"`` or ``"loop"``): its language model's when there is one, else this model's;
        ``math.inf`` (every probability refused) for an answer :func:`off_document`.
        """
        if off_document(features):
            return math.inf
        own = self.languages.get("zh" if float(features.get("zh", 0.0)) > 0 else "en", self)
        return own.loop_threshold if mode == "loop" else own.threshold

    def refuses(self, mode: str = "rag") -> bool:
        """True when some answer on path ``mode`` can fall below a threshold (one above 0)."""
        return any((m.loop_threshold if mode == "loop" else m.threshold) > 0
                   for m in (self, *self.languages.values()))

    def answers(self, features: Mapping[str, float], mode: str = "rag") -> bool:
        """True when the answer clears its refusal threshold (:meth:`threshold_for`)."""
        return self.score(features) >= self.threshold_for(features, mode)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the model file's content)."""
        return {"model": "logistic", "features": list(self.names), "weights": list(self.weights),
                "means": list(self.means), "stds": list(self.stds), "bias": self.bias,
                "threshold": self.threshold, "loop_threshold": self.loop_threshold,
                "meta": dict(self.meta),
                "languages": {k: v.to_dict() for k, v in self.languages.items()}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SupportModel:
        """Rebuild from :meth:`to_dict` output.

        :raises SupportModelError: missing keys, unknown features, lengths that differ, or a
            threshold outside [0, 1].
        """
        try:
            names = tuple(str(n) for n in data["features"])
            arrays = [tuple(float(v) for v in data[k]) for k in ("weights", "means", "stds")]
            bias, threshold = float(data["bias"]), float(data["threshold"])
            loop_threshold = float(data.get("loop_threshold", 0.0))
        except (KeyError, TypeError, ValueError) as exc:
            raise SupportModelError(f"malformed support model: {exc!r}") from exc
        unknown = set(names) - set(SUPPORT_FEATURES)
        if unknown or any(len(a) != len(names) for a in arrays) or not (
                0.0 <= threshold <= 1.0 and 0.0 <= loop_threshold <= 1.0):
            raise SupportModelError(
                f"support model does not fit the features (unknown: {sorted(unknown)}, "
                f"threshold {threshold})")
        langs = data.get("languages") or {}
        if not isinstance(langs, Mapping):
            raise SupportModelError("malformed support model: languages is not a mapping")
        return cls(names, arrays[0], arrays[1], arrays[2], bias, threshold,
                   dict(data.get("meta") or {}), loop_threshold,
                   {str(k): cls.from_dict(v) for k, v in langs.items()})

    @classmethod
    def load(cls, path: Path | None = None) -> SupportModel | None:
        """The model in ``path`` (default: the packaged ``corpus/answer_support.json``);
        ``None`` when the packaged file does not exist (no decision, no refusal).

        :raises SupportModelError: an unreadable or malformed file.
        """
        target = Path(path) if path is not None else PACKAGED
        if path is None and not target.exists():
            return None
        try:
            return cls.from_dict(json.loads(target.read_text("utf-8")))
        except (OSError, json.JSONDecodeError) as exc:
            raise SupportModelError(f"cannot read support model {target}: {exc}") from exc
