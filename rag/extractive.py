"""Extractive answer without an LLM: the best evidence sentences or table rows of the top
chunks, each with a verified verbatim quote and its page and lines.

Units and scoring come from the shared evidence layer (``corpus.evidence``): ``"quote"``-style
units (a sentence, or in a table chunk one body row), scored by the question's key terms they
hold (:class:`corpus.evidence.UnitScorer`: numbers and codes weigh double, every term once, a
term only in the unit's context counts the context credit) and lightly normalised by length.
What is the RAG path's own: a rank prior ``1 / (1 + rank_decay * item_rank)``, a question
naming a page ("page 3", "第3页") weighing units of chunks on that page 3x (the page read by
its printed label first, :func:`corpus.page_labels.chunk_on_page`), a revision history's units
weighing ``changelog_weight`` unless the question asks about versions, and a figure factor for
questions asking a quantity (weights: ``corpus.tuning.TUNING.evidence``); the best few become
evidence. Every quote goes through ``corpus.citations.make_citation`` (verbatim check +
page/line mapping); a unit that does not verify is dropped, never shown. A unit that addresses
the reader as a model ("ignore previous instructions", "SYSTEM: …", 忽略之前的指令), or is cut
from such a line, is never evidence (:func:`corpus.injection.in_injection`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from corpus.citations import display_quote
from corpus.evidence import (
    TermMatcher,
    UnitScorer,
    asks_history,
    covered_weight,
    holds_figure_unit,
    length_norm,
    nfkc_lower,
    opens_revision_history,
    rank_prior,
    split_units,
)
from corpus.injection import in_injection
from corpus.labels import asked_item
from corpus.page_labels import chunk_on_page, page_refs
from corpus.presence import specific_terms
from corpus.statement_rows import asked_years, row_reading, row_weight
from corpus.term_match import holds_term
from corpus.tokenizer import asks_quantity
from corpus.tuning import TUNING
from corpus.types import Chunk, Citation
from rag.expand import QueryExpander
from rag.types import Evidence, Retrieval

__all__ = ["NOT_FOUND_TEXT", "answer_text", "display_text", "evidence_units", "extract_answer",
           "score_unit", "verified_evidence"]

NOT_FOUND_TEXT = "Not found: the documents retrieved do not answer this confidently."

CitationMaker = Callable[[Chunk, str], Citation | None]


def evidence_units(chunk: Chunk) -> list[str]:
    """Candidate quotes of a chunk, verbatim substrings of ``chunk.text``: sentences, or table
    body rows (``corpus.evidence.split_units`` in the ``"quote"`` style)."""
    return split_units(chunk, "quote")


def display_text(quote: str) -> str:
    """A quote on one line, as :func:`corpus.citations.display_quote` gives it (the form
    ``make_citation`` already returns): line breaks next to CJK characters dropped, other
    whitespace runs one space."""
    return display_quote(quote)


def _matcher(key_terms: Sequence[str], normalize: Callable[[str], str]) -> TermMatcher:
    """The RAG path's matcher: no tokenizer analysis, a digit-holding term weighs 2."""
    return TermMatcher(key_terms, normalize=normalize, weighting="digits")


def score_unit(
    unit: str, key_terms: Sequence[str], normalize: Callable[[str], str] | None = None,
    context: str = "",
) -> float:
    """Key-term evidence score of one unit (0 when it holds none of the terms); ``normalize``
    brings the unit to the key terms' form (default NFKC + lower case). A term missing from the
    unit but present in ``context`` (its chunk's title, section path and table header, already
    normalised) counts the context credit of its weight (``TUNING.evidence.context_credit``):
    a table row ``| 工作电压 | 3.0 V ~ 3.6 V |`` names neither the product nor the table, its
    context does (the scorer the LoopAgent uses too, ``corpus.evidence.covered_weight``).
    Terms holding a digit weigh 2 and match exactly (:func:`corpus.term_match.holds_term`:
    ``fw-301`` is not in ``fw-3010``); a repeated term counts once. The sum is divided by
    :func:`corpus.evidence.length_norm`."""
    m = _matcher(key_terms, normalize or nfkc_lower)
    own = m.credits(unit)
    if not own:
        return 0.0
    neg = m.negated(unit)  # "non-operating" is not lent "operating" by its heading
    ctx = {t: 1.0 for t in m.terms if context and holds_term(t, context) and t not in neg}
    return covered_weight(m, own, ctx) / length_norm(unit)


def extract_answer(
    retrieval: Retrieval,
    key_terms: Sequence[str],
    make_citation: CitationMaker,
    *,
    max_evidence: int = 3,
    normalize: Callable[[str], str] | None = None,
    tokenizer: Any = None,
) -> list[Evidence]:
    """Choose up to ``max_evidence`` verified evidence units from the retrieval's items.

    :param retrieval: the retrieval (items best first).
    :param key_terms: the question's key terms (normalised by the tokenizer).
    :param make_citation: ``corpus.citations.make_citation(chunk, quote) -> Citation | None``.
    :param normalize: text normaliser of the key terms' form (``Tokenizer.normalize``).
    :param tokenizer: ``corpus.tokenizer.Tokenizer`` (its ``terms``): a unit that only repeats
        the question's words (``TermMatcher.echoes``: a caption, a name) is quoted through the
        unit after it when the two are one run (``TermMatcher.past_echo``), as the LoopAgent
        does; ``None``: not.
    :returns: evidence best first; empty when nothing verifiable was found. A statement row
        chosen as evidence (``corpus.statement_rows``) gets as its ``reading`` the cell under
        the first year the question names (``corpus.presence.specific_terms``) that heads one
        of its columns.
    """
    # multi-word field phrases the query was expanded with ("purchases of property, plant and
    # equipment" for "capital expenditure") count as terms a unit may hold (rag.expand)
    terms = sorted(
        {t for t in QueryExpander.terms_for_evidence(key_terms, retrieval.expansions) if t.strip()}
    )
    # a question asking for a figure ("工作电压范围是多少") is answered by a unit holding one:
    # such units weigh TUNING.evidence.figure_factor (the answer figure is not among the key
    # terms, so term matching alone preferred an overview sentence naming the product);
    # digits of the question's own codes (ESP32-PICO-D4) are no figure
    tuning = TUNING.evidence
    figure = tuning.figure_factor if asks_quantity(retrieval.question) else 1.0
    norm = normalize or nfkc_lower
    scorer = UnitScorer(_matcher(terms, norm), "quote", label=asked_item(retrieval.question))
    echo = TermMatcher(key_terms, tokenizer) if tokenizer is not None else None
    pages = page_refs(retrieval.question)  # "page 3": the printed label first (page_labels)
    history = asks_history(retrieval.question)
    years = asked_years(specific_terms(key_terms, norm(retrieval.question)))
    # (score, order, unit, chunk, the chunks merged before it in its item: a period header of a
    # statement row may sit there, read only for the few units kept)
    scored: list[tuple[float, int, str, Chunk, Sequence[Chunk]]] = []
    order = 0
    for rank, item in enumerate(retrieval.items):
        prior = rank_prior(rank, tuning.rank_decay)
        for j, chunk in enumerate(item.chunks):
            on_page = 3.0 if pages and any(chunk_on_page(chunk, p) for p in pages) else 1.0
            if not history and opens_revision_history(chunk):
                # the innermost heading or the chunk's opening: a document whose title or
                # first heading is its revision history (a datasheet's) is not demoted whole
                on_page *= tuning.changelog_weight
            for u in scorer.units(chunk):  # units holding a key term, not excluded
                order += 1
                s = u.covered / length_norm(u.text) * prior * on_page
                if figure > 1.0 and holds_figure_unit(u.text, norm(u.text), terms):
                    # the statement row whose label the question names (corpus.statement_rows)
                    s *= figure * row_weight(u.text, terms, norm)
                scored.append((s, order, u.text, chunk, item.chunks[:j]))
    if not scored and retrieval.items:  # no key term anywhere: the top chunk's first sentence
        top = retrieval.items[0].chunk
        first = [u for u in evidence_units(top) if not in_injection(top.text, u)][:1]
        scored = [(1e-3, 0, first[0], top, ())] if first else []
    scored.sort(key=lambda t: (-t[0], t[1]))
    # an echoing unit through the next one: asked only of the units looked at (lazily)
    return verified_evidence(
        ((s, echo.past_echo(chunk, unit, "quote") if echo is not None else unit, chunk,
          partial(_reading, unit, chunk, before, years))
         for s, _, unit, chunk, before in scored),
        make_citation, max_evidence)


def verified_evidence(ranked: Iterable[tuple[float, str, Chunk, Callable[[], str]]],
                      make_citation: CitationMaker, max_evidence: int) -> list[Evidence]:
    """The first ``max_evidence`` distinct units of ``ranked`` (``(score, unit, chunk,
    reading)``, best first) whose quote verifies (``make_citation``); a unit seen before or not
    verified is skipped. ``reading()`` is called only for a unit kept (``Evidence.reading``)."""
    out: list[Evidence] = []
    seen: set[str] = set()
    for s, unit, chunk, reading in ranked:
        if unit in seen:
            continue
        seen.add(unit)
        cit = make_citation(chunk, unit)
        if cit is None:
            continue
        out.append(Evidence(text=unit, score=round(s, 4), citation=cit, reading=reading()))
        if len(out) >= max_evidence:
            break
    return out


def answer_text(evidence: Evidence) -> str:
    """The answer shown for the best evidence unit: its verified quote, led by how it reads
    when the unit is a statement row (``corpus.statement_rows.row_reading``: the asked period's
    cell, ``"Net income, 2019: $ 11,588 — Net income $ 3,033 $ 10,073 $ 11,588"``, else every
    cell with its period); every number in it is in the quoted row."""
    quote = evidence.citation.quote
    return f"{evidence.reading} — {quote}" if evidence.reading else quote


def _reading(unit: str, chunk: Chunk, before: Sequence[Chunk], years: Sequence[str]) -> str:
    """``corpus.statement_rows.row_reading`` of ``unit`` under the period header above it (in
    its chunk, or in ``before``, the chunks merged before it); ``""`` for no statement row."""
    at = chunk.text.find(unit)
    above = "\n".join([*(c.text for c in before), chunk.text[: max(at, 0)]])
    return row_reading(unit, above, years)
