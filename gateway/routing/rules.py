"""The router's decision logic as pure functions (no I/O; DESIGN.md "The data that flows", step 2).

- :func:`detect_signals` finds what in a question the RAG fast path cannot serve well: an
  explicit **reference** to a section, page, clause, article, table or appendix (``第3条``,
  ``page 5``, ``section 3.2``), a **comparison** (``compare``, ``vs``, ``区别``, ``相比``), or a
  **multi-part** question (several sub-questions, or several distinct entities of one kind such as
  two years or two product codes).
- :func:`decide` turns the requested mode, the RAG confidence and those signals into a
  :class:`Decision` (``rag`` or ``loop``) with a human-readable reason for the route record.
- :func:`retrieval_query` resolves a follow-up question with the conversation history before
  retrieval (the previous user turn is prepended when the question leans on it);
  :func:`dated_query` gives a question about a period relative to today ("the current fiscal
  quarter", 上个月) the year of ``current_date`` to retrieve with; :func:`search_query` is the
  two together, the text every path's retrieval searches for one routed question.

The patterns are heuristics written for LoopGate (English and Chinese); every rule can be
switched off by a setting (``escalate_on_reference`` …) and the threshold is
``confidence_threshold``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from corpus.term_forms import ANY_YEAR
from gateway.routing.followup import is_followup

__all__ = [
    "Decision",
    "Mode",
    "RuleConfig",
    "Signal",
    "decide",
    "detect_signals",
    "dated_query",
    "retrieval_query",
    "search_query",
]

Mode = Literal["auto", "rag", "loop"]

_REFERENCE = re.compile(
    r"第\s*[0-9一二三四五六七八九十百零〇两]+\s*[条款章节页项篇部编段]"
    r"|(?:附录|附件|附表|表|图)\s*[0-9A-Za-z一二三四五六七八九十]+"
    r"|\b(?:page|p\.|pp\.|pages)\s*\d+"
    r"|\b(?:section|sect\.|sec\.|clause|article|art\.|chapter|chap\.|paragraph|para\.|item"
    r"|appendix|annex|schedule|exhibit|table|figure|fig\.|part|note|rule)\s*[0-9IVXivx][0-9.()a-z]*"
    r"|§\s*\d+",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\bcompar(?:e|ed|es|ing|ison)\b|\bdifferen(?:ce|ces|t)\s+(?:between|from)\b|\bdiffer\b"
    r"|\bversus\b|\bvs\.?\s|\bwhich\s+(?:is|was|has|had)\s+(?:higher|lower|larger|smaller|better|"
    r"worse|more|less|bigger|greater)\b|\b(?:higher|lower|larger|smaller|greater)\s+than\b"
    r"|区别|差别|差异|比较|对比|相比|相较|不同之处|有何不同|有什么不同|哪个更|哪一个更|孰",
    re.IGNORECASE,
)
_CODE = re.compile(r"\b[A-Z]{1,6}-?\d{2,}[A-Z0-9-]*\b")
_NAME_PAIR = re.compile(
    r"\b([A-Z][\w&'.-]+(?:\s+[A-Z][\w&'.-]+)*)\s+(?:and|or|&)\s+([A-Z][\w&'.-]+(?:\s+[A-Z][\w&'.-]+)*)"
    r"|([\u4e00-\u9fff]{2,8})(?:和|与|及|以及|跟)([\u4e00-\u9fff]{2,8})(?:的|各|分别)"
)
_QMARK = re.compile(r"[?？]")
_WH_EN = re.compile(
    r"\b(?:what|when|where|which|who|whom|whose|why|how|is|are|does|do|did|can|was|were)\b", re.I
)
_ALSO = re.compile(r"\b(?:and|also|as well as)\b\s+(?:what|when|where|which|who|why|how)\b"
                   r"|[，,；;]\s*(?:以及|还有|另外|并且|同时)|分别是", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Signal:
    """One escalation signal: ``kind`` (reference | comparison | multipart) and the ``evidence``
    text that triggered it (shown in the route record's reason)."""

    kind: Literal["reference", "comparison", "multipart"]
    evidence: str


@dataclass(frozen=True, slots=True)
class RuleConfig:
    """The router's thresholds and rule switches (built from ``Settings``)."""

    confidence_threshold: float = 0.5
    on_reference: bool = True
    on_comparison: bool = True
    on_multipart: bool = True
    min_parts: int = 2


@dataclass(frozen=True, slots=True)
class Decision:
    """Where a question goes: ``route`` ``rag`` or ``loop``, and why (``reason``)."""

    route: Literal["rag", "loop"]
    reason: str
    signals: tuple[Signal, ...] = ()


def _count_subquestions(question: str) -> int:
    """Sub-questions: question marks with text before them, or wh-clauses joined by 'and'/；."""
    parts = [p for p in _QMARK.split(question) if len(p.strip()) >= 3]
    marks = len(_QMARK.findall(question))
    n = min(marks, len(parts)) if marks else 1
    n = max(n, 1 + len(_ALSO.findall(question)))
    return n


def _distinct_entities(question: str) -> list[str]:
    """Distinct entities of one kind (years, product codes, conjoined names), largest group first."""
    years = sorted(set(ANY_YEAR.findall(question)))
    codes = sorted({c for c in _CODE.findall(question) if not ANY_YEAR.fullmatch(c)})
    names: list[str] = []
    for m in _NAME_PAIR.finditer(question):
        pair = [g for g in m.groups() if g]
        if len(pair) == 2 and pair[0].lower() != pair[1].lower():
            names = pair
            break
    return max((years, codes, names), key=len)


def detect_signals(question: str, config: RuleConfig | None = None) -> list[Signal]:
    """Escalation signals in ``question`` that are switched on in ``config``.

    :returns: zero or more signals, in the order reference, comparison, multipart.
    """
    cfg = config or RuleConfig()
    found: list[Signal] = []
    if cfg.on_reference and (m := _REFERENCE.search(question)):
        found.append(Signal("reference", m.group(0).strip()))
    if cfg.on_comparison and (m := _COMPARISON.search(question)):
        found.append(Signal("comparison", m.group(0).strip()))
    if cfg.on_multipart:
        subq = _count_subquestions(question)
        entities = _distinct_entities(question)
        if subq >= cfg.min_parts:
            found.append(Signal("multipart", f"{subq} sub-questions"))
        elif len(entities) >= cfg.min_parts:
            found.append(Signal("multipart", "distinct entities: " + ", ".join(entities[:4])))
    return found


def decide(
    mode: Mode,
    confidence: float | None,
    signals: Sequence[Signal],
    config: RuleConfig | None = None,
    *,
    rag_available: bool = True,
    loop_available: bool = True,
) -> Decision:
    """Route a question.

    :param mode: ``rag`` and ``loop`` force the path; ``auto`` applies the rules.
    :param confidence: RAG confidence in [0, 1], ``None`` when retrieval produced nothing.
    :param signals: from :func:`detect_signals`.
    :returns: the decision; in ``auto`` a signal escalates first, then low confidence.
    """
    cfg = config or RuleConfig()
    if mode == "rag":
        return Decision("rag", "mode=rag requested")
    if mode == "loop":
        return Decision("loop", "mode=loop requested")
    if not rag_available:
        return Decision("loop", "RAG path unavailable (chunk store down): LoopAgent only")
    if not loop_available:
        return Decision("rag", "LoopAgent unavailable: RAG only")
    if signals:
        text = "; ".join(f"{s.kind} ({s.evidence})" for s in signals)
        return Decision("loop", f"escalated: question signals {text}", tuple(signals))
    if confidence is None:
        return Decision("loop", "escalated: RAG retrieved nothing")
    if confidence < cfg.confidence_threshold:
        return Decision(
            "loop",
            f"escalated: RAG confidence {confidence:.2f} < threshold {cfg.confidence_threshold:.2f}",
        )
    return Decision(
        "rag", f"RAG confident: {confidence:.2f} >= threshold {cfg.confidence_threshold:.2f}"
    )


def retrieval_query(question: str, history: Sequence[dict[str, str]] | None) -> str:
    """The text used for retrieval: ``question``, with the previous user turn prepended when the
    question is a follow-up (:func:`gateway.routing.followup.is_followup`: "and …"/"what
    about"/那 …, a pronoun with nothing to refer to in the question, a step such as "the next
    one", an ellipsis); a standalone question is returned as it is.

    :param history: previous turns, oldest first, each ``{"role": "user"|"assistant",
        "content": str}``; only user turns are used.
    """
    prev = [t.get("content", "").strip() for t in history or () if t.get("role") == "user"]
    prev = [p for p in prev if p]
    if not prev:
        return question
    if is_followup(question):
        return f"{prev[-1]} {question}"
    return question


def search_query(question: str, history: Sequence[dict[str, str]] | None,
                 current_date: str | None) -> str:
    """The text retrieval searches for a routed question: :func:`retrieval_query` (a follow-up
    with the previous user turn of ``history`` before it), then :func:`dated_query` (a period
    relative to today with the year of ``current_date``, ``YYYY-MM-DD`` or ``None``). The RAG
    path's retrieval and the LoopAgent's seeds and first search all use it; the answer reads
    ``question`` itself."""
    return dated_query(retrieval_query(question, history), current_date)


_RELATIVE_PERIOD = re.compile(
    r"\b(?:current|this|previous|preceding|prior|last|next|following|upcoming|coming|present)"
    r"\s+(?:fiscal\s+|financial\s+|calendar\s+|business\s+)?"
    r"(?:year|quarter|month|period|half|semester|week)\b|\bcurrently\b|\bright now\b"
    r"|\bas of (?:today|now)\b|\bwe are (?:currently )?in\b"
    r"|(?:本|今|当前|目前|上个?|下个?|去|明)(?:财年|财务年度|年度|季度|月|年|期)|目前|当前"
    r"|\b(?:year|quarter|month|period|half|week)\b.*\b(?:current|present|previous|next|"
    r"preceding|following)\s+one\b",  # "the fiscal quarter that preceded the current one"
    re.IGNORECASE)


def dated_query(query: str, current_date: str | None) -> str:
    """``query`` with `` (YYYY)``, the calendar year of the period (:func:`_period_year`: the
    year of ``current_date``, ± 1 for a calendar last / next year), appended when it asks about a
    period relative to today ("the end date of the current fiscal quarter", "the previous
    fiscal year", "the fiscal period we are currently in", "the quarter that preceded the
    current one", 本季度, 上个月) and names no year itself; else ``query`` unchanged.

    Retrieval only: the words "current quarter" match any page that explains quarters (a
    style guide's "Q1 = the first quarter of the current fiscal year, so on Feb 1, 2020 …"),
    the year of today matches the page that lists this year's periods. The question the answer
    reads keeps its words (the answerability check would take an added year for a term the
    answer's document must hold).

    :param current_date: ``YYYY-MM-DD`` or ``None`` (nothing added).
    """
    if not current_date or not _RELATIVE_PERIOD.search(query) or ANY_YEAR.search(query):
        return query
    return f"{query} ({_period_year(query, current_date)})"


_CAL_STEP = re.compile(
    r"\b(?P<en>last|previous|preceding|prior|next|following|upcoming|coming)\s+"
    r"(?P<unit>year|month)\b|(?P<zh>去|明)年|(?P<zhm>上|下)个?月", re.IGNORECASE)


def _period_year(query: str, current_date: str) -> int:
    """The calendar year a relative period names: the year of ``current_date``, one less for
    a calendar "last year" / 去年 (and "last month" / 上个月 in January), one more for "next
    year" / 明年 (and "next month" in December). A fiscal year or quarter keeps the current
    calendar year: fiscal years straddle two calendar years, and the page listing them writes
    both ("FY26 … February 1, 2025 to January 31, 2026")."""
    year, month = int(current_date[:4]), int(current_date[5:7])
    m = _CAL_STEP.search(query)
    if m is None or re.search(r"\b(?:fiscal|financial)\b|财年|财务年度", query, re.IGNORECASE):
        return year
    back = (m.group("en") or "").lower() in ("last", "previous", "preceding", "prior") or \
        m.group("zh") == "去" or m.group("zhm") == "上"
    unit = "year" if (m.group("unit") or "").lower() == "year" or m.group("zh") else "month"
    if unit == "year":
        return year - 1 if back else year + 1
    if back:
        return year - 1 if month == 1 else year
    return year + 1 if month == 12 else year
