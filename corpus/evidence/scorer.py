"""The evidence scorer: how much of a question's key-term weight one unit of a chunk covers.

One rule for both readers (the RAG path's extractive answer and the LoopAgent): a key term
counts its full weight when the unit holds it, ``context_credit`` of it when only the unit's
context does (its chunk's title, section path, path and table header, :func:`unit_context`; for
a statement row written as a text line also the chunk text above it, as a Markdown row is read
under its header row), and — where the reader asks for it — ``chunk_credit`` of it when the
term is elsewhere in the chunk. A unit holding no term itself is no evidence, nor is one
:func:`corpus.evidence.recognise.excluded` leaves out. Weights: ``corpus.tuning.TUNING.evidence``.

What each reader adds stays with it: the RAG path divides by a length norm
(:func:`length_norm`) and multiplies by a rank prior (:func:`rank_prior`), a page factor and
a figure factor; the LoopAgent divides by the total weight (coverage 0..1) and adds bonuses.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from corpus.evidence.recognise import excluded
from corpus.evidence.terms import TermMatcher
from corpus.evidence.units import UnitStyle, split_units
from corpus.labels import Label, item_of, opening_label
from corpus.statement_rows import parse_row
from corpus.term_match import code_terms, is_period
from corpus.tuning import TUNING
from corpus.types import Chunk

__all__ = ["ScoredUnit", "UnitScorer", "covered_weight", "length_norm", "rank_prior",
           "term_credits", "unit_context"]


def unit_context(chunk: Chunk) -> str:
    """The context of every unit of ``chunk``: title, section path, path and table header,
    space-joined (not normalised)."""
    return " ".join((chunk.title, *chunk.section_path, chunk.path, chunk.table_header()))


def term_credits(matcher: TermMatcher, own: Mapping[str, float],
                 context: Mapping[str, float], body: Mapping[str, float] | None = None, *,
                 context_credit: float = TUNING.evidence.context_credit,
                 chunk_credit: float = TUNING.evidence.chunk_credit) -> dict[str, float]:
    """Each key term's credit (0..1) for a unit: max(own credit, ``context_credit`` × context
    credit, ``chunk_credit`` × chunk credit), credits as :meth:`TermMatcher.credits` gives them
    (``body`` ``None``: no chunk credit)."""
    return {
        t: max(own.get(t, 0.0), context_credit * context.get(t, 0.0),
               chunk_credit * body.get(t, 0.0) if body is not None else 0.0)
        for t in matcher.terms
    }


def covered_weight(matcher: TermMatcher, own: Mapping[str, float],
                   context: Mapping[str, float], body: Mapping[str, float] | None = None, *,
                   context_credit: float = TUNING.evidence.context_credit,
                   chunk_credit: float = TUNING.evidence.chunk_credit) -> float:
    """Key-term weight a unit covers: Σ weight × :func:`term_credits`. 0 .. ``matcher.total``."""
    cr = term_credits(matcher, own, context, body, context_credit=context_credit,
                      chunk_credit=chunk_credit)
    return sum(w * cr[t] for t, w in zip(matcher.terms, matcher.weights, strict=True))


def rank_prior(rank: int, decay: float, scale: float = 1.0) -> float:
    """``scale / (1 + decay × rank)``: the prior of a unit whose chunk came ``rank``-th
    (0-based) in a retrieval or reading order."""
    return scale / (1.0 + decay * rank)


def length_norm(unit: str) -> float:
    """``log2(8 + len(unit) / 40)``: the RAG path's light length normalisation (3.0 for a
    0-character unit, 4.0 for 320 characters)."""
    return math.log2(8 + len(unit) / 40)


@dataclass(frozen=True, slots=True)
class ScoredUnit:
    """One unit of a chunk that holds a key term itself: ``text`` (verbatim), ``covered`` the
    key-term weight it covers (:func:`covered_weight`), ``own`` the credits of the terms in the
    unit itself, ``credit`` every term's credit (:func:`term_credits`; ``covered`` = Σ weight ×
    credit), to weigh the same unit under other term weights."""

    text: str
    covered: float
    own: Mapping[str, float]
    credit: Mapping[str, float] = field(default_factory=dict)


class UnitScorer:
    """Scores the units of chunks against one question's key terms.

    :param matcher: the question's :class:`TermMatcher`.
    :param style: the unit style (:data:`corpus.evidence.units.UnitStyle`).
    :param chunk_credit: also credit terms elsewhere in the chunk
        (``TUNING.evidence.chunk_credit``; the LoopAgent) — else not (the RAG path).
    :param row_context: read a statement row under the chunk text above it (the LoopAgent).
    :param label: the numbered item the question names (``corpus.labels.asked_item``: 第二十一条,
        第21条, Clause 4) or ``None``. Each unit's item is followed through the chunk
        (``corpus.labels.item_of``: the label opening it, else the last one above, else the
        section path's): the unit opening the asked item holds the label's terms (第二十一条 …
        holds 第21条), its later sentences hold them as context, and a unit of another item of
        that kind does not, whatever it cites ("第二十四条 违反本办法第二十一条规定的…" answers what
        第二十四条 says).

    Usage example::

        scorer = UnitScorer(TermMatcher(terms, tok), "scan", chunk_credit=True, row_context=True)
        for u in scorer.units(chunk):
            coverage = u.covered / scorer.matcher.total
    """

    def __init__(self, matcher: TermMatcher, style: UnitStyle, *, chunk_credit: bool = False,
                 row_context: bool = False, label: Label | None = None) -> None:
        self.matcher, self.style = matcher, style
        self.chunk_credit, self.row_context = chunk_credit, row_context
        self.codes = code_terms(matcher.terms)
        self.label = label
        self._label_terms = frozenset(matcher.credits(label.text) if label is not None else ())
        # a question asking more than a period: a unit holding only its years is no evidence;
        # the number of an asked item is no period (第21条's "21": a new-user trial's
        # "第21条规定了什么？" skipped 第二十一条's own unit as holding only a year)
        self._periods = frozenset(t for t in matcher.terms
                                  if is_period(t) and t not in self._label_terms)
        self._asks_more = bool(self._periods) and any(t not in self._periods
                                                      for t in matcher.terms)

    def units(self, chunk: Chunk) -> Iterator[ScoredUnit]:
        """The units of ``chunk`` that hold a key term and are not
        :func:`~corpus.evidence.recognise.excluded`, in document order."""
        m, label = self.matcher, self.label
        ctx = m.credits(unit_context(chunk))
        body = m.credits(chunk.text) if self.chunk_credit else None
        context_held = [t for t, c in ctx.items() if c > 0]
        item = item_of("", "", chunk.section_path, label.kind) if label is not None else None
        for unit in split_units(chunk, self.style):
            own = m.credits(unit)
            in_item: dict[str, float] = {}
            other = False  # a unit of another item: the label's terms get no credit at all
            if label is not None:
                opening = opening_label(unit, label.kind)
                item = opening or item
                if item is not None and item.number != label.number:
                    own = {t: c for t, c in own.items() if t not in self._label_terms}
                    other = True
                elif opening is not None:  # 第二十一条 … holds 第21条
                    own = {**own, **dict.fromkeys(self._label_terms, 1.0)}
                elif item is not None:  # a later sentence: its item's label is its context
                    in_item = dict.fromkeys(self._label_terms, 1.0)
            if own and self._asks_more and all(t in self._periods for t in (*own, *context_held)):
                continue  # only the year asked ("… opens in May 2021" for revenue in 2021)
            if (not own and not in_item) or excluded(chunk, unit, self.codes, m.normalize):
                # no term (a sentence of the asked item holds its label as context: "What does
                # Clause 4 say?" is answered by the text under "## Clause 4 Service Levels"),
                # another code of the family, or an order to a model (corpus.injection)
                continue
            context = {**ctx, **in_item} if in_item else ctx
            if self.row_context and not unit.startswith("|") and parse_row(unit) is not None:
                # a statement row is read under the lines above it (company, statement, unit,
                # periods), as a Markdown row under its header row: they are its context
                head = m.credits(chunk.text[:max(0, chunk.text.find(unit))])
                context = {t: max(context.get(t, 0.0), head.get(t, 0.0)) for t in {*context, *head}}
            if neg := m.negated(unit):  # "non-operating" is not lent "operating" by its heading
                context = {t: c for t, c in context.items() if t not in neg}
            cr = term_credits(m, own, context,
                              {t: c for t, c in body.items() if t not in neg}
                              if body is not None and neg else body)
            if other:  # nor from its chunk (第二十五条 citing 第二十一条: not 第二十一条's text)
                cr = {t: 0.0 if t in self._label_terms else c for t, c in cr.items()}
            yield ScoredUnit(unit, sum(w * cr[t] for t, w in zip(m.terms, m.weights, strict=True)),
                             own, cr)
