"""A question's extreme word and the bound a text states: 最长 / maximum is how a question asks,
不得超过 / up to is how a document answers.

"劳动合同的试用期最长不得超过多久？" keeps 最长 among its key terms, but the clause that answers
says "试用期不得超过六个月": without this, a sentence holding the word itself ("…支付周期最长不
得超过十五日", about something else) covered more of the question than the clauses about
试用期, and was the answer. :func:`bound_direction` says whether a key term asks for an upper
(最长, 最多, 最高, 最大, 上限, maximum, longest, highest …) or a lower extreme (最短, 最少, 最低,
最小, 至少, 下限, minimum, shortest …); :func:`states_bound` whether a text states a bound of
that direction (不得超过, 不超过, 不高于, 以内, 以下, 至多, up to, not exceed, no more than, at
most … / 不少于, 不低于, 以上, 至少, at least, not less than, or more …) or the extreme words
themselves. :class:`corpus.evidence.terms.TermMatcher` credits such a term
``TUNING.evidence.bound_credit`` of its weight in a text that states the bound. Compound nouns
(最低工资, 最高人民法院) are whole key terms and no extreme word. Pure, no I/O.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = ["Bound", "bound_direction", "states_bound"]

Bound = Literal["upper", "lower"]

_UPPER_ZH = frozenset("最长 最久 最高 最大 最多 最晚 最迟 最远 至多 上限 封顶 最大值 最高值 最长值 "
                      "最多值".split())
_LOWER_ZH = frozenset("最短 最少 最低 最小 最早 至少 下限 最小值 最低值 最短值".split())
# English key terms are stemmed by the tokenizer (maximum → maximum, longest → longest)
_UPPER_EN = re.compile(r"^(?:max|maxim\w*|longest|highest|largest|latest|greatest|most|upper)$")
_LOWER_EN = re.compile(r"^(?:min|minim\w*|shortest|lowest|smallest|earliest|least|lower)$")

# a PDF line break inside a Chinese sentence (不得\n超过) is no break in the phrase
_CJK_BREAK = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")
# 以上 / 以下 / 以内 bound a quantity (三年以上, 六个月以内); 以下 alone also means "the following"
_NUMBER_BEFORE = r"[\d零〇一二两三四五六七八九十百千万](?:[^，。；、\s\d]{0,3})"
_STATES = {
    "upper": re.compile(
        r"不得超过|不超过|不应超过|不能超过|不宜超过|不可超过|不得高于|不高于|不得大于|不大于|"
        r"不得多于|不多于|不得迟于|不迟于|不晚于|至多|最多|最长|最久|最高|最大|"
        r"上限|封顶|最晚|最迟|" + _NUMBER_BEFORE + r"(?:以内|之内|以下)"
        r"|\bup to\b|\bnot (?:to )?exceed|\bno (?:more|longer|later|greater|higher) than\b"
        r"|\bnot (?:more|longer|later|greater|higher) than\b|\bat (?:the )?most\b|\bmaximum\b"
        r"|\bmax\b|\bwithin\b|\bor (?:less|fewer|shorter|earlier)\b|\blongest\b|\bhighest\b"),
    "lower": re.compile(
        r"不得少于|不少于|不应少于|不得低于|不低于|不得小于|不小于|不得短于|不短于|不早于|"
        r"至少|最少|最短|最低|最小|下限|最早|" + _NUMBER_BEFORE + r"(?:以上)"
        r"|\bat (?:the )?least\b|\bnot (?:less|fewer|shorter|earlier|lower|smaller) than\b"
        r"|\bno (?:less|fewer|shorter|earlier|lower|smaller) than\b|\bminimum\b|\bmin\b"
        r"|\bor (?:more|longer|later|greater|higher)\b|\bshortest\b|\blowest\b"),
}


def bound_direction(term: str) -> Bound | None:
    """``"upper"`` / ``"lower"`` when the key term ``term`` (normalised: lower case,
    Simplified, English stemmed) asks for an extreme, else ``None``.

    Usage example::

        >>> bound_direction("最长"), bound_direction("minimum"), bound_direction("最低工资")
        ('upper', 'lower', None)
    """
    t = term.strip()
    if t in _UPPER_ZH or _UPPER_EN.match(t):
        return "upper"
    if t in _LOWER_ZH or _LOWER_EN.match(t):
        return "lower"
    return None


def states_bound(text: str, direction: Bound) -> bool:
    """True when the normalised ``text`` states a bound of ``direction`` (module docstring).

    Usage example::

        >>> states_bound("试用期不得\n超过六个月。", "upper")
        True
    """
    return _STATES[direction].search(_CJK_BREAK.sub("", text)) is not None
