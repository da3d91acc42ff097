"""Rows of financial-statement tables written as text lines, read as label + cells under
their period columns (issue 15, item 3).

PyMuPDF finds no ruled table on most statement pages of SEC filings: a row comes out as one
text line, the label then one cell per period, and the period header sits a few lines above
(``Year Ended December 31,`` / ``2017 2018 2019``)::

    Net income $ 3,033 $ 10,073 $ 11,588

This module reads such a line as a :class:`StatementRow` (label + :class:`Cell` values,
normalised: thousands separators dropped, ``(1,417)`` = −1417, ``—`` = no value, ``%`` kept
as a flag), finds the period of each cell from the nearest header line above that holds as
many years as the row has cells, and says how well a row's label answers a question
(:func:`label_cover`). The extractive answer (``rag.extractive``) uses it to prefer the row
whose label the question names and to show the asked period's cell beside the quoted row;
nothing here is fitted to questions (the number forms are those of SEC filings' statements).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from corpus.term_forms import ANY_YEAR
from corpus.tuning import TUNING

__all__ = ["UNITS", "Cell", "StatementRow", "asked_unit", "asked_years",
           "label_cover", "parse_row", "period_header", "read_cell", "row_reading", "row_weight",
           "table_unit"]

# one cell: optional $, optional sign/parenthesis, a number with thousands separators and
# decimals, optional %, optional closing parenthesis; or a dash standing for "no value"
_CELL = re.compile(
    r"\$?\s*(?P<num>\(?-?\$?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?%?\)?\s?%?)"
    r"|(?P<dash>[—–-]{1,2})(?=\s|$)"
)
_CELL_START = re.compile(r"(?<=\s)[$(\d—–-]")
_DIGIT_OR_MONEY = re.compile(r"[\d$|]")
_OTHER_NUMBER = re.compile(r"\d{3,}|\d[.,]\d")
_NOT_LETTER = re.compile(r"[\W\d_]")
_MIN_CELLS = 2
_FUNCTION_WORDS = frozenset(
    "a an and as at by for from in into of on or per the to with".split())
_MAX_CELLS = 8


@dataclass(frozen=True, slots=True)
class Cell:
    """One value of a statement row.

    :param raw: the cell as written (``$ 11,588``, ``(1,417)``, ``—``).
    :param value: the number (``11588.0``, ``-1417.0``); ``None`` for a dash (no value).
    :param percent: ``True`` when written with ``%``.
    """

    raw: str
    value: float | None
    percent: bool = False


@dataclass(frozen=True, slots=True)
class StatementRow:
    """A text line read as a statement row: ``label`` then ``cells`` (2–8 of them)."""

    label: str
    cells: tuple[Cell, ...]


def _cell(raw: str) -> Cell:
    s = raw.replace("$", "").replace(" ", "")
    neg = s.startswith("(") and s.endswith(")") or s.startswith("-")
    pct = s.endswith(("%", "%)"))
    digits = s.strip("()%-").replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return Cell(raw.strip(), None, pct)
    return Cell(raw.strip(), -value if neg else value, pct)


def parse_row(line: str) -> StatementRow | None:
    """Read one text line as a statement row, or ``None``.

    A row is a label (words, at least one letter, no digits) followed by 2–8 cells and nothing
    else (a Markdown table row ``| Total net revenue | 9,497,578 |  | 4,713,500 |`` is read by
    its non-empty cells): numbers as SEC statements write them (``$ 3,033``, ``(1,417)``,
    ``12.5%``) or dashes for an empty cell. ``Net income $ 3,033 $ 10,073 $ 11,588`` → label
    ``Net income``, cells 3033, 10073, 11588. A sentence holding numbers is no row (text
    after the first cell).

    :param line: one line (a unit of ``rag.extractive.evidence_units``), any length.
    :returns: the row, or ``None`` when the line is not label + cells.
    """
    text = unicodedata.normalize("NFKC", line).strip()
    if text.startswith("|"):  # a Markdown table row: its non-empty cells, in order
        text = " ".join(c.strip() for c in text.strip("|").split("|") if c.strip())
    if "\n" in text or len(text) > 300 or not re.match(r"[^\W\d_]", text):
        return None
    for start in _CELL_START.finditer(text):  # the label ends where only cells follow
        label = text[:start.start()].strip(" :.,")
        if not label or _DIGIT_OR_MONEY.search(label.replace("(", "").replace(")", "")):
            return None  # a number inside the label: a sentence or a date, not a row label
        cells = _cells(text[start.start():])
        if cells is not None:
            return StatementRow(label, cells) if len(label) <= 160 else None
    return None


def _cells(rest: str) -> tuple[Cell, ...] | None:
    cells: list[Cell] = []
    pos = 0
    for c in _CELL.finditer(rest):
        if rest[pos:c.start()].strip(" $"):
            return None  # words between cells: a sentence, not a row
        cells.append(_cell(c.group(0)) if c.group("num") else Cell(c.group(0), None))
        pos = c.end()
    if rest[pos:].strip(" $"):
        return None
    if not (_MIN_CELLS <= len(cells) <= _MAX_CELLS) or all(c.value is None for c in cells):
        return None
    return tuple(cells)


def period_header(text_before: str, n_cells: int) -> tuple[str, ...] | None:
    """The period of each cell: the years of the nearest line above the row (last first) that
    holds exactly ``n_cells`` years and besides them only a few words and day numbers
    (``2017 2018 2019``, ``December 31, 2019 2018``, ``At December 31, 2019 At December 31,
    2018``); a line with other numbers (``$132``, ``3.5``) is no header.

    :param text_before: the text above the row (its chunk up to the row, the page before).
    :param n_cells: the row's number of cells.
    :returns: the years in column order, or ``None`` when no header line fits within the 60
        lines above.
    """
    run: tuple[str, ...] = ()  # years of the header lines just above, a header broken in lines
    for ln in reversed(_last_lines(text_before, 60, nonblank=True)):
        years, blocked, size = _header_line(ln)
        if blocked:
            run = ()
            continue
        if len(years) == n_cells:
            return years
        # a header written one date a line ("May 26," / "2019" / "May 27," / "2018"): the
        # years of consecutive header lines, read upwards until they are as many as the cells
        run = (*years, *run) if size <= 40 else ()
        if years and len(run) == n_cells:
            return run
        if len(run) > n_cells:
            run = ()
    return None


@lru_cache(maxsize=8192)
def _header_line(line: str) -> tuple[tuple[str, ...], bool, int]:
    """One line seen by :func:`period_header` (a line is read for every row below it, so the
    reading is remembered): its years, whether it cannot be part of a header (longer than 120
    characters, another number, more than 50 letters besides the years), its NFKC length."""
    ln = unicodedata.normalize("NFKC", line)
    rest = ANY_YEAR.sub(" ", ln)  # date words and day numbers only: "At December 31, 2019"
    blocked = (len(ln) > 120 or bool(_OTHER_NUMBER.search(rest))
               or len(_NOT_LETTER.sub("", rest)) > 50)
    return tuple(ANY_YEAR.findall(ln)), blocked, len(ln)


def _last_lines(text: str, n: int, *, nonblank: bool = False) -> list[str]:
    """``text.splitlines()[-n:]`` (``nonblank``: of the stripped non-blank lines), splitting only
    the end of the text that holds them (after a ``\\n``, the lines are the text's own)."""
    size = 8192
    while True:
        cut = text.find("\n", len(text) - size) if size < len(text) else -1
        lines = (text[cut + 1:] if cut >= 0 else text).splitlines()
        if nonblank:
            lines = [ln.strip() for ln in lines if ln.strip()]
        if cut < 0 or len(lines) >= n:
            return lines[-n:]
        size *= 4


def asked_years(specific: Iterable[str]) -> tuple[str, ...]:
    """The four-digit years among a question's specific terms (``corpus.presence.specific_terms``
    gives ``fy2019`` as ``2019``), in question order."""
    return tuple(t for t in specific if ANY_YEAR.fullmatch(t))


def label_cover(label: str, key_terms: Sequence[str],
                normalize: Callable[[str], str]) -> float:
    """Share (0..1) of the row label's words that the question's key terms name: a word is
    named when a one-word key term (the tokenizer's Snowball stem, 3+ letters) starts it or
    it starts the term, or a multi-word key term (a field phrase added by ``rag.expand``) holds
    it. ``Net income`` under "net income attributable to shareholders" → 1.0; ``Net product
    sales`` → 1/3. Function words (``and``, ``of``, ``the`` …) are not counted.

    :param normalize: the key terms' normaliser (``Tokenizer.normalize``: NFKC, lower case).
    """
    lab = normalize(label)
    words = [w for w in re.findall(r"[a-z][a-z&'-]*", lab) if w not in _FUNCTION_WORDS]
    if not words:
        return 0.0
    single = [t for t in key_terms if " " not in t.strip() and len(t) >= 3]
    phrased = {w for t in key_terms if " " in t.strip() and t in lab
               for w in re.findall(r"[a-z][a-z&'-]*", t)}
    have = sum(1 for w in words
               if w in phrased or any(w.startswith(t) or t.startswith(w) for t in single))
    return have / len(words)


def row_weight(unit: str, key_terms: Sequence[str], normalize: Callable[[str], str]) -> float:
    """Evidence weight (1.0 .. 1 + ``TUNING.evidence.row_weight``, ``corpus.tuning``) of one
    unit for a question asking for a figure (both evidence scorers: ``rag.extractive``,
    ``loop.evidence``): ``1 + row_weight * label_cover`` when ``unit`` is a statement row
    (:func:`parse_row`), else 1.0. ``Net income $ 3,033 $ 10,073 $ 11,588`` for "net income in
    2019" → 2.0; a sentence → 1.0."""
    row = parse_row(unit)
    if row is None:
        return 1.0
    return 1.0 + TUNING.evidence.row_weight * label_cover(row.label, key_terms, normalize)


def read_cell(row: StatementRow, years: Sequence[str] | None,
              asked: Sequence[str]) -> tuple[str, Cell] | None:
    """The cell of the asked period: the first asked year that heads a column, with its cell;
    ``None`` when the row has no period header or no column of an asked year."""
    if not years or len(years) != len(row.cells):
        return None
    for y in asked:
        if y in years:
            cell = row.cells[years.index(y)]
            if cell.value is not None:
                return y, cell
    return None


# the scale words of statement headers ("(in thousands, except per share data)", "(Dollars in
# millions ...)") and of questions ("Answer in USD millions"), as powers of ten
UNITS = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_TABLE_UNIT = re.compile(r"\bin\s+(thousands|millions|billions)\b", re.I)
_ASKED_UNIT = re.compile(
    r"\bin\s+(?:(?:usd|us\$|\$|u\.s\.\s*dollars|dollars)\s+)?(thousands|millions|billions)\b",
    re.I)


def table_unit(text_before: str) -> str | None:
    """The scale a statement's cells are written in: the last ``in thousands`` / ``in
    millions`` / ``in billions`` of the 60 lines above the row (its header), lower case; ``None``
    when none is written there."""
    found = _TABLE_UNIT.findall("\n".join(_last_lines(text_before, 60)))
    return found[-1].lower() if found else None


def asked_unit(question: str) -> str | None:
    """The scale a question asks its answer in (``"Answer in USD millions"`` → ``"millions"``),
    or ``None``."""
    m = _ASKED_UNIT.search(question)
    return m.group(1).lower() if m else None


def row_reading(unit: str, above: str, asked: Sequence[str]) -> str:
    """How a statement row reads under its period header, to lead the answer quoting it: the
    asked period's cell (``"Net income, 2019: $ 11,588"``) when a column is of an asked year,
    else every cell with its period (``"Gross profit — 2023: 2,725; 2022: 2,820; 2021:
    2,732"``: a row's bare numbers do not say which year each is); ``""`` when ``unit`` is no
    statement row or no period header of its cells stands in ``above`` (:func:`period_header`).

    :param unit: the quoted line; ``above``: the text above it (its chunk up to it, and the
        chunks before it); ``asked``: the question's years (``asked_years``), may be empty.
    """
    row = parse_row(unit)
    if row is None:
        return ""
    years = period_header(above, len(row.cells))
    if not years:
        return ""
    got = read_cell(row, years, asked)
    if got is not None:
        return f"{row.label}, {got[0]}: {got[1].raw}"
    return f"{row.label} — " + "; ".join(f"{y}: {c.raw}" for y, c in
                                         zip(years, row.cells, strict=True))
