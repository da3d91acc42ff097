"""Statement rows read from retrieved chunks, and the small helpers every derived figure uses:
years and rounding asked in a question, the best row for a phrase, a cell's value, a scale
conversion (``corpus.derived``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus.statement_rows import (
    UNITS,
    StatementRow,
    label_cover,
    parse_row,
    period_header,
    table_unit,
)
from corpus.tuning import TUNING
from corpus.types import Chunk, ChunkStore, SearchFilter, SparseVector

__all__ = ["AVERAGE", "YEAR", "Derived", "KeyTerms", "MoreRows", "Normalize", "RowAt", "TermsOf",
           "TextAbove", "adjacent_runs",
           "best_row", "cell_value", "chunks_above", "converted", "decimals_of", "document_search",
           "fmt", "statement_rows_of", "years_in"]

YEAR = re.compile(r"(?<!\d)(?:fy|fiscal(?: year)?\s*)?((?:19|20)\d{2})(?!\d)", re.I)
AVERAGE = re.compile(r"\baverage\b", re.I)
_DECIMALS = re.compile(r"\b(one|two|three|four|zero|\d)\s+decimal", re.I)
_WORD_NUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4}
_MIN_COVER = 0.5  # a row answers a side when the side's words name half its label or more

@dataclass(frozen=True, slots=True)
class RowAt:
    """A statement row found in a retrieved chunk: the ``unit`` (verbatim line), the parsed
    ``row``, the ``years`` heading its cells (``None`` when no header was found) and the
    ``chunk`` it is quoted from, and the ``scale`` its statement writes cells in
    (``"millions"``, :func:`corpus.statement_rows.table_unit`; ``None`` when not written)."""

    unit: str
    row: StatementRow
    years: tuple[str, ...] | None
    chunk: Chunk
    scale: str | None = None


@dataclass(frozen=True, slots=True)
class Derived:
    """A computed figure: ``text`` (result, then the cells and the arithmetic), ``value`` (the
    rounded result), ``rows`` (the rows used, each to be cited)."""

    text: str
    value: float
    rows: tuple[RowAt, ...]


#: text -> its key terms (``Tokenizer.key_terms``); text -> the key terms' normal form
#: (``Tokenizer.normalize``); text -> ``(key terms, key terms + field phrases)`` of a phrase
KeyTerms = Callable[[str], Sequence[str]]
Normalize = Callable[[str], str]
TermsOf = Callable[[str], tuple[Sequence[str], Sequence[str]]]

# chunk -> the text of the chunks before it in its document (a statement's period header and
# scale often sit a page part or three above the row: a table split into chunks)
TextAbove = Callable[[Chunk], str]



# (search text, document id or None) -> runs of adjacent chunks of that document holding it: the
# rows of a line item no retrieved chunk holds (the balance sheet when the income statement
# was retrieved), looked up inside the document the formula reads
MoreRows = Callable[[str, str | None], Sequence[Sequence[Chunk]]]



def statement_rows_of(chunk_groups: Sequence[Sequence[Chunk]],
                      above: TextAbove | None = None) -> list[RowAt]:
    """Every statement row of the chunks, with its period header and scale (looked for in the
    chunk above the row and in the chunks merged before it in the same group; then, for a row
    still without a header, in ``above`` the group's first chunk, read only then).

    :param chunk_groups: the retrieval's items' chunks (``RetrievedChunk.chunks``), best first.
    :param above: the text before a chunk in its document (:func:`chunks_above`; ``None``:
        the groups alone).
    """
    out: list[RowAt] = []
    seen: set[tuple[str, str]] = set()
    for group in chunk_groups:
        lead = ""
        before: list[str] = []  # the text above the group, read once when first needed
        for chunk in group:
            pos = 0
            for line in chunk.text.splitlines(keepends=True):
                unit = line.strip()
                row = parse_row(unit) if unit else None
                if row is not None and (chunk.chunk_id, unit) not in seen:
                    seen.add((chunk.chunk_id, unit))
                    text = lead + "\n" + chunk.text[:pos]
                    years = period_header(text, len(row.cells))
                    if years is None and above is not None and group:
                        if not before:
                            before.append(above(group[0]))
                        text = before[0] + "\n" + text
                        years = period_header(text, len(row.cells))
                    out.append(RowAt(unit, row, years, chunk, table_unit(text)))
                pos += len(line)
            lead += "\n" + chunk.text
    return out


def chunks_above(store: ChunkStore, collection: str,
                 depth: int = TUNING.figure.above_chunks) -> TextAbove:
    """A :data:`TextAbove` over a chunk store: the texts of up to ``depth`` chunks before a
    chunk in its document (``ChunkStore.neighbour``), in document order, remembered per chunk.
    Default ``TUNING.figure.above_chunks`` (``corpus.tuning``), 4: a statement table split
    into row chunks under a header chunk (a cash-flow statement of
    three page parts, FinanceBench dev filings). Store errors propagate."""
    memo: dict[str, str] = {}

    def text_above(chunk: Chunk) -> str:
        if chunk.chunk_id not in memo:
            texts: list[str] = []
            cur: Chunk | None = chunk
            for _ in range(depth):
                cur = store.neighbour(collection, cur.chunk_id, -1) if cur is not None else None
                if cur is None:
                    break
                texts.append(cur.text)
            memo[chunk.chunk_id] = "\n".join(reversed(texts))
        return memo[chunk.chunk_id]

    return text_above


def adjacent_runs(chunks: Sequence[Chunk]) -> list[list[Chunk]]:
    """``chunks`` (any order) as runs of adjacent chunks of one document, in document order,
    runs ordered by their first chunk's place in ``chunks``: a period header read above a row
    must come from the text just before it, not from another page that was read."""
    first = {c.chunk_id: i for i, c in reversed(list(enumerate(chunks)))}
    ordered = sorted({c.chunk_id: c for c in chunks}.values(), key=lambda c: (c.doc_id, c.ordinal))
    runs: list[list[Chunk]] = []
    for c in ordered:
        if runs and runs[-1][-1].doc_id == c.doc_id and c.ordinal - runs[-1][-1].ordinal == 1:
            runs[-1].append(c)
        else:
            runs.append([c])
    runs.sort(key=lambda r: min(first[c.chunk_id] for c in r))
    return runs



def decimals_of(question: str, default: int) -> int:
    m = _DECIMALS.search(question)
    if not m:
        return default
    w = m.group(1).lower()
    return _WORD_NUM.get(w, int(w) if w.isdigit() else default)


def years_in(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in YEAR.finditer(text)))



def best_row(rows: Sequence[RowAt], terms: tuple[Sequence[str], Sequence[str]],
              need: Sequence[str], normalize: Normalize,
              min_cover: float = _MIN_COVER, silent: re.Pattern[str] | None = None,
              balance: bool = False) -> RowAt | None:
    """The row whose label the phrase covers best by its key terms or field phrases
    (``rag.expand``: "revenue" names "Total net sales"), at least ``min_cover``, with a value
    in a column of each year of ``need``; ties go to the row its own key terms cover more, then
    to the wholly named label of more words ("Total current liabilities" before "Total
    liabilities"), then to the earlier row (better retrieval rank). ``silent``: label words
    left out of the cover. ``balance``: a balance is asked (an average of two year-ends): on
    equal cover a row of a two-column table (a balance sheet's two year-ends) goes before one
    of three (the income and cash-flow statements' three years: "Accounts payable" there is
    the year's change)."""
    own, expanded = terms
    best: tuple[tuple[float, float, bool, int, int], RowAt] | None = None
    for i, r in enumerate(rows):
        if r.years is None or any(y not in r.years for y in need):
            continue
        if any(r.row.cells[r.years.index(y)].value is None for y in need):
            continue
        label = silent.sub(" ", r.row.label) if silent is not None else r.row.label
        direct = label_cover(label, own, normalize)
        wide = label_cover(label, expanded, normalize)
        if max(direct, wide) < min_cover:
            continue
        words = len(label.split()) if max(direct, wide) >= 1.0 else 0
        key = (max(direct, wide), direct, balance and len(r.years) == 2, words, -i)
        if best is None or key > best[0]:
            best = (key, r)
    return best[1] if best else None


def cell_value(r: RowAt, year: str) -> float:
    assert r.years is not None
    v = r.row.cells[r.years.index(year)].value
    assert v is not None
    return v


def converted(value: float, scale: str | None, asked: str | None) -> str:
    """``" (in thousands) ≈ 382 in millions"``: a cell written in ``scale`` shown in the scale
    the question asks (``corpus.statement_rows.UNITS``), rounded to a whole number from 100 up,
    else to two decimals; ``""`` when either scale is unknown or they are the same."""
    if not scale or not asked or scale == asked or scale not in UNITS or asked not in UNITS:
        return ""
    v = value * UNITS[scale] / UNITS[asked]
    return f" (in {scale}) ≈ {v:,.0f} in {asked}" if abs(v) >= 100 else \
        f" (in {scale}) ≈ {v:,.2f} in {asked}"


def fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 and float(v).is_integer() else f"{v:,.2f}".rstrip(
        "0").rstrip(".")



def document_search(store: ChunkStore, collection: str,
                    encode: Callable[[str], SparseVector], default_doc: str | None,
                    top_k: int = TUNING.figure.document_search_top_k) -> MoreRows:
    """A :data:`MoreRows` over a chunk store: the ``top_k`` keyword hits (``encode``: the
    tokenizer's ``sparse_query``; default ``TUNING.figure.document_search_top_k``, 8: the
    income statement page of a FinanceBench dev filing came
    5th for "operating income", after MD&A pages) for the text inside the document
    (``default_doc`` when the
    formula has read no row yet; no search without one), each with the chunk before it (a
    period header above a row may sit there). Store errors propagate."""

    def more(text: str, doc_id: str | None) -> list[list[Chunk]]:
        doc = doc_id or default_doc
        vec = encode(text)
        if doc is None or vec.is_empty():
            return []
        groups: list[list[Chunk]] = []
        for hit in store.keyword_search(collection, vec, top_k, SearchFilter(doc_ids=(doc,))):
            prev = store.neighbour(collection, hit.chunk.chunk_id, -1)
            groups.append([prev, hit.chunk] if prev is not None else [hit.chunk])
        return groups

    return more


# a statement the question names as its source ("using the statement of income", "shown in the
