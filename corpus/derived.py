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
- **formula**: the question defines one (``corpus.formula``: ``DPO is defined as: 365 *
  (average accounts payable between FY2016 and FY2017) / (FY2017 COGS + change in inventory
  between FY2016 and FY2017)``, ``Define working capital ratio as A divided by B``); each line
  item is one row (best label cover by the item's words) read at the item's own year or the
  question's year, every row from the first row's document; ``average X between Y1 and Y2`` is
  the mean of X's two cells, ``change in X between Y1 and Y2`` their difference; a name the
  question defines (``DIO + DSO - DPO``) is its own formula. An asked phrase ``A less B`` (``what
  is the FY2022 unadjusted EBITDA less capex``) is A minus B's amount (an outflow written in
  parentheses is subtracted, not added). A top-level division is shown in percent when the
  question asks for one (``%``, ``percent``) outside the formulas' names.

Nothing is computed when a side has no row or no cell of its year: the extractive answer
stands. Rounding follows the question ("round … to two decimal places", else 2 for ratios
and 1 for percentages).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus.formula import BinOp, Item, Node, Num, definitions, parse
from corpus.statement_rows import StatementRow, label_cover, parse_row, period_header
from corpus.tokenizer import asks_quantity
from corpus.types import Chunk, Citation

__all__ = ["Derived", "RowAt", "adjacent_runs", "computable", "derive", "derived_answer",
           "looked_up_answer",
           "statement_rows_of"]

_YEAR = re.compile(r"(?<!\d)(?:fy|fiscal(?: year)?\s*)?((?:19|20)\d{2})(?!\d)", re.I)
_CHANGE = re.compile(r"\b(?:chang|grow|increas|decreas|declin)(?:e|es|ed|th|ing)?\b", re.I)
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
    if definitions(question):
        return "formula", question
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
    if form[0] == "formula":
        assert isinstance(form[1], str)
        return _formula(question, definitions(question), rows, terms_of, normalize)
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


_ITEM_WORDS = re.compile(r"\b(?:average|between|and|the|of|fy|from|to|in)\b|[()]", re.I)
_CHANGE_ITEM = re.compile(r"^\s*(?:the\s+)?(?:change|increase|decrease)\b", re.I)
# "less": "EBITDA less capex" subtracts the amount spent, whatever its sign (a cash-flow
# statement writes an outflow in parentheses)
_PRECEDENCE = {"+": 1, "-": 1, "less": 1, "*": 2, "/": 2}


@dataclass(slots=True)
class _Eval:
    """State of one formula evaluation: the rows, the formulas by name, the default year, the
    document every row must come from (the first row's), and the rows used."""

    rows: Sequence[RowAt]
    defs: dict[str, Node]
    year: str | None
    terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]]
    normalize: Callable[[str], str]
    doc_id: str | None = None
    used: list[RowAt] | None = None


def _item(words: str, ev: _Eval) -> tuple[float, str] | None:
    """``(value, shown arithmetic)`` of one line item: ``average X between Y1 and Y2`` (mean of
    two cells), ``change in X between Y1 and Y2`` (later − earlier), ``FY2017 X`` (one cell),
    ``X`` (the cell of the question's year); a name the question defines is its formula."""
    name = re.sub(r"^(?:the|a|an)\s+", "", words.strip(), flags=re.I).lower()
    if name in ev.defs:
        node = ev.defs.pop(name)  # no formula uses itself
        got = _node(node, ev)
        ev.defs[name] = node
        if got is None:
            return None
        return got[0], f"{words} {_fmt(got[0])} (= {got[1]})"
    years = sorted(_years(words)) if (_AVERAGE.search(words) or _CHANGE_ITEM.search(words)) \
        else _years(words)
    terms = ev.terms_of(_ITEM_WORDS.sub(" ", _YEAR.sub(" ", words)))
    rows = [r for r in ev.rows if ev.doc_id is None or r.chunk.doc_id == ev.doc_id]
    if len(years) == 2 and (_AVERAGE.search(words) or _CHANGE_ITEM.search(words)):
        r = _best_row(rows, terms, years, ev.normalize)
        if r is None:
            return None
        a, b = _cell(r, years[0]), _cell(r, years[1])
        if _AVERAGE.search(words):
            shown = f"average of {r.row.label} {years[0]} {_fmt(a)} and {years[1]} {_fmt(b)}"
            value = (a + b) / 2
        else:
            shown = f"change in {r.row.label} from {years[0]} {_fmt(a)} to {years[1]} {_fmt(b)}"
            value = b - a
    else:
        year = years[0] if len(years) == 1 else ev.year if not years else None
        if year is None:
            return None
        r = _best_row(rows, terms, [year], ev.normalize)
        if r is None:
            return None
        value = _cell(r, year)
        shown = f"{r.row.label} {year} {_fmt(value)}"
    ev.doc_id = r.chunk.doc_id  # a formula of two filings' rows means nothing
    if ev.used is not None and all(u is not r for u in ev.used):
        ev.used.append(r)
    return value, shown


def _node(node: Node, ev: _Eval) -> tuple[float, str] | None:
    """``(value, shown arithmetic)`` of a formula tree; ``None`` when an item has no row or a
    division by zero."""
    if isinstance(node, Num):
        return node.value, _fmt(node.value)
    if isinstance(node, Item):
        return _item(node.words, ev)
    left, right = _node(node.left, ev), _node(node.right, ev)
    if left is None or right is None:
        return None
    a, b = left[0], right[0]
    if node.op == "/" and b == 0:
        return None
    if node.op == "less":
        b = abs(b)
    value = {"+": a + b, "-": a - b, "less": a - b, "*": a * b, "/": a / b if b else 0.0}[
        node.op]

    def shown(child: Node, text: str, right_side: bool) -> str:
        if isinstance(child, BinOp) and (
                _PRECEDENCE[child.op] < _PRECEDENCE[node.op]
                or (right_side and node.op in ("-", "/", "less")
                    and _PRECEDENCE[child.op] == _PRECEDENCE[node.op])):
            return f"({text})"
        return text

    sign = {"-": "−", "*": "×", "less": "−"}.get(node.op, node.op)
    rtext = shown(node.right, right[1], True)
    if node.op == "less" and right[0] < 0:
        rtext = f"|{rtext}|"
    return value, f"{shown(node.left, left[1], False)} {sign} {rtext}"


def _asked(question: str, defs: list[tuple[str, Node]]) -> Node | None:
    """The formula the question asks for: the asked phrase (``what is the FY2022 unadjusted
    EBITDA less capex``) read as a formula when it holds an operator word (``less`` = minus)
    over defined names or line items; else the first defined formula whose name the question
    text before the definitions names; else the first defined formula."""
    head = _head(question)
    m = _ASKED.search(head)
    if m:
        phrase = _YEAR.sub(" ", m.group("q"))
        phrase = re.sub(r"\s+for\s+[A-Z][\w.&'’ -]*$", " ", phrase.strip())
        if _LESS.search(phrase):
            node = parse(_LESS.sub(" - ", phrase))
            if isinstance(node, BinOp) and node.op == "-":
                return BinOp("less", node.left, node.right)
    low = head.lower()
    for name, node in defs:
        if re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", low):
            return node
    return defs[0][1] if defs else None


_DEFINING = re.compile(r"\b(?:defined as|calculated as|define)\b|=", re.I)


def _head(question: str) -> str:
    """The question's text before the sentence that starts defining a formula."""
    m = _DEFINING.search(question)
    if not m:
        return question
    cut = max(question.rfind(".", 0, m.start()), question.rfind("?", 0, m.start()))
    return question[: cut + 1] if cut > 0 else question[: m.start()]


_ASKED = re.compile(r"\bwhat\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w.&]+['’]s\s+)?"
                    r"(?P<q>[^?]+)\?", re.I)
_LESS = re.compile(r"\s+less\s+", re.I)
_PERCENT = re.compile(r"%|\bpercent", re.I)


def _formula(question: str, defs: list[tuple[str, Node]], rows: Sequence[RowAt],
             terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]],
             normalize: Callable[[str], str]) -> Derived | None:
    node = _asked(question, defs)
    if node is None:
        return None
    head_years = _years(_head(question)) or _years(question)
    year = head_years[0] if head_years else None
    ev = _Eval(rows, dict(defs), year, terms_of, normalize, used=[])
    got = _node(node, ev)
    if got is None or not ev.used:
        return None
    value, shown = got
    percent = False
    rest = question
    for name, _ in defs:  # "% margin", "in units of percents" outside the formulas' own text
        rest = rest.replace(name, " ")
    if _PERCENT.search(rest) and isinstance(node, BinOp) and node.op == "/":
        value, percent = value * 100.0, True
    d = _decimals(question, 2)
    value = round(value, d)
    shown_value = f"{value:.{d}f}{'%' if percent else ''}"
    text = (f"{shown_value} = {shown}{' × 100' if percent else ''} — "
            + " | ".join(r.unit for r in ev.used))
    return Derived(text, value, tuple(ev.used))


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
