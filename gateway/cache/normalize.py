"""Question normaliser for the answer-cache key, and the guard that keeps different questions apart.

:func:`normalize_question` folds away differences that never change a question's meaning:

1. Unicode NFKC (full-width ``ＦＷ－３０１`` → ``FW-301``, ``？`` → ``?``, ligatures);
2. case folding (``str.casefold``);
3. Traditional → Simplified Chinese with OpenCC ``t2s`` (for the key only: cached answers and
   their citations keep the documents' own script);
4. punctuation (Unicode category ``P*``) becomes a blank, except where it binds two ASCII
   letters or digits (``fw-301``, ``3.2.1``, ``don't``), a sign before a digit (``-5``), or it
   carries meaning by itself (``%``, ``‰``, ``#``, ``&``, ``@``, ``*``);
5. whitespace runs collapse to one blank; blanks next to CJK characters and between a digit and
   a following common unit (``35 kg`` → ``35kg``) are removed; the ends are stripped.

It never drops or reorders words, so negations (不/没/非/未/not/no), digits, units and codes
survive (case 13 of ../shared/cases: "semantic cache false hits").

:func:`compare_questions` is the guard for any lookup that is *not* an exact normalised-key match
(an alias summary supplied by the LoopAgent, or a future similarity lookup): it compares the two
questions' numbers (with units; Chinese numerals read as digits), codes and acronyms, negation
cues, opposite-meaning words (enable/disable, 最少/最多 …) and the order of their shared words,
and refuses the pair when any differ.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import opencc
import rjieba

__all__ = [
    "GuardResult",
    "QuestionSignature",
    "compare_questions",
    "normalize_question",
    "question_signature",
]

_KEEP_PUNCT = frozenset("%‰‱#&@*")
_CURLY = str.maketrans(
    {"‘": "'", "’": "'", "“": '"', "”": '"', "‐": "-", "‑": "-", "–": "-", "—": "-"}
)
_ASCII_ALNUM = re.compile(r"[0-9a-z]")
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_SPACE_NEAR_CJK = re.compile(rf"(?<=[{_CJK}]) | (?=[{_CJK}])")
_UNITS = (
    "kwh|kw|mw|w|kv|mv|v|ma|a|ghz|mhz|khz|hz|tb|gb|mb|kb|kg|mg|g|t|km|cm|mm|m|ml|l|ms|min|s|h|°c|°f"
)
_SPACE_DIGIT_UNIT = re.compile(rf"(?<=[0-9]) (?=(?:{_UNITS})(?![a-z]))")
_WS = re.compile(r"\s+")


@lru_cache(maxsize=1)
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s.json")


def _fold_punctuation(text: str) -> str:
    """Replace punctuation by blanks unless it binds ASCII alphanumerics or carries meaning."""
    out: list[str] = []
    last = len(text) - 1
    for i, ch in enumerate(text):
        if not unicodedata.category(ch).startswith("P") or ch in _KEEP_PUNCT:
            out.append(ch)
            continue
        prev_ch = text[i - 1] if i > 0 else ""
        next_ch = text[i + 1] if i < last else ""
        binds = bool(_ASCII_ALNUM.match(prev_ch) and _ASCII_ALNUM.match(next_ch))
        sign = ch == "-" and next_ch.isdigit() and not _ASCII_ALNUM.match(prev_ch)
        out.append(ch if binds or sign else " ")
    return "".join(out)


def normalize_question(question: str) -> str:
    """Return the cache-key form of ``question`` (see the module docstring for the steps).

    :param question: the user's question, any script or width.
    :returns: the normalised text; ``""`` when nothing but punctuation/blanks was given.
    :raises TypeError: when ``question`` is not a ``str``.
    """
    if not isinstance(question, str):
        raise TypeError(f"question must be str, not {type(question).__name__}")
    # a repeated question (cache hits, the route record, the retrieval) is normalised once
    return _normalize_cached(question) if len(question) <= 512 else _normalize(question)


@lru_cache(maxsize=4096)
def _normalize_cached(question: str) -> str:
    return _normalize(question)


def _normalize(question: str) -> str:
    text = unicodedata.normalize("NFKC", question).translate(_CURLY).casefold()
    text = _t2s().convert(text)
    text = _fold_punctuation(text)
    text = _WS.sub(" ", text).strip()
    text = _SPACE_NEAR_CJK.sub("", text)
    return _SPACE_DIGIT_UNIT.sub("", text)


# --- guard ----------------------------------------------------------------------------------

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
_CN_NUMBER = re.compile("[零〇一二两三四五六七八九十百千万亿]+")
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


def _cn_to_int(numeral: str) -> int:
    """Read a Chinese numeral (``三``, ``十五``, ``两千三百``) as an integer."""
    total, section, digit = 0, 0, 0
    for ch in numeral:
        if ch in _CN_DIGITS:
            digit = digit * 10 + _CN_DIGITS[ch] if digit and not section else _CN_DIGITS[ch]
        else:
            unit = _CN_UNITS[ch]
            if unit >= 10_000:
                total += (section + digit) * unit
                section, digit = 0, 0
            else:
                section += (digit or 1) * unit
                digit = 0
    return total + section + digit


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
        _CN_NUMBER.sub(lambda m: f" {_cn_to_int(m.group(0))}", rest)
        if _CN_NUMBER.search(rest)
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
