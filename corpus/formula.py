"""Formulas a question defines in words (issue 15, item 3): ``DPO is defined as: 365 * (average
accounts payable between FY2016 and FY2017) / (FY2017 COGS + change in inventory between FY2016
and FY2017)`` read as an expression tree whose leaves are numbers and *line items* (phrases
naming a statement row, with their years), evaluated elsewhere (``corpus.derived``) from cited
statement rows.

Grammar (the usual precedence, left to right)::

    expr   := term (("+" | "-") term)*
    term   := factor (("*" | "/") factor)*
    factor := number | "(" expr ")" | item

Word operators become symbols first: ``divided by`` → ``/``, ``multiplied by`` / ``times`` →
``*``, ``plus`` → ``+``, ``minus`` → ``-``; a hyphen is an operator only with a space on each
side (``year-over-year``, ``non-current`` stay words); ``[…]`` notes are dropped. A definition is
``<name> is defined as[:] <expr>``, ``define <name> as <expr>`` or ``<name> = <expr>``; the
expression runs to the sentence end (``. ? ;``, a decimal point excepted). Nothing here is
fitted to questions: these are the phrasings of written definitions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["RATIOS", "STANDARD", "BinOp", "Item", "Node", "Num", "definitions", "parse", "ratio",
           "standard"]

_NOTE = re.compile(r"\[[^\]]*\]")
_WORD_OPS = (
    (re.compile(r"\s+divided\s+by\s+", re.I), " / "),
    (re.compile(r"\s+(?:multiplied\s+by|times)\s+", re.I), " * "),
    (re.compile(r"\s+plus\s+", re.I), " + "),
    (re.compile(r"\s+minus\s+", re.I), " - "),
    (re.compile(r"\s[-−–]\s"), " - "),
    (re.compile(r"×"), " * "),
    (re.compile(r"÷"), " / "),
)
# a number is a constant only when an operator or the end follows ("2017 COGS" is an item)
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)(?=\s*(?:[+*/()]| - |$))|(?P<op> - |[+*/()]))")
_SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|[?;]|\.(?=\s|$)")
_DEF = re.compile(
    r"(?P<name>[A-Za-z][\w&%'() -]{0,60}?)\s+(?:is|are)\s+(?:defined|calculated)\s+as\s*:?\s*"
    r"|\bdefine\s+(?P<name2>[\w&%'() -]{1,60}?)\s+as\s*:?\s*"
    r"|(?P<name3>[A-Za-z][\w&%' -]{0,40}?)\s*=\s*", re.I)
_LEAD = re.compile(r"^(?:the|a|an|and|so|then|where|here|also)\s+", re.I)


@dataclass(frozen=True, slots=True)
class Num:
    """A constant written in the formula (``365``)."""

    value: float


@dataclass(frozen=True, slots=True)
class Item:
    """A line item: the words naming it (``average accounts payable between FY2016 and
    FY2017``), years included."""

    words: str


@dataclass(frozen=True, slots=True)
class BinOp:
    """``left op right``, ``op`` one of ``+ - * /``."""

    op: str
    left: Node
    right: Node


Node = Num | Item | BinOp


def _tokens(expr: str) -> list[tuple[str, str]] | None:
    """``[(kind, text)]`` with kind ``num``, ``op`` or ``item``; ``None`` for an empty one."""
    text = _NOTE.sub(" ", expr)
    for pat, rep in _WORD_OPS:
        text = pat.sub(rep, text)
    text = f" {text.strip()} "
    out: list[tuple[str, str]] = []
    pos, words = 0, ""
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m and (m.group("op") or (m.group("num") and not words.strip())):
            if words.strip():
                out.append(("item", " ".join(words.split())))
                words = ""
            out.append(("op", m.group("op").strip()) if m.group("op") else ("num", m.group("num")))
            pos = m.end()
            continue
        words += text[pos]
        pos += 1
    if words.strip():
        out.append(("item", " ".join(words.split())))
    return out or None


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def expr(self) -> Node:
        return self.binary(("+", "-"), self.term)

    def term(self) -> Node:
        return self.binary(("*", "/"), self.factor)

    def binary(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        """``operand (op operand)*`` for ``op`` in ``ops``, grouped to the left."""
        node = operand()
        while (p := self.peek()) is not None and p[0] == "op" and p[1] in ops:
            self.i += 1
            node = BinOp(p[1], node, operand())
        return node

    def factor(self) -> Node:
        p = self.peek()
        if p is None:
            raise ValueError("expression ends early")
        self.i += 1
        if p == ("op", "("):
            node = self.expr()
            if self.peek() != ("op", ")"):
                raise ValueError("unclosed parenthesis")
            self.i += 1
            return node
        if p[0] == "num":
            return Num(float(p[1]))
        if p[0] == "item":
            return Item(p[1])
        raise ValueError(f"unexpected {p[1]!r}")


def parse(expr: str) -> Node | None:
    """The expression tree of ``expr``, or ``None`` when it does not parse (unbalanced
    parentheses, an operator without an operand, text left over)."""
    tokens = _tokens(expr)
    if not tokens:
        return None
    p = _Parser(tokens)
    try:
        node = p.expr()
    except ValueError:
        return None
    return node if p.i == len(tokens) else None


def definitions(question: str) -> list[tuple[str, Node]]:
    """The formulas ``question`` defines, in question order, as ``(name, tree)``: the name
    lower-cased without a leading article (``"dpo"``, ``"working capital ratio"``); only those
    whose expression parses and holds an operator (``"X is defined as revenue"`` is a synonym,
    not a formula)."""
    out: list[tuple[str, Node]] = []
    for m in _DEF.finditer(question):
        name = (m.group("name") or m.group("name2") or m.group("name3") or "").strip()
        # the name is the end of its clause: "..., what is X? X is defined as" -> "X"
        name = re.split(r"[.?!;:,]\s*", name)[-1].strip()
        name = _LEAD.sub("", name).strip().lower()
        rest = question[m.end():]
        end = _SENTENCE_END.search(rest)
        node = parse(rest[: end.start()] if end else rest)
        if name and isinstance(node, BinOp):
            out.append((name, node))
    return out


# standard definitions of figures a question may name without defining them: EBITDA is
# earnings before interest, taxes, depreciation and amortization, i.e. operating income plus
# depreciation and amortization (the "unadjusted EBITDA" of FinanceBench questions, which name
# both parts: "Calculate unadjusted EBITDA using unadjusted operating income and D&A")
STANDARD = {"ebitda": "operating income + depreciation and amortization"}

# the textbook definitions of the common financial ratios (CFA Institute, "Financial Analysis
# Techniques", CFA Program curriculum: activity, liquidity, solvency and profitability ratios;
# an "average" balance is the mean of the year's and the prior year's year-end, an operating
# profit stands for EBIT), by the names a question uses; field knowledge, not fitted to
# questions. A question that defines its own formula is read by its definition instead.
RATIOS: dict[str, str] = {
    "return on assets": "net income / total assets",
    "return on equity": "net income / total shareholders' equity",
    "current ratio": "total current assets / total current liabilities",
    "quick ratio": "(cash and cash equivalents + short-term investments + accounts receivable)"
                   " / total current liabilities",
    "cash ratio": "(cash and cash equivalents + short-term investments)"
                  " / total current liabilities",
    "interest coverage": "operating income / interest expense",
    "operating cash flow ratio": "net cash provided by operating activities"
                                 " / total current liabilities",
    "return on capital employed": "operating income / (total assets - total current liabilities)",
    "inventory turnover": "cost of sales / average inventories",
    "receivables turnover": "revenue / average accounts receivable",
    "payables turnover": "cost of sales / average accounts payable",
    "total asset turnover": "revenue / average total assets",
    "fixed asset turnover": "revenue / average property, plant and equipment",
    "days inventory outstanding": "365 * average inventories / cost of sales",
    "days sales outstanding": "365 * average accounts receivable / revenue",
    "days payable outstanding": "365 * average accounts payable / cost of sales",
    "cash conversion cycle": "days inventory outstanding + days sales outstanding"
                             " - days payable outstanding",
}
# other names of the ratios above (abbreviations, singular / plural, "times interest earned")
_RATIO_NAMES = {
    "roa": "return on assets", "return on asset": "return on assets",
    "return on total assets": "return on assets",
    "roe": "return on equity", "return on shareholders' equity": "return on equity",
    "return on stockholders' equity": "return on equity",
    "return on shareholders equity": "return on equity",
    "return on stockholders equity": "return on equity",
    "acid-test ratio": "quick ratio", "acid test ratio": "quick ratio",
    "interest coverage ratio": "interest coverage", "times interest earned": "interest coverage",
    "roce": "return on capital employed",
    "inventory turnover ratio": "inventory turnover",
    "receivables turnover ratio": "receivables turnover",
    "accounts receivable turnover": "receivables turnover",
    "payables turnover ratio": "payables turnover",
    "accounts payable turnover": "payables turnover",
    "asset turnover": "total asset turnover", "asset turnover ratio": "total asset turnover",
    "total asset turnover ratio": "total asset turnover",
    "fixed asset turnover ratio": "fixed asset turnover",
    "dio": "days inventory outstanding", "days inventory on hand": "days inventory outstanding",
    "dso": "days sales outstanding", "days of sales outstanding": "days sales outstanding",
    "dpo": "days payable outstanding", "days payables outstanding": "days payable outstanding",
    "ccc": "cash conversion cycle",
}


_TO_RATIO = re.compile(r"^(?P<a>[\w&' -]+?)\s+to\s+(?P<b>[\w&' -]+?)\s+ratio$")


def ratio(name: str) -> Node | None:
    """The definition of the financial ratio ``name`` names as a whole: one of :data:`RATIOS`
    (``"ROA"``, ``"return on asset"``, ``"current ratio"``, ``"days payable outstanding
    (DPO)"``), or ``"A to B ratio"`` read as A / B (``"sales to stockholder equity ratio"``);
    ``None`` for any other name."""
    low = " ".join(re.sub(r"\([^)]*\)", " ", name.lower()).replace("’", "'").split())
    expr = RATIOS.get(_RATIO_NAMES.get(low, low))
    if expr is not None:
        return parse(expr)
    m = _TO_RATIO.match(low)
    if m and m.group("a").strip() and m.group("b").strip():
        return BinOp("/", Item(m.group("a").strip()), Item(m.group("b").strip()))
    return None


def standard(name: str) -> Node | None:
    """The standard definition of ``name``: a financial ratio it names (:func:`ratio`), else
    the figure of :data:`STANDARD` its last word names (``"unadjusted EBITDA"`` → operating
    income + depreciation and amortization); ``None`` for any other name."""
    got = ratio(name)
    if got is not None:
        return got
    words = name.lower().split()
    expr = STANDARD.get(words[-1]) if words else None
    return parse(expr) if expr else None
