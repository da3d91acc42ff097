"""The quote normal form of :mod:`corpus.citations`, computed by whitespace runs, not by character.

Same output as applying the rules of ``corpus.citations`` character by character (NFKC of each
character alone, whitespace runs collapsed, dropped next to a CJK character and at both ends),
at C speed for most of the work:

- each distinct non-ASCII character is normalised once (``_FORMS``); the text's characters whose
  form is another single character are replaced with ``str.translate`` (the *stream* keeps the
  text's length), those whose form has another length (ligature ``ﬁ`` → ``fi``) are spliced in;
- a text in which no character (of the text or of the stream) is CJK keeps every inner whitespace
  run as one space: ``" ".join(stream.split())``; otherwise each run is judged on the characters
  around it (CJK-ness of the stream character or of its source character, as the rules say);
- the source index of a normalised character is looked up when asked (:meth:`NormalForm.source`,
  what a found quote needs), from segments built on the first lookup.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

__all__ = ["NormalForm", "is_cjk"]

# \s is exactly str.isspace() for str patterns (checked over all code points)
_WORD = re.compile(r"\S+")
_CJK = re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
                  "\U00020000-\U0003ffff]")
_FORMS: dict[str, str] = {}  # non-ASCII character -> NFKC of it alone (one entry per character)


def is_cjk(ch: str) -> bool:
    """Han, kana, Hangul, CJK punctuation, half/full-width forms (the ranges of ``_CJK``)."""
    o = ord(ch)
    return (
        0x2E80 <= o <= 0x9FFF  # radicals, CJK symbols & punctuation, kana, CJK unified
        or 0xAC00 <= o <= 0xD7AF  # Hangul syllables
        or 0xF900 <= o <= 0xFAFF  # compatibility ideographs
        or 0xFE30 <= o <= 0xFE4F  # CJK compatibility forms
        or 0xFF00 <= o <= 0xFFEF  # half/full-width forms (those NFKC keeps)
        or 0x20000 <= o <= 0x3FFFF  # extension B and beyond
    )


def _nfkc(ch: str) -> str:
    form = _FORMS.get(ch)
    if form is None:
        form = _FORMS[ch] = unicodedata.normalize("NFKC", ch)
    return form


def _stream(text: str) -> tuple[str, list[int] | None]:
    """The text with each character replaced by its form (whitespace left as it is), and for each
    stream character its source index (``None``: the same index, no form changed the length)."""
    if text.isascii():
        return text, None
    one: dict[int, str] = {}
    other: dict[str, str] = {}
    for ch in set(text):
        if ch.isascii():
            continue
        form = _nfkc(ch)
        if form == ch or (ch.isspace() and form.isspace()):
            continue  # itself, or whitespace either way
        if len(form) == 1:
            one[ord(ch)] = form
        else:
            other[ch] = form
    stream = text.translate(one) if one else text
    if not other:
        return stream, None
    at = sorted(i for ch in other for i in _positions(text, ch))
    parts: list[str] = []
    index: list[int] = []
    prev = 0
    for i in at:
        form = other[text[i]]
        parts += (stream[prev:i], form)
        index += range(prev, i)
        index += [i] * len(form)
        prev = i + 1
    parts.append(stream[prev:])
    index += range(prev, len(text))
    return "".join(parts), index


def _positions(text: str, ch: str) -> list[int]:
    found: list[int] = []
    i = text.find(ch)
    while i >= 0:
        found.append(i)
        i = text.find(ch, i + 1)
    return found


class NormalForm:
    """``norm``: the normal form of ``text``; :meth:`source`: where a character of it comes from."""

    __slots__ = ("norm", "_text", "_stream", "_index", "_cjk", "_starts", "_offsets")

    def __init__(self, text: str) -> None:
        self._text = text
        self._stream, self._index = _stream(text)
        self._cjk = bool(_CJK.search(text) or _CJK.search(self._stream))
        self._starts: list[int] | None = None  # segments: where each starts in norm ...
        self._offsets: list[int] = []  # ... and in the stream (built once, then only read)
        if self._cjk:
            self.norm, self._offsets, self._starts = self._segments()
        else:
            self.norm = " ".join(self._stream.split())

    def source(self, at: int) -> int:
        """Index in ``text`` of the character ``norm[at]`` comes from (a space: the first
        character of its whitespace run)."""
        starts = self._starts
        if starts is None:  # two threads may both build them: the same lists
            _, self._offsets, starts = self._segments()
            self._starts = starts
        j = bisect_right(starts, at) - 1
        k = self._offsets[j] + at - starts[j]
        return k if self._index is None else self._index[k]

    def _cjk_at(self, k: int) -> bool:
        ch = self._stream[k]
        src = self._text[k if self._index is None else self._index[k]]
        return (ord(ch) > 0x7F and is_cjk(ch)) or (ord(src) > 0x7F and is_cjk(src))

    def _segments(self) -> tuple[str, list[int], list[int]]:
        """Each word (maximal non-whitespace run) of the stream, and each whitespace run kept as a
        space, as one segment (a kept space: length 1, at its run's start): the norm, and where
        each segment starts in the stream and in the norm."""
        starts: list[int] = []
        offsets: list[int] = []
        parts: list[str] = []
        n = 0
        end = -1
        for m in _WORD.finditer(self._stream):
            a, b = m.span()
            if end >= 0 and not (self._cjk and (self._cjk_at(end - 1) or self._cjk_at(a))):
                starts.append(n)
                offsets.append(end)
                parts.append(" ")
                n += 1
            starts.append(n)
            offsets.append(a)
            parts.append(m.group())
            n += b - a
            end = b
        if not starts:  # empty or all whitespace: no character to look up
            starts.append(0)
            offsets.append(0)
        return "".join(parts), offsets, starts
