"""The guard that keeps different questions apart (case 13 of ../shared/cases: "semantic cache
false hits").

:func:`compare_questions` is the guard for any lookup that is *not* an exact normalised-key match
(an alias summary supplied by the LoopAgent, or a future similarity lookup): it compares the two
questions' numbers (with units; Chinese numerals read as digits), codes and acronyms, negation
cues, opposite-meaning words (enable/disable, 最少/最多 …) and the order of their shared words,
and refuses the pair when any differ. The questions are first put in the normal form of
:func:`gateway.cache.normalize.normalize_question`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

import rjieba

from corpus.zh_numerals import CN_NUMBER, cn_to_int
from gateway.cache.normalize import normalize_question

__all__ = ["GuardResult", "QuestionSignature", "compare_questions", "question_signature"]


_CODE = re.compile(r"(?<![0-9a-z])[a-z][a-z0-9]*(?:[-_/.][a-z0-9]+)*(?![0-9a-z])")
_ACRONYM = re.compile(r"(?<![A-Za-z])[A-Z]{2,}(?![A-Za-z])")
_NUMBER = re.compile(r"-?\d+(?:[.,:/]\d+)*\s?([a-zµμ°%‰]+|[\u4e00-\u9fff])?")
_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_CN_NEGATIONS = ("不", "没", "非", "未", "无", "别", "莫", "勿", "否")
_EN_NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "cannot", "without", "neither"})

# Opposite-meaning word classes: each class maps a pole to the words that express it.
# Multi-character Chinese words only (前/后 alone occur inside too many unrelated words).
_POLARITY: dict[str, dict[str, tuple[str, ...]]] = {
    "switch": {
        "on": (
            "开启",
            "打开",
            "启用",
            "开通",
            "激活",
            "enable",
            "activate",
            "turn on",
            "switch on",
        ),
        "off": (
            "关闭",
            "关掉",
            "禁用",
            "停用",
            "关停",
            "disable",
            "deactivate",
            "turn off",
            "switch off",
        ),
    },
    "extreme": {
        "min": ("最少", "最小", "至少", "最低", "下限", "min", "minimum", "least", "lowest"),
        "max": ("最多", "最大", "至多", "最高", "上限", "max", "maximum", "most", "highest"),
    },
    "change": {
        "up": ("增加", "提高", "上调", "增大", "升高", "increase", "raise"),
        "down": ("减少", "降低", "下调", "减小", "decrease", "reduce", "lower"),
    },
    "time": {"before": ("之前", "以前", "before", "prior to"), "after": ("之后", "以后", "after")},
    "permission": {
        "allow": ("允许", "准许", "allow", "permit"),
        "deny": ("禁止", "forbid", "prohibit", "deny"),
    },
    "compare": {
        "above": ("高于", "大于", "超过", "above", "greater than", "more than"),
        "below": ("低于", "小于", "不足", "below", "less than", "fewer than"),
    },
    "direction": {
        "in": (
            "进口",
            "入库",
            "上传",
            "登录",
            "安装",
            "加密",
            "import",
            "upload",
            "login",
            "install",
            "encrypt",
        ),
        "out": (
            "出口",
            "出库",
            "下载",
            "退出",
            "卸载",
            "解密",
            "export",
            "download",
            "logout",
            "uninstall",
            "decrypt",
        ),
    },
}


def _has_word(text: str, word: str) -> bool:
    if word.isascii():
        return re.search(rf"(?<![a-z]){re.escape(word)}(?:s|d|ed|ing)?(?![a-z])", text) is not None
    return word in text


@dataclass(frozen=True, slots=True)
class QuestionSignature:
    """What the guard compares: numbers with units, codes/acronyms, negation cues, polarity
    poles per class, and the content words in order of first appearance."""

    numbers: tuple[str, ...]
    codes: tuple[str, ...]
    negations: tuple[tuple[str, int], ...]
    polarity: tuple[tuple[str, tuple[str, ...]], ...]
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GuardResult:
    """Outcome of :func:`compare_questions`: ``compatible`` is False when any ``reasons``."""

    compatible: bool
    reasons: tuple[str, ...] = ()


def question_signature(question: str) -> QuestionSignature:
    """Extract the guard's signature from a raw question (normalised internally)."""
    acronyms = {
        m.group(0).casefold() for m in _ACRONYM.finditer(unicodedata.normalize("NFKC", question))
    }
    text = normalize_question(question)
    codes = [m.group(0) for m in _CODE.finditer(text) if any(c.isdigit() for c in m.group(0))]
    rest = _CODE.sub(" ", text)
    rest = (
        CN_NUMBER.sub(lambda m: f" {cn_to_int(m.group(0))}", rest)
        if CN_NUMBER.search(rest)
        else rest
    )
    numbers = [m.group(0).replace(" ", "") for m in _NUMBER.finditer(rest)]
    negations = Counter(ch for ch in text.replace("是否", "") if ch in _CN_NEGATIONS)
    words = _EN_WORD.findall(text)
    negations.update(w for w in words if w in _EN_NEGATIONS)
    negations.update("n't" for _ in re.finditer(r"n't\b", text))
    polarity = []
    for cls, poles in sorted(_POLARITY.items()):
        present = tuple(sorted(p for p, ws in poles.items() if any(_has_word(text, w) for w in ws)))
        if present:
            polarity.append((cls, present))
    seen: dict[str, None] = {}
    for tok in rjieba.cut(text):
        tok = tok.strip()
        if tok and any(c.isalnum() for c in tok):
            seen.setdefault(tok, None)
    return QuestionSignature(
        numbers=tuple(numbers),
        codes=tuple(sorted(set(codes) | acronyms)),
        negations=tuple(sorted(negations.items())),
        polarity=tuple(polarity),
        words=tuple(seen),
    )


def compare_questions(a: str, b: str) -> GuardResult:
    """Guard: may an answer cached for question ``a`` be served for question ``b``?

    :returns: ``GuardResult(False, reasons)`` when the numbers (in order, with units), codes or
        acronyms, negation cues, opposite-meaning words, or the order of the shared words differ;
        ``GuardResult(True)`` otherwise. Reasons are among ``number``, ``code``, ``negation``,
        ``polarity``, ``order``.
    """
    sa, sb = question_signature(a), question_signature(b)
    reasons = []
    if sa.numbers != sb.numbers:
        reasons.append("number")
    if sa.codes != sb.codes:
        reasons.append("code")
    if sa.negations != sb.negations:
        reasons.append("negation")
    if sa.polarity != sb.polarity:
        reasons.append("polarity")
    common = set(sa.words) & set(sb.words)
    if [w for w in sa.words if w in common] != [w for w in sb.words if w in common]:
        reasons.append("order")
    return GuardResult(not reasons, tuple(reasons))
