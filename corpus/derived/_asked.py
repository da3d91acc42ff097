"""The formula a question asks for: the asked phrase read as a formula (``A less B``, ``A as a %
of B``, ``A % margin``, ``N year average of E from FY1 to FY2``, a financial ratio by its name:
``ROA``, ``current ratio``, ``cash conversion cycle``) or the defined formula it names
(``corpus.derived``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.derived._numbers import YEAR
from corpus.formula import BinOp, Item, Node, parse, ratio

__all__ = ["Asked", "asked_formula", "asked_phrase", "question_head"]


@dataclass(frozen=True, slots=True)
class Asked:
    """The formula a question asks for: ``node``; ``percent`` when the asked phrase says so
    (``as a % of``, ``% margin``); ``years`` the fiscal years an ``N year average of …`` runs
    over (empty: one figure); ``standard`` when ``node`` is a ratio's textbook definition (its
    line items then need rows whose labels name them wholly)."""

    node: Node
    percent: bool = False
    years: tuple[str, ...] = ()
    standard: bool = False


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


def asked_phrase(question: str, *, ratios: bool = True) -> Asked | None:
    """The asked phrase (``what is the FY2022 unadjusted EBITDA less capex``) as a formula, or
    ``None`` when it holds none of the operator phrases; with ``ratios``, also a financial
    ratio it names by its textbook definition (``corpus.formula.ratio``)."""
    m = _ASKED.search(question_head(question))
    if not m:
        return None
    raw = re.sub(r"\s+for\s+[A-Z][\w.&'’() -]*$", "", m.group("q").strip())
    raw = re.sub(r"^(?:year[- ]end\s+)", "", raw.strip(), flags=re.I)
    avg = _N_AVERAGE.match(raw.strip())
    if avg:
        inner = _phrase_formula(" ".join(YEAR.sub(" ", avg.group("e")).split()))
        a, b = int(avg.group("a")), int(avg.group("b"))
        if b < a or b - a > 9:
            return None
        node = inner[0] if inner else Item(avg.group("e"))
        return Asked(node, inner[1] if inner else False,
                      tuple(str(y) for y in range(a, b + 1)))
    phrase = " ".join(YEAR.sub(" ", raw).split())
    got = _phrase_formula(phrase)
    if got is not None:
        return Asked(got[0], got[1])
    # a financial ratio named without a definition ("what is roa for ADBE in FY2015?", "what
    # is current ratio in FY2021 for Nike?"): its textbook definition (corpus.formula.RATIOS);
    # the name is the phrase up to a preposition that starts its company or period
    name = _NAME_END.split(phrase, maxsplit=1)[0].strip()
    known = ratio(name) if name and ratios else None
    return Asked(known, standard=True) if known is not None else None


def asked_formula(question: str, defs: list[tuple[str, Node]]) -> Asked | None:
    """The formula the question asks for: the asked phrase read as a formula
    (:func:`asked_phrase`; a ratio's textbook definition only when the question defines no
    formula); else the first defined formula whose name the question text before the
    definitions names; else the first defined formula."""
    # a formula the question defines wins over a ratio's textbook definition
    phrase = asked_phrase(question, ratios=not defs)
    if phrase is not None:
        return phrase
    low = question_head(question).lower()
    for name, node in defs:
        if re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", low):
            return Asked(node)
    return Asked(defs[0][1]) if defs else None


_DEFINING = re.compile(r"\b(?:defined as|calculated as|define)\b|=", re.I)


def question_head(question: str) -> str:
    """The question's text before the sentence that starts defining a formula."""
    m = _DEFINING.search(question)
    if not m:
        return question
    cut = max(question.rfind(".", 0, m.start()), question.rfind("?", 0, m.start()))
    return question[: cut + 1] if cut > 0 else question[: m.start()]


_ASKED = re.compile(r"\bwhat\s+(?:is|was|were|are)\s+(?:the\s+)?(?:[\w.&]+['’]s\s+)?"
                    r"(?P<q>[^?]+)\?", re.I)
_LESS = re.compile(r"\s+less\s+", re.I)
# where a ratio's name ends in an asked phrase: "current ratio in FY2021 for Nike", "sales to
# stockholder equity ratio of Neflix", "return on capital employed for the fiscal year …"
_NAME_END = re.compile(r"\s+(?:in|for|of|at|during|as\s+of)\b.*$", re.I)
_PERCENT = re.compile(r"%|\bpercent", re.I)
