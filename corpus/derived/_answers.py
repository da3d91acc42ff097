"""The derived and looked-up answers: a change between two years, a defined or asked formula,
or one year's figure read from a statement row, each with the rows to cite
(``corpus.derived``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from corpus.derived._asked import asked_phrase
from corpus.derived._evaluate import formula_answer
from corpus.derived._numbers import converted, decimals_of, fmt, years_in
from corpus.derived._rows import (
    best_row,
    cell_value,
    chunks_above,
    document_search,
    statement_rows_of,
)
from corpus.derived._superlative import asks_superlative, superlative_answer
from corpus.derived._types import (
    CitationMaker,
    Derived,
    KeyTerms,
    MoreRows,
    Normalize,
    RowAt,
    TermsOf,
    TextAbove,
)
from corpus.formula import definitions
from corpus.statement_rows import asked_unit, label_cover
from corpus.tokenizer import asks_quantity
from corpus.types import Chunk, ChunkStore, Citation, SparseVector

__all__ = ["computable", "derive", "derived_answer", "looked_up_answer", "looks_up",
           "statement_figure"]

_CHANGE = re.compile(r"\b(?:chang|grow|increas|decreas|declin)(?:e|es|ed|th|ing)?\b", re.I)
# an absolute difference between two years' figures ("the difference between Netflix's 2017
# and 2016 revenues", "how much higher was …"): the two cells subtracted, not a percent change
_DIFFERENCE = re.compile(r"\bdifferen(?:ce|tial)s?\b|\bhow\s+much\s+(?:more|less|higher|lower)\b",
                         re.I)
_RATE = re.compile(r"\b(?:rates?|percent(?:age)?s?)\b|%", re.I)  # a change asked as a rate


# label words a question asking one figure often leaves unsaid: "cash flow from operating
# activities" names "Net cash provided by operating activities" (written while looking at the
# FinanceBench dev questions; words of statement labels, not of any one filing)
_LOOKUP_SILENT = re.compile(r"\b(?:net|total|provided|used)\b", re.I)
# a line item asked by name before its year, no quantity word: "What was Netflix's interest
# expense in 2017?", "What is ACME's operating income for FY2015?", "… long-term debt at the end
# of 2016?" (new-user trials: answered by another row or a sentence)
_ITEM_ASKED = re.compile(
    r"^\s*what\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w&.-]+['’]s?\s+)?"
    r"(?:(?:fy\s*)?\d{4}\s+)?(?P<item>[a-z][a-z&' -]*?)\s+(?:in|for|at|as\s+of|during)\s+"
    r"(?:the\s+)?(?:end\s+of\s+)?(?:(?:the\s+)?fiscal\s+(?:year\s+)?|fy\s*)?\d{4}\s*\??\s*$",
    re.I)


def _form(question: str) -> tuple[str, str] | tuple[str, list[str]] | None:
    """The computable form of a question: ``("ratio", expression)`` for a defined ratio,
    ``("change", [earlier, later])`` for a change between two years, ``("yoy", [earlier,
    later])`` for a change asked as a rate or percentage of one year (from the year before it),
    else ``None``."""
    if definitions(question) or asked_phrase(question) is not None:
        return "formula", question
    years = years_in(question)
    if (_CHANGE.search(question) or _DIFFERENCE.search(question)) and len(years) == 2:
        return "change", sorted(years)
    if _CHANGE.search(question) and len(years) == 1 and _RATE.search(question):
        # "the growth rate of X in FY2018": the year-over-year change, FY2017 to FY2018, of a
        # row the question names wholly (one year says less of the row than two)
        return "yoy", [str(int(years[0]) - 1), years[0]]
    return None


def computable(question: str) -> bool:
    """True when the question has a form :func:`derive` computes (a defined ratio, or a change
    between two years) or asks for the largest or smallest item of a kind
    (:func:`corpus.derived._superlative.asks_superlative`): a cheap test before any chunk is
    read."""
    return _form(question) is not None or asks_superlative(question) is not None


def derive(question: str, rows: Sequence[RowAt],
           terms_of: TermsOf,
           normalize: Normalize, more: MoreRows | None = None,
           above: TextAbove | None = None) -> Derived | None:
    """The figure the question asks to compute from ``rows``, or ``None``.

    :param question: the question as asked.
    :param rows: statement rows of the retrieved chunks (:func:`statement_rows_of`), best first.
    :param terms_of: ``(key terms, key terms + field phrases)`` of a phrase
        (``Tokenizer.key_terms``; ``rag.expand`` phrases), to match a side to a row label.
    :param normalize: the key terms' normaliser (``Tokenizer.normalize``).
    :param more: where a formula's line item no row of ``rows`` holds is searched for
        (:data:`MoreRows`; ``None``: only ``rows``); ``above``: the text before a found chunk
        (:data:`TextAbove`), for its rows' period header.
    :returns: the derived figure with the rows to cite; ``None`` when the question defines no
        computable form or a row or cell is missing.
    """
    form = _form(question)
    if form is None or not (rows or (more is not None and form[0] == "formula")):
        return None
    if form[0] == "formula":
        assert isinstance(form[1], str)
        return formula_answer(question, definitions(question), rows, terms_of, normalize, more,
                              above)
    assert isinstance(form[1], list)
    return _change(question, form[1], rows, terms_of, normalize, whole=form[0] == "yoy")


def _change(question: str, years: list[str], rows: Sequence[RowAt],
            terms_of: TermsOf,
            normalize: Normalize, whole: bool = False) -> Derived | None:
    """The change of the row the question names best (``whole``: names wholly, as a lookup
    does) between the two years: in percent, in percentage points for a row of rates, or the
    later cell less the earlier when the question asks a difference ("the difference between
    … 2017 and 2016 revenues"; not as a rate)."""
    terms = terms_of(_STATEMENT_NAME.sub(" ", question))
    # named wholly, its "total" / "net" words aside ("revenue" names "Total revenue") or by a
    # field phrase ("revenue" names "Total net sales")
    r = ((best_row(rows, terms, years, normalize, min_cover=1.0, silent=_LOOKUP_SILENT)
          or best_row(rows, terms, years, normalize, min_cover=1.0)) if whole
         else best_row(rows, terms, years, normalize))
    if r is None:
        return None
    a, b = cell_value(r, years[0]), cell_value(r, years[1])
    d = decimals_of(question, 1)
    if any(c.percent for c in r.row.cells):  # a rate changes by percentage points
        value = round(b - a, d)
        text = (f"{value:+.{d}f} percentage points change in {r.row.label} from {years[0]} to "
                f"{years[1]}: {fmt(b)}% − {fmt(a)}% — {r.unit}")
        return Derived(text, value, (r,))
    if _DIFFERENCE.search(question) and not _RATE.search(question):
        value = round(b - a, d)  # the difference asked: the later cell less the earlier
        # in the cells' currency and scale ("$6 million", a helper's trial read a bare "6")
        money = "$" if any("$" in c.raw for c in r.row.cells) else ""
        scale = f" {r.scale.removesuffix('s')}" if r.scale else ""
        text = (f"{money}{fmt(value)}{scale} difference in {r.row.label} between {years[1]} and "
                f"{years[0]}: {fmt(b)} − {fmt(a)} — {r.unit}")
        return Derived(text, value, (r,))
    if a == 0:
        return None
    value = round((b - a) / abs(a) * 100.0, d)
    text = (f"{value:.{d}f}% change in {r.row.label} from {years[0]} to {years[1]}: "
            f"({fmt(b)} − {fmt(a)}) / {fmt(abs(a))} = {value:.{d}f}% — {r.unit}")
    return Derived(text, value, (r,))


def _label_terms(text: str, key_terms: KeyTerms,
                 phrases: KeyTerms | None
                 ) -> tuple[Sequence[str], Sequence[str]]:
    """``(own, expanded)``: the key terms of ``text``, and those plus its multi-word field
    phrases (``rag.expand``: "revenue" → "total net sales"), the terms a row label may match."""
    own = list(key_terms(text))
    extra = [p for p in (phrases(text) if phrases is not None else []) if " " in p or "&" in p]
    return own, [*own, *extra]


def derived_answer(question: str, chunk_groups: Sequence[Sequence[Chunk]], key_terms: KeyTerms,
                   normalize: Normalize, make_citation: CitationMaker,
                   phrases: KeyTerms | None = None, more: MoreRows | None = None,
                   above: TextAbove | None = None) -> tuple[str, list[Citation]] | None:
    """The computed answer with a verified citation of every row it used, or ``None`` (no
    computable form, a row or cell missing, or a row quote that does not verify).

    :param question: the question as asked.
    :param chunk_groups: runs of adjacent chunks, best first (the retrieval's items' chunks,
        or the chunks a LoopAgent read: :func:`adjacent_runs`).
    :param key_terms: ``Tokenizer.key_terms``; ``normalize``: ``Tokenizer.normalize``.
    :param make_citation: ``corpus.citations.make_citation``.
    :param phrases: the field phrases a text expands to (``rag.expand.QueryExpander.phrases``;
        ``None``: key terms only). Multi-word phrases join the key terms a row label may match.
    :param more: a search for a formula's line item missing from ``chunk_groups``
        (:func:`document_search`; ``None``: none).
    :param above: the text before a chunk, read for a row without a period header
        (:func:`chunks_above`; ``None``: the groups alone).
    """
    if not computable(question):  # most questions: no line of any chunk is parsed
        return None
    d = derive(question, statement_rows_of(chunk_groups, above),
               lambda text: _label_terms(text, key_terms, phrases), normalize, more, above)
    if d is None:
        return None
    cits = [make_citation(r.chunk, r.unit) for r in d.rows]
    if any(c is None for c in cits):
        return None
    return d.text, [c for c in cits if c is not None]


# balance sheet") is no line item: its words must not name a row ("Net income")
_STATEMENT_NAME = re.compile(
    r"\b(?:(?:consolidated\s+)?statements?\s+of\s+(?:income|operations|earnings|cash\s*flows?"
    r"|financial\s+position|comprehensive\s+income)|income\s+statements?|balance\s+sheets?"
    r"|cash\s*flow\s+statements?|p\s*&\s*l(?:\s+statements?)?)\b", re.I)


def looks_up(question: str) -> bool:
    """True when :func:`looked_up_answer` may answer ``question``: it asks for a figure of
    exactly one year, has no computable form and asks no change (the year's own figure does
    not answer "how much did revenue increase in 2019?"; a cheap test before any chunk is
    read)."""
    return (len(years_in(question)) == 1 and not computable(question)
            and (asks_quantity(question) or _ITEM_ASKED.match(question) is not None)
            and not _CHANGE.search(question))


def looked_up_answer(question: str, chunk_groups: Sequence[Sequence[Chunk]],
                     key_terms: KeyTerms, normalize: Normalize, make_citation: CitationMaker,
                     phrases: KeyTerms | None = None, above: TextAbove | None = None
                     ) -> tuple[str, list[Citation]] | None:
    """A figure looked up in a statement row: for a question asking for a figure
    (:func:`corpus.tokenizer.asks_quantity`, or a line item named before its year: "What was
    Netflix's interest expense in 2017?" — then the row's label is that item, no word more or
    less) of exactly one year and not computable, the row
    whose label the question names wholly (every label word but ``net``, ``total``,
    ``provided``, ``used``, by its key terms or field phrases)
    with a value under that year's column, as ``"<label>, <year>: <cell> — <row>"`` with the
    row's verified citation; ``None`` otherwise. Arguments as :func:`derived_answer`.

    The caller decides where the rows may come from: a LoopAgent uses it only on the chunks it
    read inside the documents the question was resolved to (a look-alike filing's row would
    answer with another company's figure)."""
    if not looks_up(question):
        return None
    years = years_in(question)
    item = None if asks_quantity(question) else _ITEM_ASKED.match(question)
    asked = item.group("item") if item else _STATEMENT_NAME.sub(" ", question)
    r = best_row(statement_rows_of(chunk_groups, above), _label_terms(asked, key_terms, phrases),
                  years, normalize, min_cover=1.0, silent=_LOOKUP_SILENT)
    if r is None or r.years is None:
        return None
    if item and label_cover(asked, key_terms(r.row.label), normalize) < 1.0:
        return None  # an item asked by name is the row's label, no word more ("Interest
        # expense", not "Interest and other income (expense)" for "interest expense")
    cit = make_citation(r.chunk, r.unit)
    if cit is None:
        return None
    cell = r.row.cells[r.years.index(years[0])]
    scaled = converted(cell.value, r.scale, asked_unit(question)) if cell.value is not None \
        else ""
    return f"{r.row.label}, {years[0]}: {cell.raw}{scaled} — {cit.quote}", [cit]


def statement_figure(question: str, chunk_groups: Sequence[Sequence[Chunk]],
                     key_terms: KeyTerms, normalize: Normalize, make_citation: CitationMaker,
                     phrases: KeyTerms | None, store: ChunkStore | None, collection: str,
                     encode: Callable[[str], SparseVector] | None = None,
                     search_doc: str | None = None) -> tuple[str, list[Citation]] | None:
    """The figure a question asks of the statement rows of ``chunk_groups``, the one way the
    RAG path (``rag.compose``) and the LoopAgent (``loop.answer_checks``) read it: computed
    (:func:`derived_answer`) when the question has a computable form, else the row that holds
    it (:func:`looked_up_answer`), or for the largest or smallest item of a kind the item row
    of its statement section (:func:`corpus.derived._superlative.superlative_answer`); ``None``
    when none answers. A row's period header may be
    read in the chunks above it in ``store`` (:func:`chunks_above`; ``None``: no store read),
    and a formula's line item missing from the groups is searched for
    (:func:`document_search`, in ``search_doc`` until a row is read) when ``encode`` (the
    tokenizer's ``sparse_query``) is given. Other arguments as :func:`derived_answer`."""
    above = chunks_above(store, collection) if store is not None else None
    if asks_superlative(question) is not None:
        return superlative_answer(question, chunk_groups, key_terms, make_citation, store,
                                  collection, above)
    if not computable(question):
        return looked_up_answer(question, chunk_groups, key_terms, normalize, make_citation,
                                phrases, above)
    more = (document_search(store, collection, encode, search_doc)
            if store is not None and encode is not None else None)
    return derived_answer(question, chunk_groups, key_terms, normalize, make_citation, phrases,
                          more, above)
