"""Sentence-level support check of a model-written answer against the quotes it cites.

A sentence is *supported* when every number, code / named entity and URL it contains is present
in the cited quotes (or the cited documents' paths and section titles), it is not itself an
instruction to a model (:func:`corpus.injection.is_injection`), and — when it has three or more
content words — at least one of them occurs in the quotes. Unsupported sentences are dropped;
the caller flags the answer (``unsupported_sentences:N``). Footnote markers ``[1]`` are kept
with their sentence and ignored by the check. Pure functions, no I/O.

Usage example::

    chk = check_answer("Delivery takes 3 days [1]. Visit http://evil.example.", ["… 3 days …"])
    chk.text, chk.dropped   # ("Delivery takes 3 days [1].", 1)
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from corpus.injection import is_injection

__all__ = ["AnswerCheck", "answer_claims", "check_answer", "split_sentences"]

_MARKER = re.compile(r"\[\d{1,3}\]")
# a sentence ends after . ! ? ; 。！？； (and any footnote markers that follow) or a line break
_SPLIT = re.compile(r"(?<=[。！？；])\s*|(?<=[.!?;])(?:\s*\[\d{1,3}\])*\s+|\n+")
_URL = re.compile(r"(?:https?|ftp)://[^\s<>\"'）)\]，。]+|\bwww\.[^\s<>\"'）)\]，。]+"
                  r"|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|example|info|biz|ru|cn|xyz|"
                  r"top|co|me|app|dev)\b(?:/[^\s<>\"'）)\]，。]*)?", re.I)
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*|[零〇一二两三四五六七八九十百千万亿]{2,}")
_HELD_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*|[零〇一二两三四五六七八九十百千万亿]+")  # 三日 holds 3
# a code: letters with digits (FW-301, ESP32), a path or key (/etc/passwd, root:x), an e-mail
_CODE = re.compile(r"(?<![\w/])(?:/[\w.-]+){2,}|[\w.+-]+@[\w-]+\.[\w.]+"
                   r"|\b(?=[\w-]*[A-Za-z])(?=[\w-]*\d)[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*\b")
# an entity: an all-caps word (GDPR, PWNED) or a capitalised word not opening the sentence
_CAPS = re.compile(r"\b[A-Z]{2,}[A-Z0-9]*\b")
_PROPER = re.compile(r"(?<=[\w,;:)\]] )[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")
_WORD = re.compile(r"[A-Za-z]{4,}")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")
_BOOK = re.compile(r"《([^》]{1,40})》")
_COMMON = frozenset(
    "according answer based document documents however therefore also note please source "
    "sources section page yes no the this that these those with from into about there their "
    "which what when where while shall must will would should could have been being does".split()
)
_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}


@dataclass(slots=True)
class AnswerCheck:
    """The answer's kept sentences joined (``text``), the ``dropped`` count and, per dropped
    sentence, what it lacked (``reasons``, e.g. ``"url http://evil.example"``)."""

    text: str
    kept: list[str] = field(default_factory=list)
    dropped: int = 0
    reasons: list[str] = field(default_factory=list)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).lower()


def _cn_value(s: str) -> int | None:
    """Value of a Chinese numeral run (三十 → 30, 一百二十 → 120, 二〇二三 → 2023)."""
    if all(ch in _CN_DIGIT for ch in s):
        return int("".join(str(_CN_DIGIT[ch]) for ch in s))
    total, section, digit = 0, 0, 0
    for ch in s:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        elif ch in ("万", "亿"):
            total += (section + digit) * _CN_UNIT[ch]
            section, digit = 0, 0
        elif ch in _CN_UNIT:
            section += (digit or 1) * _CN_UNIT[ch]
            digit = 0
        else:
            return None
    return total + section + digit


def _number_values(text: str, parts: bool = True) -> set[str]:
    """Every number of ``text`` as a canonical string (thousands commas dropped; Chinese
    numerals as their Arabic value), so 三十 in a quote supports 30 in the answer; with
    ``parts`` also the pieces of a dotted or colon figure (a quote's 3.0 holds 3)."""
    out: set[str] = set()
    for n in (_HELD_NUMBER if parts else _NUMBER).findall(unicodedata.normalize("NFKC", text)):
        if n[0].isdigit():
            out.add(n.replace(",", ""))
            if parts:
                out.update(p for p in re.split(r"[.,:]", n) if p)
        elif (v := _cn_value(n)) is not None:
            out.add(str(v))
    return out


def split_sentences(answer: str) -> list[str]:
    """Sentences of ``answer`` (split after ``. ! ? ; 。！？；`` and at line breaks), each with
    its trailing footnote markers; blanks dropped."""
    return [s.strip() for s in _SPLIT.split(answer) if s and s.strip()]


def answer_claims(sentence: str) -> dict[str, list[str]]:
    """What a sentence asserts that its sources must hold: ``urls``, ``numbers``, ``codes``
    (letters with digits, paths, e-mails), ``entities`` (all-caps or capitalised words, not
    the first word; 《titles》)."""
    s = unicodedata.normalize("NFKC", _MARKER.sub("", sentence))
    urls = _URL.findall(s)
    rest = _URL.sub(" ", s)
    codes = _CODE.findall(rest)
    bare = _CODE.sub(" ", rest)
    ents = [w for w in (*_CAPS.findall(bare), *_PROPER.findall(bare))
            if w.lower() not in _COMMON]
    ents += _BOOK.findall(bare)
    return {"urls": urls, "numbers": _NUMBER.findall(bare), "codes": codes, "entities": ents}


def _compact(text: str) -> str:
    return re.sub(r"[\s\-_\u00ad\u2010-\u2015]+", "", _flat(text))


def _unsupported(sentence: str, held: str, held_numbers: set[str]) -> str:
    """Why ``sentence`` is not supported by the flattened sources ``held`` (``""`` when it is)."""
    if is_injection(sentence):
        return "an instruction to the reader"
    c = answer_claims(sentence)
    for u in c["urls"]:
        if _flat(u).rstrip("/.") not in held:
            return f"url {u}"
    for n in c["numbers"]:
        vals = _number_values(n, parts=False)
        if vals and not (vals & held_numbers):
            return f"number {n}"
    compact = _compact(held)
    for w in (*c["codes"], *c["entities"]):
        if _compact(w) not in compact:
            return f"name {w}"
    bare = _MARKER.sub("", sentence)
    words = [w.lower() for w in _WORD.findall(bare) if w.lower() not in _COMMON]
    words += [r[i:i + 2] for r in _CJK_RUN.findall(bare) for i in range(len(r) - 1)]
    if len(words) >= 3 and not any(_flat(w) in held for w in words):
        return "no word of the quotes"
    return ""


def check_answer(answer: str, quotes: Sequence[str], context: Sequence[str] = ()) -> AnswerCheck:
    """Keep the sentences of ``answer`` that ``quotes`` support (see the module docstring).

    :param answer: the model-written answer (any language; footnote markers allowed).
    :param quotes: the verified quotes it cites (verbatim document text).
    :param context: more document-derived text a sentence may name (cited paths, titles,
        section paths), never model text.
    :returns: :class:`AnswerCheck`; ``text`` is ``""`` when no sentence is supported.
    """
    held = _flat(" ".join((*quotes, *context)))
    held_numbers = _number_values(" ".join((*quotes, *context)))
    out = AnswerCheck("")
    for sent in split_sentences(answer):
        why = _unsupported(sent, held, held_numbers)
        if why:
            out.dropped += 1
            out.reasons.append(why)
        else:
            out.kept.append(sent)
    joiner = "" if any(_CJK_RUN.search(s) for s in out.kept) else " "
    out.text = joiner.join(out.kept).strip()
    return out
