"""Question normaliser for the answer-cache key (the guard that keeps different questions apart is
:mod:`gateway.cache.question_guard`).

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

:func:`has_words` / :func:`empty_question` tell a question with nothing to ask (blank, or
punctuation and invisible characters alone: no key can be made of it). It never drops or
reorders words, so negations (不/没/非/未/not/no), digits, units and codes
survive (case 13 of ../shared/cases: "semantic cache false hits").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import opencc

__all__ = ["empty_question", "has_words", "normalize_question"]

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


def has_words(question: str) -> bool:
    """True when ``question`` holds something to ask: a letter, digit or symbol that survives
    the cache-key normalisation. False for punctuation, blanks, control and invisible
    characters alone (``???``, ``，。``, ``\\u0000``, ``\\u200b\\ufeff``), which no answer can
    match and no cache key can be made of."""
    if not any(unicodedata.category(ch)[0] in "LNS" for ch in question):
        return False
    return bool(normalize_question(question))


def empty_question(question: str) -> str | None:
    """Why ``question`` has nothing to ask, in one line for a user — ``"question is empty"``
    (blank), or with ``(only punctuation, blanks or invisible characters)`` (:func:`has_words`
    false) — or ``None`` when it has. One wording for HTTP (``QueryRequest``: 400) and the CLI
    (``loopgate ask``: exit 2; ``loopgate chat``: an error line)."""
    if not question.strip():
        return "question is empty"
    if not has_words(question):
        return "question is empty (only punctuation, blanks or invisible characters)"
    return None
