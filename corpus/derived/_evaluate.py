"""Evaluation of a question's formula over statement rows: each line item read from the row
its words name best (searched in the document when none at hand), the arithmetic shown as it
is done (``corpus.derived``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from corpus.derived._asked import asked_formula, question_head
from corpus.derived._numbers import AVERAGE, YEAR, converted, decimals_of, fmt, years_in
from corpus.derived._rows import best_row, cell_value, head_cover, statement_rows_of
from corpus.derived._statements import named_statements
from corpus.derived._types import Derived, MoreRows, Normalize, RowAt, TermsOf, TextAbove
from corpus.formula import BinOp, Item, Node, Num, ratio, standard
from corpus.statement_rows import asked_unit, label_cover

__all__ = ["formula_answer"]

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
    terms_of: TermsOf
    normalize: Normalize
    doc_id: str | None = None
    used: list[RowAt] | None = None
    more: MoreRows | None = None
    above: TextAbove | None = None
    seen: set[str] = field(default_factory=set)
    strict: bool = False  # line items of a textbook definition: labels must name them wholly
    statements: frozenset[str] = frozenset()  # the statements the question says to read


def _item(words: str, ev: _Eval) -> tuple[float, str] | None:
    """``(value, shown arithmetic)`` of one line item: ``average X between Y1 and Y2`` (mean of
    two cells; ``average X`` alone: the question's year and the one before),
    ``change in X between Y1 and Y2`` (later − earlier), ``FY2017 X`` (one cell),
    ``X`` (the cell of the question's year); a name the question defines is its formula."""
    name = re.sub(r"^(?:the|a|an)\s+", "", words.strip(), flags=re.I).lower()
    if name in ev.defs:
        node = ev.defs.pop(name)  # no formula uses itself
        got = _node(node, ev)
        ev.defs[name] = node
        return _named(words, got)
    known = standard(name) if name not in ev.seen else None
    if known is not None:  # a figure with a standard definition (EBITDA, DIO)
        ev.seen.add(name)
        # a ratio's textbook line items need wholly named rows; EBITDA's parts (operating
        # income: "Operating profit") are read like the question's own words
        strict, ev.strict = ev.strict, ev.strict or ratio(name) is not None
        got = _node(known, ev)
        ev.seen.discard(name)
        ev.strict = strict
        return _named(words, got)
    return _row_item(words, ev)


def _named(words: str, got: tuple[float, str] | None) -> tuple[float, str] | None:
    """A named figure's ``(value, "<name> <value> (= <its arithmetic>)")``; ``None`` stays."""
    return None if got is None else (got[0], f"{words} {fmt(got[0])} (= {got[1]})")


def _row_item(words: str, ev: _Eval) -> tuple[float, str] | None:
    """``(value, shown)`` of a line item read from the statement row its words name."""
    years = sorted(years_in(words)) if (AVERAGE.search(words) or _CHANGE_ITEM.search(words)) \
        else years_in(words)
    if not years and ev.year and AVERAGE.search(words):
        # "average inventories" of a standard ratio: the year's and the prior year's year-end
        # balance (corpus.formula.RATIOS)
        years = [str(int(ev.year) - 1), ev.year]
    plain = " ".join(_ITEM_WORDS.sub(" ", YEAR.sub(" ", words)).split())
    terms = ev.terms_of(plain)
    rows = [r for r in ev.rows if ev.doc_id is None or r.chunk.doc_id == ev.doc_id]
    want = _stems(plain, ev.terms_of) if ev.strict else []
    if ev.strict:
        rows = [r for r in rows if _names_item(r.row.label, want, ev.terms_of)]
    two = len(years) == 2 and bool(AVERAGE.search(words) or _CHANGE_ITEM.search(words))
    need = years if two else [years[0]] if len(years) == 1 else [ev.year] if (
        not years and ev.year) else []
    if not need:
        return None
    # an average or a change between two years reads two year-ends of a balance: a balance
    # sheet's row before the cash-flow statement's row of the same label (the year's change)
    balance = two

    def named_there(c: RowAt) -> bool:
        # a row of a statement the question names ("D&A (from cash flow statement)") whose
        # label the item's own words name wholly, a label qualified by "of …" by its head
        # ("Depreciation and amortization of property, equipment and intangibles")
        return c.statement in ev.statements and head_cover(c.row.label, terms[0],
                                                           ev.normalize) >= 1.0

    def pick(candidates: Sequence[RowAt]) -> RowAt | None:
        # such a row goes before the rows of other tables (the deferred-tax footnote's
        # "Depreciation and amortization"); else the best row of every table, as before
        scoped = [c for c in candidates if c.statement in ev.statements]
        got = best_row(scoped, terms, need, ev.normalize, balance=balance,
                       heads=True) if scoped else None
        if got is not None and named_there(got):
            return got
        return best_row(candidates, terms, need, ev.normalize, balance=balance)

    r = pick(rows)
    if ev.more is not None and (
            r is None or label_cover(r.row.label, terms[0], ev.normalize) < 1.0
            or (balance and r.years is not None and len(r.years) != 2)
            or (ev.statements and r.statement not in ev.statements)):
        # no row at hand that the item's own words name wholly (or none in the statement the
        # question names): search the document, and keep the better of the two (the one at
        # hand on a tie)
        query = " ".join([plain, *(t for t in terms[1] if t not in terms[0])])
        found = statement_rows_of(ev.more(query, ev.doc_id), ev.above)
        if ev.statements and not any(named_there(f) for f in found):
            # none of them in the statement the question names: search it by its title too
            titles = " ".join(_STATEMENT_WORDS[k] for k in sorted(ev.statements))
            found += [f for f in statement_rows_of(ev.more(f"{plain} {titles}", ev.doc_id),
                                                   ev.above) if f.statement in ev.statements]
        ev.rows = [*ev.rows, *found]
        r = pick([*([r] if r is not None else []),
                  *(f for f in found if (ev.doc_id is None or f.chunk.doc_id == ev.doc_id)
                    and (not ev.strict or _names_item(f.row.label, want, ev.terms_of)))])
    if r is None:
        return None
    # a ratio's expense is its amount: statements write an expense or payment in parentheses
    # ("Interest expense (848)"), which would turn "interest coverage" negative
    amount = ev.strict and _OUTFLOW.search(r.row.label) is not None
    if two:
        a, b = cell_value(r, years[0]), cell_value(r, years[1])
        if amount:
            a, b = abs(a), abs(b)
        if AVERAGE.search(words):
            shown = f"average of {r.row.label} {years[0]} {fmt(a)} and {years[1]} {fmt(b)}"
            value = (a + b) / 2
        else:
            shown = f"change in {r.row.label} from {years[0]} {fmt(a)} to {years[1]} {fmt(b)}"
            value = b - a
    else:
        year = need[0]
        value = abs(cell_value(r, year)) if amount else cell_value(r, year)
        shown = f"{r.row.label} {year} {fmt(value)}"
    ev.doc_id = r.chunk.doc_id  # a formula of two filings' rows means nothing
    if ev.used is not None and all(u is not r for u in ev.used):
        ev.used.append(r)
    return value, shown


# words statements write for the same item: "stockholders' equity" / "shareholders' equity" /
# "shareowners' equity", "sales" / "revenue(s)" (as the tokenizer's stems)
_SAME_WORD = {"stockhold": "sharehold", "shareown": "sharehold", "sale": "revenu"}
_LABEL_WORD = re.compile(r"[a-z][a-z'-]*")
# a row of an amount spent (its sign is the statement's presentation, not the ratio's)
_OUTFLOW = re.compile(r"\b(?:expenses?|costs?|payments?|purchases?|repurchases?|paid)\b", re.I)
# words a statement puts before a line item's own name ("Total net sales" for revenue)
_LEADING = frozenset({"total", "net"})


def _stems(text: str, terms_of: TermsOf) -> list[str]:
    """The stems of ``text``'s words in order (function words left out)."""
    out: list[str] = []
    for w in _LABEL_WORD.findall(text.lower()):
        got = terms_of(w)[0]
        if got:
            out.append(_SAME_WORD.get(got[0], got[0]))
    return out


def _names_item(label: str, want: Sequence[str], terms_of: TermsOf) -> bool:
    """True when the row ``label`` begins with the line item's words (``want``: their stems,
    :func:`_stems`; one starting the other, ``_SAME_WORD`` alike), after a leading
    "Total" / "Net" the item lacks: "Net income attributable to Nike" and "Total net sales"
    name "net income" and "revenue"; "Total" does not name "total assets", nor "Total current
    assets" "total assets", nor "Interest income" "interest expense", nor "Total current
    liabilities" "accounts receivable" (a field-vocabulary group holds both)."""
    have = _stems(label, terms_of)
    while have and have[0] in _LEADING and have[0] not in want:
        have = have[1:]
    return bool(want) and len(have) >= len(want) and all(
        h.startswith(w) or w.startswith(h) for w, h in zip(want, have, strict=False))


def _node(node: Node, ev: _Eval) -> tuple[float, str] | None:
    """``(value, shown arithmetic)`` of a formula tree; ``None`` when an item has no row or a
    division by zero."""
    if isinstance(node, Num):
        return node.value, fmt(node.value)
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

_PERCENT = re.compile(r"%|\bpercent", re.I)
# the words a statement's title adds to a document search for its rows
_STATEMENT_WORDS = {"balance": "balance sheets", "income": "statements of operations income",
                    "cash_flows": "statements of cash flows"}


def formula_answer(question: str, defs: list[tuple[str, Node]], rows: Sequence[RowAt],
             terms_of: TermsOf,
             normalize: Normalize, more: MoreRows | None = None,
             above: TextAbove | None = None) -> Derived | None:
    asked = asked_formula(question, defs)
    if asked is None:
        return None
    node = asked.node
    head_years = years_in(question_head(question)) or years_in(question)
    year = head_years[0] if head_years else None
    ev = _Eval(rows, dict(defs), year, terms_of, normalize, used=[], more=more, above=above,
               strict=asked.standard, statements=named_statements(question))
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
    d = decimals_of(question, 2)
    value = round(value, d)
    shown_value = f"{value:.{d}f}{'%' if percent else ''}"
    scales = {r.scale for r in ev.used}
    if isinstance(node, BinOp) and node.op in ("+", "-", "less") and len(scales) == 1:
        # a sum or difference of cells is in their statement's scale
        shown_value += converted(value, scales.pop(), asked_unit(question))
    text = f"{shown_value} = {shown}{percent_shown} — " + " | ".join(r.unit for r in ev.used)
    return Derived(text, value, tuple(ev.used))

