"""The LoopAgent's evidence ranking (the offline policy's answer, and the controller's answer
from the evidence read so far when a budget ends the loop), over the shared evidence layer
(``corpus.evidence``: ``"scan"``-style units, :class:`TermMatcher`, :class:`UnitScorer` with
the chunk credit and a statement row's context above it).

What is the loop's own: coverage (0..1 of the key-term weight) as the measure, a figure bonus
added (not multiplied, as the RAG path does), the chunk-id bonuses of the policy (search rank,
revision-history penalty). Pure functions, no I/O. A unit is always a verbatim substring of
its chunk, so it can be quoted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from corpus.evidence import (
    TermMatcher,
    UnitScorer,
    holds_figure_unit,
    term_weight,
)
from corpus.evidence import asks_revision as asks_revision
from corpus.evidence import split_units as _split_units
from corpus.evidence import under_revision_heading as is_revision_history
from corpus.labels import Label
from corpus.statement_rows import row_weight
from corpus.tokenizer import asks_quantity
from corpus.tuning import TUNING
from corpus.types import Chunk

__all__ = [
    "Evidence",
    "TermMatcher",
    "asks_quantity",
    "asks_revision",
    "best_evidence",
    "is_revision_history",
    "split_units",
    "spread_weights",
    "term_weight",
]


def split_units(chunk: Chunk, max_len: int = 300) -> list[str]:
    """The LoopAgent's units of ``chunk``: ``corpus.evidence.split_units`` in the ``"scan"``
    style (sentences and table rows, ≥ 4 characters, cut at ``max_len``)."""
    return _split_units(chunk, "scan", max_len)


@dataclass(frozen=True, slots=True)
class Evidence:
    """One candidate evidence unit: ``text`` (verbatim in ``chunk``), ``coverage`` 0..1 of the
    key-term weight, ``matched`` terms, ``rank`` of its chunk in the input, ``score`` the
    ranking score (coverage + the bonuses of :func:`best_evidence`), ``plain`` that score
    with the coverage under the matcher's own weights (``None``: ``score``; equal to it
    without ``rank_weights``)."""

    chunk: Chunk
    text: str
    coverage: float
    matched: tuple[str, ...]
    rank: int
    score: float = 0.0
    plain: float | None = None


def best_evidence(
    chunks: Sequence[Chunk],
    matcher: TermMatcher,
    limit: int = 5,
    bonus: Mapping[str, float] | None = None,
    number_bonus: float = TUNING.evidence.number_bonus,
    figure_rows: bool = False,
    rank_weights: Mapping[str, float] | None = None,
    label: Label | None = None,
) -> list[Evidence]:
    """Units of ``chunks`` ranked by key-term coverage (ties: earlier chunk, shorter unit).

    Coverage: :class:`corpus.evidence.UnitScorer` with the chunk credit and a statement row's
    context above it, divided by the total key-term weight. ``number_bonus`` is added for units
    holding a figure (larger for questions asking for a quantity, see :func:`asks_quantity`).
    ``figure_rows`` (a question asking for a figure): the coverage part of the ranking score of
    a statement row holding a figure is multiplied by
    :func:`corpus.statement_rows.row_weight` (1 + label cover), as the RAG path's extractive
    answer weighs it (``rag.extractive``). ``bonus`` (by chunk id) is added to the ranking
    score only (e.g. the chunk's normalised search score, which carries the corpus IDF that
    key-term coverage lacks). ``rank_weights`` (by term; :func:`spread_weights`): the
    coverage part of the ranking score is read under these weights instead of the matcher's
    (``coverage`` stays the matcher's: the floors read it). Units naming another code of the
    question's family, or
    addressing the reader as a model, are left out (``corpus.evidence.excluded``).
    ``label``: the numbered item the question names (``corpus.labels.asked_item``): units are
    credited its terms by the item they sit in, not by the labels they cite
    (``corpus.evidence.UnitScorer``).
    :returns: at most ``limit`` evidence units with at least one term in the unit itself.
    """
    if not matcher.terms:
        return []
    scorer = UnitScorer(matcher, "scan", chunk_credit=True, row_context=True, label=label)
    rw = rank_weights or {}
    rank_total = sum(rw.values())
    out: list[tuple[float, int, int, Evidence]] = []
    for rank, chunk in enumerate(chunks):
        for u in scorer.units(chunk):
            matched = {t for t, c in u.own.items() if c >= 1.0}
            cov = u.covered / matcher.total
            rcov = (sum(w * u.credit.get(t, 0.0) for t, w in rw.items()) / rank_total
                    if rank_total > 0 else cov)
            figure = holds_figure_unit(u.text, matcher.normalize(u.text), matched)
            weight = (row_weight(u.text, matcher.terms, matcher.normalize)
                      if figure_rows and figure else 1.0)
            extra = (number_bonus if figure else 0.0) + (bonus or {}).get(chunk.chunk_id, 0.0)
            score = rcov * weight + extra
            ev = Evidence(chunk, u.text, round(cov, 4), tuple(sorted(matched)), rank, score,
                          cov * weight + extra)
            out.append((-score, rank, len(u.text), ev))
    out.sort(key=lambda x: x[:3])
    return [e for *_, e in out[:limit]]


def spread_weights(matcher: TermMatcher, chunks: Sequence[Chunk], discount: float,
                   min_chunks: int = 3) -> dict[str, float] | None:
    """Ranking weights of ``matcher``'s terms over the chunks read: a term's weight times
    ``1 - discount x share``, ``share`` the fraction of ``chunks`` whose
    :meth:`Chunk.context_text` holds it — a term every chunk read holds (the product or
    organisation a question names, inside its own document) tells no unit from another, and
    a row or sentence holding the asked attribute should not lose to one naming the subject
    again. ``None`` (the matcher's weights) under ``min_chunks`` chunks or when no term is
    spread."""
    if len(chunks) < min_chunks or discount <= 0 or not matcher.terms:
        return None
    held = [matcher.credits(c.context_text()) for c in chunks]
    share = {t: sum(1 for h in held if h.get(t, 0.0) >= 1.0) / len(chunks)
             for t in matcher.terms}
    if not any(share.values()):
        return None
    return {t: w * (1.0 - discount * share[t])
            for t, w in zip(matcher.terms, matcher.weights, strict=True)}
