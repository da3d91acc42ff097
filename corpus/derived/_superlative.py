"""The largest or smallest item of a statement section (``corpus.derived``, issue 15 item 3):
"What was the largest liability in American Express's balance sheet in 2022?" is answered by
reading the rows under the section the question names ("Liabilities") down to its total
("Total liabilities"), and taking the row with the largest cell of the asked year.

The section is read from the table itself, not from a list of statements: a header line (a
label with no cell) whose words name the asked item's kind opens it (a header of the kind
inside it, "Current liabilities", opens a part of it), the total row of that kind ("Total
liabilities") closes it, subtotals ("Total current liabilities") and the table's
repeated column header at a page part's top are not items. Nothing is answered when no section
of that kind closes within the chunks read (the extractive answer stands).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from corpus.derived._numbers import fmt, years_in
from corpus.derived._rows import statement_rows_of
from corpus.derived._types import CitationMaker, KeyTerms, RowAt, TextAbove
from corpus.types import Chunk, ChunkStore, Citation

__all__ = ["asks_superlative", "superlative_answer"]

# "the largest liability", "the biggest single expense", "the smallest asset"
_ASKED = re.compile(
    r"\b(largest|biggest|greatest|highest|smallest|lowest)\s+(?:single\s+)?"
    r"([a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)",
    re.I)
_LARGEST = frozenset({"largest", "biggest", "greatest", "highest"})
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}")  # a Markdown table's |---|---| line
_TOTAL = re.compile(r"^\s*total\b", re.I)
_TOLERANCE = 0.005  # rounding: items shown in millions may miss their total by a few
# words that qualify a kind, never one alone ("largest current asset" is no "largest current")
_QUALIFIERS = frozenset({"current", "non-current", "noncurrent", "long-term", "short-term", "total",
                         "net", "other", "operating", "accrued", "deferred", "single"})
_FOLLOWING = 4  # chunks read past a group for its section's total: a balance sheet's page parts


@dataclass(frozen=True, slots=True)
class _Section:
    """The item rows of one section (``items``, in table order) with its ``header`` and
    ``total`` row."""

    header: str
    items: tuple[RowAt, ...]
    total: RowAt


def asks_superlative(question: str) -> tuple[bool, str] | None:
    """``(largest, kind)`` when the question asks for the largest or smallest item of a kind
    ("the largest liability in …" → ``(True, "liability in")``: its two words, whose key terms
    are the kind's) and names at most one year; ``None``
    otherwise (a cheap test before any chunk is read)."""
    m = _ASKED.search(question)
    if m is None or len(years_in(question)) > 1:
        return None
    return m.group(1).lower() in _LARGEST, m.group(2).lower()


def _header(line: str) -> str | None:
    """The label of a header line: a table row whose first cell has letters and no digits and
    whose other cells are empty, or a short plain line without digits; else ``None``."""
    s = line.strip()
    if s.startswith("|"):
        cells = [c.strip() for c in s.strip("|").split("|")]
        label = cells[0] if cells else ""
        if any(cells[1:]):
            return None
    else:
        label = s
        if len(label.split()) > 6:
            return None
    return label if label and re.search(r"[A-Za-z]", label) and not re.search(r"\d",
                                                                              label) else None


def _sections(chunks: Sequence[Chunk], rows: dict[tuple[str, str], RowAt], kind: set[str],
              key_terms: KeyTerms) -> list[_Section]:
    """The sections of ``kind`` (its key terms) closed by their total in ``chunks`` (adjacent,
    document order)."""
    out: list[_Section] = []
    header: str | None = None
    items: list[RowAt] = []
    loose: list[RowAt] = []  # item rows since the last header or total, no section open
    for chunk in chunks:
        lines = chunk.text.splitlines()
        for i, line in enumerate(lines):
            unit = line.strip()
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if not unit or _SEPARATOR.match(unit) or _SEPARATOR.match(nxt):
                continue  # a table's column header, repeated at each page part's top
            r = rows.get((chunk.chunk_id, unit))
            if r is None:
                label = _header(unit)
                if header is None and label is not None and kind <= set(key_terms(label)):
                    # the section of the asked kind opens here; a header of the kind inside it
                    # ("Current liabilities" under "Liabilities") opens a part of it, no other
                    header, items = label, []
                elif label is not None:
                    loose = []
                continue
            if _TOTAL.match(r.row.label):
                closes = (kind <= set(key_terms(r.row.label))
                          and not set(key_terms(r.row.label)) - kind - {"total"})
                if closes and header is not None and items:
                    out.append(_Section(header, tuple(items), r))
                    header, items = None, []
                elif closes and header is None and loose:
                    # no heading opened it (Boeing's current assets run from the table's top to
                    # "Total current assets"): the rows since the last heading or total
                    out.append(_Section("", tuple(loose), r))
                loose = []
                continue  # a subtotal is no item
            loose.append(r)
            if header is not None:
                items.append(r)
    return out


def superlative_answer(question: str, chunk_groups: Sequence[Sequence[Chunk]],
                       key_terms: KeyTerms, make_citation: CitationMaker,
                       store: ChunkStore | None, collection: str,
                       above: TextAbove | None = None) -> tuple[str, list[Citation]] | None:
    """The largest (smallest) item of the asked kind's section, as ``"<label>, <year>: <cell> —
    the largest of the items summed in “<total label>” (<cell>; …)"`` with the cited item and
    total rows; ``None`` when the question asks no such item, no section of the kind
    closes by its total in the chunks read, or a quote does not verify.

    :param question: the question as asked.
    :param chunk_groups: runs of adjacent chunks, best first (a retrieval's items' chunks).
    :param key_terms: ``Tokenizer.key_terms`` (stems: "liability" and "Liabilities" meet).
    :param make_citation: ``corpus.citations.make_citation``.
    :param store: read for up to 4 chunks after a group (a section spread over page parts);
        ``None``: the groups alone. ``above``: the text before a chunk, for the period header.
    :raises corpus.errors.StoreError: when reading the store fails.
    """
    asked = asks_superlative(question)
    if asked is None:
        return None
    largest, words = asked
    # the two words' kind ("current liability") first, then the first word's ("liability"
    # of "liability Netflix")
    first = words.split()[0]
    tried = (words,) if first.lower() in _QUALIFIERS else (words, first)
    kinds = [k for k in dict.fromkeys(frozenset(key_terms(w)) for w in tried) if k]
    years = years_in(question)
    for group in chunk_groups[:3]:
        chunks = list(group)
        for _ in range(_FOLLOWING if chunks and kinds else 0):
            nxt = store.neighbour(collection, chunks[-1].chunk_id, 1) if store else None
            if nxt is None:
                break
            chunks.append(nxt)
        rows = {(r.chunk.chunk_id, r.unit): r for r in statement_rows_of([chunks], above)}
        for kind in kinds:
            for sec in _sections(chunks, rows, set(kind), key_terms):
                got = _pick(sec, years, largest, make_citation)
                if got is not None:
                    return got
    return None


def _pick(sec: _Section, years: list[str], largest: bool,
          make_citation: CitationMaker) -> tuple[str, list[Citation]] | None:
    """The answer of one section: the item with the largest (smallest) cell of the year (the
    first column when the question names none)."""
    def col(r: RowAt) -> int | None:
        if not years:
            return 0
        return r.years.index(years[0]) if r.years is not None and years[0] in r.years else None

    valued = [(r, r.row.cells[c].value) for r in sec.items
              if (c := col(r)) is not None and c < len(r.row.cells)]
    cand = [(r, v) for r, v in valued if v is not None]
    tc = col(sec.total)
    if len(cand) < 2 or tc is None:
        return None
    best, value = max(cand, key=lambda x: x[1]) if largest else min(cand, key=lambda x: x[1])
    total = sec.total.row.cells[tc].value
    if total is None:
        return None
    # the items must account for the total: what they leave is a row not read (a label holding
    # digits is no statement row), which the largest must be at least, the smallest cannot be
    rest = total - sum(v for _, v in cand)
    tol = _TOLERANCE * abs(total)
    if rest < -tol or (rest > tol and (not largest or value < rest - tol)):
        return None
    cits = [make_citation(best.chunk, best.unit), make_citation(sec.total.chunk, sec.total.unit)]
    if cits[0] is None or cits[1] is None:
        return None
    year = years[0] if years else (best.years[0] if best.years else "")
    cell = best.row.cells[col(best) or 0].raw
    which = "largest" if largest else "smallest"
    shown = f"{best.row.label}, {year}: {cell}" if year else f"{best.row.label}: {cell}"
    text = (f"{shown} — the {which} of the items summed in “{sec.total.row.label}” "
            f"({sec.total.row.cells[tc].raw}; {len(cand)} item rows read, "
            f"{fmt(total - rest)} of {fmt(total)})")
    return text, [cits[0], cits[1]]
