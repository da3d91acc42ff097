"""Statement rows read from retrieved chunks (``corpus.derived``): the rows with their period
header and scale, the best row for a phrase, a cell's value, and where more rows are looked
for (the chunks above a row, a keyword search inside the document)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from corpus.derived._statements import statement_above, title_kind
from corpus.derived._types import MoreRows, Normalize, RowAt, TextAbove
from corpus.statement_rows import (
    label_cover,
    parse_row,
    period_header,
    table_unit,
)
from corpus.tuning import TUNING
from corpus.types import Chunk, ChunkStore, SearchFilter, SparseVector

__all__ = ["adjacent_runs", "best_row", "cell_value", "chunks_above", "document_search",
           "head_cover", "statement_rows_of"]

_QUALIFIED = re.compile(r"\s+of\s+", re.I)  # "<head> of <what it is of>"
_MIN_COVER = 0.5  # a row answers a side when the side's words name half its label or more


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
        titled: str | None = None  # the last statement title read so far in the group
        for chunk in group:
            pos = 0
            path_kind = statement_above("\n".join(chunk.section_path))
            for line in chunk.text.splitlines(keepends=True):
                unit = line.strip()
                row = parse_row(unit) if unit else None
                if row is not None and (chunk.chunk_id, unit) not in seen:
                    seen.add((chunk.chunk_id, unit))
                    text = lead + "\n" + chunk.text[:pos]
                    years = period_header(text, len(row.cells))
                    kind = titled
                    if years is None and above is not None and group:
                        if not before:
                            before.append(above(group[0]))
                        text = before[0] + "\n" + text
                        years = period_header(text, len(row.cells))
                        kind = kind or statement_above(before[0])
                    out.append(RowAt(unit, row, years, chunk, table_unit(text),
                                     kind or path_kind))
                titled = title_kind(line) or titled
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


def best_row(rows: Sequence[RowAt], terms: tuple[Sequence[str], Sequence[str]],
              need: Sequence[str], normalize: Normalize,
              min_cover: float = _MIN_COVER, silent: re.Pattern[str] | None = None,
              balance: bool = False, heads: bool = False) -> RowAt | None:
    """The row whose label the phrase covers best by its key terms or field phrases
    (``rag.expand``: "revenue" names "Total net sales"), at least ``min_cover``, with a value
    in a column of each year of ``need``; ties go to the row its own key terms cover more, then
    to the wholly named label of more words ("Total current liabilities" before "Total
    liabilities"), then to the earlier row (better retrieval rank). ``silent``: label words
    left out of the cover. ``balance``: a balance is asked (an average of two year-ends): on
    equal cover a row of a two-column table (a balance sheet's two year-ends) goes before one
    of three (the income and cash-flow statements' three years: "Accounts payable" there is
    the year's change). ``heads``: a label qualified by "of …" is also read by its head
    ("Depreciation and amortization of property, equipment and intangibles" is a
    "Depreciation and amortization"), the better of the two covers."""
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
        if heads:
            direct = max(direct, head_cover(label, own, normalize))
            wide = max(wide, head_cover(label, expanded, normalize))
        if max(direct, wide) < min_cover:
            continue
        words = len(label.split()) if max(direct, wide) >= 1.0 else 0
        key = (max(direct, wide), direct, balance and len(r.years) == 2, words, -i)
        if best is None or key > best[0]:
            best = (key, r)
    return best[1] if best else None


def head_cover(label: str, key_terms: Sequence[str], normalize: Normalize) -> float:
    """:func:`corpus.statement_rows.label_cover` of the label's head: the words before its
    first "of" ("Depreciation and amortization" of "Depreciation and amortization of
    property, equipment and intangibles"), the label itself when it has none."""
    return label_cover(_QUALIFIED.split(label, maxsplit=1)[0], key_terms, normalize)


def cell_value(r: RowAt, year: str) -> float:
    assert r.years is not None
    v = r.row.cells[r.years.index(year)].value
    assert v is not None
    return v


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
