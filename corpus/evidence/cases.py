"""A sentence that enumerates cases, and which case a question names.

A clause often states one rule per case, the cases joined by semicolons (劳动合同法 第十九条:
"劳动合同期限三个月以上不满一年的，试用期不得超过一个月；劳动合同期限一年以上不满三年的，试用
期不得超过二个月；三年以上固定期限和无固定期限的劳动合同，试用期不得超过六个月。"), and each
case is a unit of its own (``corpus.evidence.units`` ends a unit at ``；``). A unit chosen as
the answer may be one case of such a series: then it answers only when the question names
that case; a question that names none ("试用期最长不得超过多久？") is answered by the whole
series, which holds the extreme with the others. Both only for a question asking a value the
cases state (:func:`asks_value`: a quantity or an extreme): sentences joined by ``；`` that
share the question's words are otherwise no cases ("什么是生成文法？").

:func:`case_series` finds the series around a unit: the units before and after it in its
chunk that the sentence joins to it (the unit before ends with ``；`` / ``;``) and that are
parallel to it (each holds at least ``PARALLEL_SHARE`` of the key-term weight the unit itself
holds). :func:`named_case` says which case the question names: a case holding a phrase of the
question (a key term, or two adjacent key terms written together: 三年以上, 一年以上) that no
other case holds, and scoring best when each phrase counts ``log(n / cases holding it)``
(phrases every case holds name none); ``None`` when no case is named. Pure, no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus.evidence.bounds import bound_direction
from corpus.evidence.terms import TermMatcher
from corpus.evidence.units import CJK, UnitStyle, split_units
from corpus.tokenizer import asks_quantity
from corpus.types import Chunk

__all__ = ["MAX_CASES", "MAX_SERIES_CHARS", "PARALLEL_SHARE", "CaseSeries", "asks_value",
           "case_series", "named_case"]

#: share of the unit's own key-term weight each other case must hold
PARALLEL_SHARE = 2 / 3
#: most cases in a series, and most characters of the series quoted whole
MAX_CASES = 8
MAX_SERIES_CHARS = 800

_CONTINUES = ("；", ";")
_CJK_BREAK = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")


@dataclass(frozen=True, slots=True)
class CaseSeries:
    """The cases of one enumerating sentence: ``units`` in order (units of the chunk, as
    :func:`corpus.evidence.units.split_units` gives them), ``index`` of the unit the series
    was found from, ``text`` the verbatim chunk text from the first case to the last
    (quotable as one passage)."""

    units: tuple[str, ...]
    index: int
    text: str


def _flat(text: str, normalize: Callable[[str], str]) -> str:
    """``text`` normalised, with a line break between two Chinese characters dropped (a PDF
    wraps 试用\\n期)."""
    return _CJK_BREAK.sub("", normalize(text))


def _locate(text: str, unit: str, pos: int) -> tuple[int, int] | None:
    """Where ``unit`` is in ``text`` from ``pos``: verbatim, else with other whitespace
    between its characters (a ``"scan"`` unit joins a paragraph's lines)."""
    at = text.find(unit, pos)
    if at >= 0:
        return at, at + len(unit)
    chars = [c for c in unit if not c.isspace()]
    if not chars:
        return None
    m = re.compile(r"\s*".join(re.escape(c) for c in chars)).search(text, pos)
    return (m.start(), m.end()) if m else None


def _held(matcher: TermMatcher, text: str) -> float:
    cr = matcher.credits(text)
    return sum(w * cr.get(t, 0.0) for t, w in zip(matcher.terms, matcher.weights, strict=True))


def case_series(chunk: Chunk, unit: str, matcher: TermMatcher,
                style: UnitStyle = "quote") -> CaseSeries | None:
    """The series of parallel cases ``unit`` belongs to in ``chunk`` (module docstring), or
    ``None`` (the unit stands alone, the series runs over ``MAX_CASES`` cases or
    ``MAX_SERIES_CHARS`` characters, or its text cannot be located in the chunk)."""
    units = split_units(chunk, style)
    if unit not in units:
        return None
    k = units.index(unit)
    flat = [_flat(u, matcher.normalize) for u in units]
    own = _held(matcher, flat[k])
    if own <= 0:
        return None

    def parallel(i: int) -> bool:
        return _held(matcher, flat[i]) >= PARALLEL_SHARE * own

    a = k
    while a > 0 and units[a - 1].rstrip().endswith(_CONTINUES) and parallel(a - 1):
        a -= 1
    b = k
    while b + 1 < len(units) and units[b].rstrip().endswith(_CONTINUES) and parallel(b + 1):
        b += 1
    if b == a or b - a + 1 > MAX_CASES:
        return None
    # the units' places in the chunk, in order (a unit's text may occur earlier too)
    pos, spans = 0, []
    for u in units[: b + 1]:
        span = _locate(chunk.text, u, pos)
        if span is None:
            return None
        spans.append(span)
        pos = span[1]
    text = chunk.text[spans[a][0]: spans[b][1]]
    if len(text) > MAX_SERIES_CHARS:
        return None
    return CaseSeries(tuple(units[a: b + 1]), k - a, text)


def asks_value(question: str, terms: Sequence[str]) -> bool:
    """True when the question asks a value a case states: a quantity (多久, 多少, how many:
    ``corpus.tokenizer.asks_quantity``) or an extreme (最长, minimum:
    :func:`corpus.evidence.bounds.bound_direction` of a key term). Only such a question is
    answered from a series of cases (a sentence joined to the next by ``；`` is no case of an
    enumeration for "什么是生成文法？")."""
    return asks_quantity(question) or any(bound_direction(t) for t in terms)


def _phrases(terms: Sequence[str]) -> list[str]:
    """Key terms, and each two adjacent ones as written together (CJK: joined; else with a
    space)."""
    out = list(terms)
    for x, y in zip(terms, terms[1:], strict=False):
        joint = "" if CJK.search(x[-1:]) or CJK.search(y[:1]) else " "
        out.append(x + joint + y)
    return list(dict.fromkeys(out))


def _holds(phrase: str, text: str) -> bool:
    """``phrase`` is in ``text``; two English stems (``probat period``) with the rest of the
    first word between them."""
    if " " not in phrase:
        return phrase in text
    x, y = phrase.rsplit(" ", 1)
    return re.search(re.escape(x) + r"\w*\s+" + re.escape(y), text) is not None


def named_case(series: CaseSeries, question_terms: Sequence[str],
               normalize: Callable[[str], str]) -> int | None:
    """Index of the case of ``series`` the question names (module docstring), or ``None``.

    :param question_terms: the question's key terms in question order (normalised).
    :param normalize: the key terms' normaliser (``Tokenizer.normalize``).
    """
    texts = [_flat(u, normalize) for u in series.units]
    n = len(texts)
    scores = [0.0] * n
    unique = [False] * n
    for p in _phrases([t for t in question_terms if t.strip()]):
        holders = [i for i, t in enumerate(texts) if _holds(p, t)]
        if not holders or len(holders) == n:
            continue
        for i in holders:
            scores[i] += math.log(n / len(holders))
            unique[i] = unique[i] or len(holders) == 1
    best = max(range(n), key=lambda i: scores[i])
    if not unique[best] or sum(s == scores[best] for s in scores) > 1:
        return None
    return best
