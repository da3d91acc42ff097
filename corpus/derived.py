"""Derived figures computed from cited statement cells (issue 15, item 3).

A question asking for a change or a ratio ("year-over-year change in revenue from FY2016 to
FY2017", "working capital ratio … defined as total current assets divided by total current
liabilities") is answered by reading the rows it names in the retrieved statement tables
(``corpus.statement_rows``) and doing the arithmetic; the answer shows the cells and the
arithmetic, and cites every row it used, so every number in it traces to a cited cell.

Two forms, both read from the question's own words (no formula list fitted to questions):

- **change**: the question says *change*, *growth*, *increase*, *decrease* or *decline* and
  names two years; the row is the one whose label the question names best with a column for
  each year; the result is ``(later − earlier) / |earlier| × 100`` in percent, or the
  difference in percentage points for a row of rates (``24.6 %`` → ``21.6 %``).
- **ratio**: the question defines it, ``… defined as A divided by B`` / ``… as: A / B``;
  each side is one row (best label cover by that side's words) read at the side's own year or
  the question's year, the denominator from the numerator's document; ``average X between
  FY2018 and FY2019`` is the mean of X's two cells.

Nothing is computed when a side has no row or no cell of its year: the extractive answer
stands. Rounding follows the question ("round … to two decimal places", else 2 for ratios
and 1 for percentages).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus.statement_rows import StatementRow, label_cover, parse_row, period_header
from corpus.tokenizer import asks_quantity
from corpus.types import Chunk, Citation

__all__ = ["Derived", "RowAt", "adjacent_runs", "computable", "derive", "derived_answer",
           "looked_up_answer",
           "statement_rows_of"]

_YEAR = re.compile(r"(?<!\d)(?:fy|fiscal(?: year)?\s*)?((?:19|20)\d{2})(?!\d)", re.I)
_CHANGE = re.compile(r"\b(?:chang|grow|increas|decreas|declin)(?:e|es|ed|th|ing)?\b", re.I)
_DEFINED = re.compile(
    r"\b(?:is defined as|defined as|define [\w\s'()-]{1,60}? as|calculated as|=)\s*:?\s*"
    r"(?P<expr>[^.?;]+)", re.I)
_DIVIDED = re.compile(r"\s+divided by\s+|\s*/\s*", re.I)
_AVERAGE = re.compile(r"\baverage\b", re.I)
_DECIMALS = re.compile(r"\b(one|two|three|four|zero|\d)\s+decimal", re.I)
_WORD_NUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4}
_MIN_COVER = 0.5  # a row answers a side when the side's words name half its label or more


@dataclass(frozen=True, slots=True)
class RowAt:
    """A statement row found in a retrieved chunk: the ``unit`` (verbatim line), the parsed
    ``row``, the ``years`` heading its cells (``None`` when no header was found) and the
    ``chunk`` it is quoted from."""

    unit: str
    row: StatementRow
    years: tuple[str, ...] | None
    chunk: Chunk


@dataclass(frozen=True, slots=True)
class Derived:
    """A computed figure: ``text`` (result, then the cells and the arithmetic), ``value`` (the
    rounded result), ``rows`` (the rows used, each to be cited)."""

    text: str
    value: float
    rows: tuple[RowAt, ...]


def statement_rows_of(chunk_groups: Sequence[Sequence[Chunk]]) -> list[RowAt]:
    """Every statement row of the chunks, with its period header (looked for in the chunk
    above the row and in the chunks merged before it in the same group).

    :param chunk_groups: the retrieval's items' chunks (``RetrievedChunk.chunks``), best first.
    """
    out: list[RowAt] = []
    seen: set[tuple[str, str]] = set()
    for group in chunk_groups:
        lead = ""
        for chunk in group:
            pos = 0
            for line in chunk.text.splitlines(keepends=True):
                unit = line.strip()
                row = parse_row(unit) if unit else None
                if row is not None and (chunk.chunk_id, unit) not in seen:
                    seen.add((chunk.chunk_id, unit))
                    years = period_header(lead + "\n" + chunk.text[:pos], len(row.cells))
                    out.append(RowAt(unit, row, years, chunk))
                pos += len(line)
            lead += "\n" + chunk.text
    return out


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


def _decimals(question: str, default: int) -> int:
    m = _DECIMALS.search(question)
    if not m:
        return default
    w = m.group(1).lower()
    return _WORD_NUM.get(w, int(w) if w.isdigit() else default)


def _years(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _YEAR.finditer(text)))


def _best_row(rows: Sequence[RowAt], terms: tuple[Sequence[str], Sequence[str]],
              need: Sequence[str], normalize: Callable[[str], str],
              min_cover: float = _MIN_COVER) -> RowAt | None:
    """The row whose label the phrase covers best by its key terms or field phrases
    (``rag.expand``: "revenue" names "Total net sales"), at least ``min_cover``, with a value
    in a column of each year of ``need``; ties go to the row its own key terms cover more, then
    to the earlier row (better retrieval rank)."""
    own, expanded = terms
    best: tuple[tuple[float, float, int], RowAt] | None = None
    for i, r in enumerate(rows):
        if r.years is None or any(y not in r.years for y in need):
            continue
        if any(r.row.cells[r.years.index(y)].value is None for y in need):
            continue
        direct = label_cover(r.row.label, own, normalize)
        wide = label_cover(r.row.label, expanded, normalize)
        if max(direct, wide) < min_cover:
            continue
        key = (max(direct, wide), direct, -i)
        if best is None or key > best[0]:
            best = (key, r)
    return best[1] if best else None


def _cell(r: RowAt, year: str) -> float:
    assert r.years is not None
    v = r.row.cells[r.years.index(year)].value
    assert v is not None
    return v


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 and float(v).is_integer() else f"{v:,.2f}".rstrip(
        "0").rstrip(".")


def _form(question: str) -> tuple[str, str] | tuple[str, list[str]] | None:
    """The computable form of a question: ``("ratio", expression)`` for a defined ratio,
    ``("change", [earlier, later])`` for a change between two years, else ``None``."""
    m = _DEFINED.search(question)
    if m and _DIVIDED.search(m.group("expr")):
        return "ratio", m.group("expr")
    years = _years(question)
    if _CHANGE.search(question) and len(years) == 2:
        return "change", sorted(years)
    return None


def computable(question: str) -> bool:
    """True when the question has a form :func:`derive` computes (a defined ratio, or a change
    between two years): a cheap test before any chunk is read."""
    return _form(question) is not None


def derive(question: str, rows: Sequence[RowAt],
           terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]],
           normalize: Callable[[str], str]) -> Derived | None:
    """The figure the question asks to compute from ``rows``, or ``None``.

    :param question: the question as asked.
    :param rows: statement rows of the retrieved chunks (:func:`statement_rows_of`), best first.
    :param terms_of: ``(key terms, key terms + field phrases)`` of a phrase
        (``Tokenizer.key_terms``; ``rag.expand`` phrases), to match a side to a row label.
    :param normalize: the key terms' normaliser (``Tokenizer.normalize``).
    :returns: the derived figure with the rows to cite; ``None`` when the question defines no
        computable form or a row or cell is missing.
    """
    form = _form(question)
    if not rows or form is None:
        return None
    if form[0] == "ratio":
        assert isinstance(form[1], str)
        return _ratio(question, form[1], rows, terms_of, normalize)
    assert isinstance(form[1], list)
    return _change(question, form[1], rows, terms_of, normalize)


def _change(question: str, years: list[str], rows: Sequence[RowAt],
            terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]],
            normalize: Callable[[str], str]) -> Derived | None:
    r = _best_row(rows, terms_of(question), years, normalize)
    if r is None:
        return None
    a, b = _cell(r, years[0]), _cell(r, years[1])
    d = _decimals(question, 1)
    if any(c.percent for c in r.row.cells):  # a rate changes by percentage points
        value = round(b - a, d)
        text = (f"{value:+.{d}f} percentage points change in {r.row.label} from {years[0]} to "
                f"{years[1]}: {_fmt(b)}% − {_fmt(a)}% — {r.unit}")
        return Derived(text, value, (r,))
    if a == 0:
        return None
    value = round((b - a) / abs(a) * 100.0, d)
    text = (f"{value:.{d}f}% change in {r.row.label} from {years[0]} to {years[1]}: "
            f"({_fmt(b)} − {_fmt(a)}) / {_fmt(abs(a))} = {value:.{d}f}% — {r.unit}")
    return Derived(text, value, (r,))


def _side(expr: str, default_year: str | None, rows: Sequence[RowAt],
          terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]],
          normalize: Callable[[str], str]) -> tuple[float, str, RowAt] | None:
    """One side of a ratio: ``(value, shown arithmetic, row)``."""
    years = _years(expr)
    words = _YEAR.sub(" ", expr)
    words = re.sub(r"\b(?:average|between|and|the|of|fy)\b|[()]", " ", words, flags=re.I)
    terms = terms_of(words)
    if _AVERAGE.search(expr) and len(years) == 2:
        r = _best_row(rows, terms, years, normalize)
        if r is None:
            return None
        a, b = _cell(r, years[0]), _cell(r, years[1])
        return (a + b) / 2, f"average of {r.row.label} {years[0]} {_fmt(a)} and {years[1]} " \
            f"{_fmt(b)}", r
    year = years[0] if years else default_year
    if year is None:
        return None
    r = _best_row(rows, terms, [year], normalize)
    if r is None:
        return None
    v = _cell(r, year)
    return v, f"{r.row.label} {year} {_fmt(v)}", r


def _ratio(question: str, expr: str, rows: Sequence[RowAt],
           terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]],
           normalize: Callable[[str], str]) -> Derived | None:
    parts = _DIVIDED.split(expr, maxsplit=1)
    if len(parts) != 2:
        return None
    head = question[: question.find(expr)] if expr in question else question
    head_years = _years(head)
    year = head_years[0] if head_years else None
    num = _side(parts[0], year, rows, terms_of, normalize)
    if num is None:
        return None
    # both sides from one document: a ratio of two filings' rows means nothing
    same = [r for r in rows if r.chunk.doc_id == num[2].chunk.doc_id]
    den = _side(parts[1], year, same, terms_of, normalize)
    if den is None or den[0] == 0 or num[2] is den[2]:
        return None
    d = _decimals(question, 2)
    value = round(num[0] / den[0], d)
    text = (f"{value:.{d}f} = {num[1]} / {den[1]} — {num[2].unit} | {den[2].unit}")
    return Derived(text, value, (num[2], den[2]))


def _label_terms(text: str, key_terms: Callable[[str], Sequence[str]],
                 phrases: Callable[[str], Sequence[str]] | None
                 ) -> tuple[Sequence[str], Sequence[str]]:
    """``(own, expanded)``: the key terms of ``text``, and those plus its multi-word field
    phrases (``rag.expand``: "revenue" → "total net sales"), the terms a row label may match."""
    own = list(key_terms(text))
    extra = [p for p in (phrases(text) if phrases is not None else []) if " " in p or "&" in p]
    return own, [*own, *extra]


def derived_answer(
    question: str,
    chunk_groups: Sequence[Sequence[Chunk]],
    key_terms: Callable[[str], Sequence[str]],
    normalize: Callable[[str], str],
    make_citation: Callable[[Chunk, str], Citation | None],
    phrases: Callable[[str], Sequence[str]] | None = None,
) -> tuple[str, list[Citation]] | None:
    """The computed answer with a verified citation of every row it used, or ``None`` (no
    computable form, a row or cell missing, or a row quote that does not verify).

    :param question: the question as asked.
    :param chunk_groups: runs of adjacent chunks, best first (the retrieval's items' chunks,
        or the chunks a LoopAgent read: :func:`adjacent_runs`).
    :param key_terms: ``Tokenizer.key_terms``; ``normalize``: ``Tokenizer.normalize``.
    :param make_citation: ``corpus.citations.make_citation``.
    :param phrases: the field phrases a text expands to (``rag.expand.QueryExpander.phrases``;
        ``None``: key terms only). Multi-word phrases join the key terms a row label may match.
    """
    if not computable(question):  # most questions: no line of any chunk is parsed
        return None
    d = derive(question, statement_rows_of(chunk_groups),
               lambda text: _label_terms(text, key_terms, phrases), normalize)
    if d is None:
        return None
    cits = [make_citation(r.chunk, r.unit) for r in d.rows]
    if any(c is None for c in cits):
        return None
    return d.text, [c for c in cits if c is not None]


def looked_up_answer(
    question: str,
    chunk_groups: Sequence[Sequence[Chunk]],
    key_terms: Callable[[str], Sequence[str]],
    normalize: Callable[[str], str],
    make_citation: Callable[[Chunk, str], Citation | None],
    phrases: Callable[[str], Sequence[str]] | None = None,
) -> tuple[str, list[Citation]] | None:
    """A figure looked up in a statement row: for a question asking for a figure
    (:func:`corpus.tokenizer.asks_quantity`) of exactly one year and not computable, the row
    whose label the question names wholly (every label word, by its key terms or field phrases)
    with a value under that year's column, as ``"<label>, <year>: <cell> — <row>"`` with the
    row's verified citation; ``None`` otherwise. Arguments as :func:`derived_answer`.

    The caller decides where the rows may come from: a LoopAgent uses it only on the chunks it
    read inside the documents the question was resolved to (a look-alike filing's row would
    answer with another company's figure)."""
    years = _years(question)
    if len(years) != 1 or not asks_quantity(question) or computable(question):
        return None
    r = _best_row(statement_rows_of(chunk_groups), _label_terms(question, key_terms, phrases),
                  years, normalize, min_cover=1.0)
    if r is None or r.years is None:
        return None
    cit = make_citation(r.chunk, r.unit)
    if cit is None:
        return None
    cell = r.row.cells[r.years.index(years[0])]
    return f"{r.row.label}, {years[0]}: {cell.raw} — {cit.quote}", [cit]
