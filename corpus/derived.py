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
  parentheses is subtracted, not added); so are ``A as a % of B`` (A / B in percent), ``A %
  margin`` (A / revenue in percent) and ``N year average of E from FY1 to FY2`` (E's mean over
  those years). A figure the question names without defining it is read by its standard
  definition (``corpus.formula.STANDARD``: EBITDA). A top-level division is shown in percent
  when the question asks for one (``%``, ``percent``) outside the formulas' names.

Nothing is computed when a side has no row or no cell of its year: the extractive answer
stands. Rounding follows the question ("round … to two decimal places", else 2 for ratios
and 1 for percentages).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from corpus.formula import BinOp, Item, Node, Num, definitions, parse, standard
from corpus.statement_rows import (
    UNITS,
    StatementRow,
    asked_unit,
    label_cover,
    parse_row,
    period_header,
    table_unit,
)
from corpus.tokenizer import asks_quantity
from corpus.tuning import TUNING
from corpus.types import Chunk, ChunkStore, Citation, SearchFilter, SparseVector

__all__ = ["Derived", "MoreRows", "RowAt", "adjacent_runs", "computable", "converted", "derive",
           "derived_answer",
           "chunks_above", "document_search", "looked_up_answer", "looks_up",
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


# chunk -> the text of the chunks before it in its document (a statement's period header and
# scale often sit a page part or three above the row: a table split into chunks)
TextAbove = Callable[[Chunk], str]


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


def _decimals(question: str, default: int) -> int:
    m = _DECIMALS.search(question)
    if not m:
        return default
    w = m.group(1).lower()
    return _WORD_NUM.get(w, int(w) if w.isdigit() else default)


def _years(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _YEAR.finditer(text)))


# label words a question asking one figure often leaves unsaid: "cash flow from operating
# activities" names "Net cash provided by operating activities" (written while looking at the
# FinanceBench dev questions; words of statement labels, not of any one filing)
_LOOKUP_SILENT = re.compile(r"\b(?:net|total|provided|used)\b", re.I)


def _best_row(rows: Sequence[RowAt], terms: tuple[Sequence[str], Sequence[str]],
              need: Sequence[str], normalize: Callable[[str], str],
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


def _cell(r: RowAt, year: str) -> float:
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


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 and float(v).is_integer() else f"{v:,.2f}".rstrip(
        "0").rstrip(".")


def _form(question: str) -> tuple[str, str] | tuple[str, list[str]] | None:
    """The computable form of a question: ``("ratio", expression)`` for a defined ratio,
    ``("change", [earlier, later])`` for a change between two years, else ``None``."""
    if definitions(question) or _asked_phrase(question) is not None:
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
           normalize: Callable[[str], str], more: MoreRows | None = None,
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
        return _formula(question, definitions(question), rows, terms_of, normalize, more, above)
    assert isinstance(form[1], list)
    return _change(question, form[1], rows, terms_of, normalize)


def _change(question: str, years: list[str], rows: Sequence[RowAt],
            terms_of: Callable[[str], tuple[Sequence[str], Sequence[str]]],
            normalize: Callable[[str], str]) -> Derived | None:
    r = _best_row(rows, terms_of(_STATEMENT_NAME.sub(" ", question)), years, normalize)
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


# (search text, document id or None) -> runs of adjacent chunks of that document holding it: the
# rows of a line item no retrieved chunk holds (the balance sheet when the income statement
# was retrieved), looked up inside the document the formula reads
MoreRows = Callable[[str, str | None], Sequence[Sequence[Chunk]]]


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
    more: MoreRows | None = None
    above: TextAbove | None = None
    seen: set[str] = field(default_factory=set)


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
    known = standard(name) if name not in ev.seen else None
    if known is not None:  # a figure with a standard definition (EBITDA)
        ev.seen.add(name)
        got = _node(known, ev)
        ev.seen.discard(name)
        if got is None:
            return None
        return got[0], f"{words} {_fmt(got[0])} (= {got[1]})"
    years = sorted(_years(words)) if (_AVERAGE.search(words) or _CHANGE_ITEM.search(words)) \
        else _years(words)
    plain = " ".join(_ITEM_WORDS.sub(" ", _YEAR.sub(" ", words)).split())
    terms = ev.terms_of(plain)
    rows = [r for r in ev.rows if ev.doc_id is None or r.chunk.doc_id == ev.doc_id]
    two = len(years) == 2 and bool(_AVERAGE.search(words) or _CHANGE_ITEM.search(words))
    need = years if two else [years[0]] if len(years) == 1 else [ev.year] if (
        not years and ev.year) else []
    if not need:
        return None
    balance = two and bool(_AVERAGE.search(words))
    r = _best_row(rows, terms, need, ev.normalize, balance=balance)
    if ev.more is not None and (
            r is None or label_cover(r.row.label, terms[0], ev.normalize) < 1.0
            or (balance and r.years is not None and len(r.years) != 2)):
        # no row at hand that the item's own words name wholly: search the document, and keep
        # the better of the two (the one at hand on a tie)
        query = " ".join([plain, *(t for t in terms[1] if t not in terms[0])])
        found = statement_rows_of(ev.more(query, ev.doc_id), ev.above)
        ev.rows = [*ev.rows, *found]
        r = _best_row([*([r] if r is not None else []),
                       *(f for f in found if ev.doc_id is None or f.chunk.doc_id == ev.doc_id)],
                      terms, need, ev.normalize, balance=balance)
    if r is None:
        return None
    if two:
        a, b = _cell(r, years[0]), _cell(r, years[1])
        if _AVERAGE.search(words):
            shown = f"average of {r.row.label} {years[0]} {_fmt(a)} and {years[1]} {_fmt(b)}"
            value = (a + b) / 2
        else:
            shown = f"change in {r.row.label} from {years[0]} {_fmt(a)} to {years[1]} {_fmt(b)}"
            value = b - a
    else:
        year = need[0]
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


@dataclass(frozen=True, slots=True)
class _Asked:
    """The formula a question asks for: ``node``; ``percent`` when the asked phrase says so
    (``as a % of``, ``% margin``); ``years`` the fiscal years an ``N year average of …`` runs
    over (empty: one figure)."""

    node: Node
    percent: bool = False
    years: tuple[str, ...] = ()


# phrases of the asked figure read as formulas (English financial phrasing, not fitted to a
# filing): "A as a % of B" = A / B in percent, "A % margin" / "A margin" = A / revenue in
# percent, "A less B" = A minus B's amount, "N year average of E from FY1 to FY2" = the mean of E
# over those fiscal years
_AS_SHARE = re.compile(r"\s+as\s+a\s+(?:%|percent(?:age)?)\s+of\s+", re.I)
_MARGIN = re.compile(r"^(?P<a>.+?)\s*(?:%\s*)?margin$", re.I)
_N_AVERAGE = re.compile(
    r"^(?:(?:two|three|four|five|\d+)[- ]year\s+)?average\s+(?:of\s+)?(?P<e>.+?)\s+from\s+"
    r"(?:fy\s*)?(?P<a>(?:19|20)\d{2})\s+to\s+(?:fy\s*)?(?P<b>(?:19|20)\d{2})$", re.I)


def _phrase_formula(phrase: str) -> tuple[Node, bool] | None:
    """``(tree, percent)`` of an asked phrase holding one of the operator phrases, else
    ``None``."""
    if _AS_SHARE.search(phrase):
        a, b = _AS_SHARE.split(phrase, maxsplit=1)
        return (BinOp("/", Item(a.strip()), Item(b.strip())), True) if a.strip() and \
            b.strip() else None
    m = _MARGIN.match(phrase)
    if m and m.group("a").strip():
        return BinOp("/", Item(m.group("a").strip()), Item("revenue")), True
    if _LESS.search(phrase):
        node = parse(_LESS.sub(" - ", phrase))
        if isinstance(node, BinOp) and node.op == "-":
            return BinOp("less", node.left, node.right), False
    return None


def _asked_phrase(question: str) -> _Asked | None:
    """The asked phrase (``what is the FY2022 unadjusted EBITDA less capex``) as a formula, or
    ``None`` when it holds none of the operator phrases."""
    m = _ASKED.search(_head(question))
    if not m:
        return None
    raw = re.sub(r"\s+for\s+[A-Z][\w.&'’() -]*$", "", m.group("q").strip())
    raw = re.sub(r"^(?:year[- ]end\s+)", "", raw.strip(), flags=re.I)
    avg = _N_AVERAGE.match(raw.strip())
    if avg:
        inner = _phrase_formula(" ".join(_YEAR.sub(" ", avg.group("e")).split()))
        a, b = int(avg.group("a")), int(avg.group("b"))
        if b < a or b - a > 9:
            return None
        node = inner[0] if inner else Item(avg.group("e"))
        return _Asked(node, inner[1] if inner else False,
                      tuple(str(y) for y in range(a, b + 1)))
    got = _phrase_formula(" ".join(_YEAR.sub(" ", raw).split()))
    return _Asked(got[0], got[1]) if got else None


def _asked(question: str, defs: list[tuple[str, Node]]) -> _Asked | None:
    """The formula the question asks for: the asked phrase read as a formula
    (:func:`_asked_phrase`); else the first defined formula whose name the question text
    before the definitions names; else the first defined formula."""
    phrase = _asked_phrase(question)
    if phrase is not None:
        return phrase
    low = _head(question).lower()
    for name, node in defs:
        if re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", low):
            return _Asked(node)
    return _Asked(defs[0][1]) if defs else None


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
             normalize: Callable[[str], str], more: MoreRows | None = None,
             above: TextAbove | None = None) -> Derived | None:
    asked = _asked(question, defs)
    if asked is None:
        return None
    node = asked.node
    head_years = _years(_head(question)) or _years(question)
    year = head_years[0] if head_years else None
    ev = _Eval(rows, dict(defs), year, terms_of, normalize, used=[], more=more, above=above)
    rest = question
    for name, _ in defs:  # "% margin", "in units of percents" outside the formulas' own text
        rest = rest.replace(name, " ")
    percent = asked.percent or bool(
        _PERCENT.search(rest) and isinstance(node, BinOp) and node.op == "/")
    scale = 100.0 if percent else 1.0
    if asked.years:  # "three year average of E from FY2016 to FY2018": E at each year
        parts = []
        for y in asked.years:
            ev.year = y
            one = _node(node, ev)
            if one is None:
                return None
            parts.append((y, one[0] * scale, one[1]))
        value = sum(p[1] for p in parts) / len(parts)
        shown = "average of " + "; ".join(
            f"{y}: {v:.2f}{'%' if percent else ''} (= {t}{' × 100' if percent else ''})"
            for y, v, t in parts)
        percent_shown = ""
    else:
        got = _node(node, ev)
        if got is None:
            return None
        value, shown = got[0] * scale, got[1]
        percent_shown = " × 100" if percent else ""
    if not ev.used:
        return None
    d = _decimals(question, 2)
    value = round(value, d)
    shown_value = f"{value:.{d}f}{'%' if percent else ''}"
    scales = {r.scale for r in ev.used}
    if isinstance(node, BinOp) and node.op in ("+", "-", "less") and len(scales) == 1:
        # a sum or difference of cells is in their statement's scale
        shown_value += converted(value, scales.pop(), asked_unit(question))
    text = f"{shown_value} = {shown}{percent_shown} — " + " | ".join(r.unit for r in ev.used)
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
    more: MoreRows | None = None,
    above: TextAbove | None = None,
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
# balance sheet") is no line item: its words must not name a row ("Net income")
_STATEMENT_NAME = re.compile(
    r"\b(?:(?:consolidated\s+)?statements?\s+of\s+(?:income|operations|earnings|cash\s*flows?"
    r"|financial\s+position|comprehensive\s+income)|income\s+statements?|balance\s+sheets?"
    r"|cash\s*flow\s+statements?|p\s*&\s*l(?:\s+statements?)?)\b", re.I)


def looks_up(question: str) -> bool:
    """True when :func:`looked_up_answer` may answer ``question``: it asks for a figure of
    exactly one year and has no computable form (a cheap test before any chunk is read)."""
    return len(_years(question)) == 1 and asks_quantity(question) and not computable(question)


def looked_up_answer(
    question: str,
    chunk_groups: Sequence[Sequence[Chunk]],
    key_terms: Callable[[str], Sequence[str]],
    normalize: Callable[[str], str],
    make_citation: Callable[[Chunk, str], Citation | None],
    phrases: Callable[[str], Sequence[str]] | None = None,
    above: TextAbove | None = None,
) -> tuple[str, list[Citation]] | None:
    """A figure looked up in a statement row: for a question asking for a figure
    (:func:`corpus.tokenizer.asks_quantity`) of exactly one year and not computable, the row
    whose label the question names wholly (every label word but ``net``, ``total``,
    ``provided``, ``used``, by its key terms or field phrases)
    with a value under that year's column, as ``"<label>, <year>: <cell> — <row>"`` with the
    row's verified citation; ``None`` otherwise. Arguments as :func:`derived_answer`.

    The caller decides where the rows may come from: a LoopAgent uses it only on the chunks it
    read inside the documents the question was resolved to (a look-alike filing's row would
    answer with another company's figure)."""
    if not looks_up(question):
        return None
    years = _years(question)
    asked = _STATEMENT_NAME.sub(" ", question)
    r = _best_row(statement_rows_of(chunk_groups, above), _label_terms(asked, key_terms, phrases),
                  years, normalize, min_cover=1.0, silent=_LOOKUP_SILENT)
    if r is None or r.years is None:
        return None
    cit = make_citation(r.chunk, r.unit)
    if cit is None:
        return None
    cell = r.row.cells[r.years.index(years[0])]
    scaled = converted(cell.value, r.scale, asked_unit(question)) if cell.value is not None \
        else ""
    return f"{r.row.label}, {years[0]}: {cell.raw}{scaled} — {cit.quote}", [cit]
