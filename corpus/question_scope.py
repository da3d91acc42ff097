"""What a question restricts its answer to, beyond its terms (issue 15 item 4, answerability):
the **page** it names and the **visual** attribute it asks about.

Retrieval always returns the closest text, so "What is the FAX No on page thirteen?" used to be
answered from page fourteen, and "What is the color of the icons …?" or "What is the yellow
italic text on page 9?" from a sentence that says nothing about a colour or a font. Both paths
(the RAG answer decision and the LoopAgent's answer checks) ask this module:

- :func:`asked_pages` – the pages a question names (``page 14``, ``page fourteen``, ``the first
  page``, ``p. 12``, ``第14页``); an answer must be quoted from one of them (its physical page
  or its printed label), else the evidence is about another page: "not found";
- :func:`visual_ask` – what the question asks that only the rendered page shows:
  a **colour** (a colour word, or "colour" itself), **typography** (the italic / underlined /
  bold / highlighted text itself), or objects **counted in a picture** ("how many people … in
  the photo / on page 5"). Text extraction keeps the words of a page, not how they look, so
  such a question is answerable only when the quoted text states it (a colour word in the unit:
  "the indicator turns red"); typography and picture counts never are.

Pure functions over the question and the evidence text, no I/O. Ordinal and cardinal number
words are read by the ``number-parser`` library (``parse_number`` / ``parse_ordinal``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from number_parser import parse_number, parse_ordinal

__all__ = ["VisualAsk", "asked_pages", "on_asked_page", "scope_misses", "visual_ask",
           "visual_supported"]

_NUMBER_WORD = r"[a-z]+(?:[- ][a-z]+)?"
# "on page 14", "in Page 5", "page fourteen", "pages 3 and 4", "p. 12", "pp. 3-4"
_PAGE_AFTER = re.compile(
    rf"\b(?:pages?|pp?\.)\s*(?P<n>\d{{1,4}}|{_NUMBER_WORD})(?:\s*(?:-|–|and|to|&)\s*"
    rf"(?P<m>\d{{1,4}}))?\b", re.I)
# "the first page", "the 3rd page", "the thirteenth page"
_PAGE_BEFORE = re.compile(r"\bthe\s+(?P<n>\d{1,4}(?:st|nd|rd|th)|[a-z]+(?:-[a-z]+)?)\s+page\b",
                          re.I)
_PAGE_ZH = re.compile(r"第\s*(?P<n>\d{1,4})\s*[页頁]")
_ORDINAL_DIGITS = re.compile(r"^(\d{1,4})(?:st|nd|rd|th)$", re.I)

_COLOURS_EN = ("red", "yellow", "green", "blue", "black", "white", "orange", "purple", "pink",
               "grey", "gray", "brown", "violet", "cyan", "magenta")
_COLOURS_ZH = ("红", "黄", "绿", "蓝", "黑", "白", "橙", "紫", "粉", "灰", "棕",
               "紅", "黃", "綠", "藍")
_COLOUR_WORD = re.compile(r"\b(?:" + "|".join(_COLOURS_EN) + r")(?:ish)?\b", re.I)
# a question asking *for* a colour: "what is the color of …", "which colour …", "what color
# indicates …"; "customize the font and color of …" asks how, not which colour
_COLOUR_ASK = re.compile(
    r"\b(?:what|which)\s+(?:is\s+|are\s+|was\s+)?(?:the\s+)?colou?rs?\b"
    r"|什么颜色|什麼顏色|哪种颜色|哪種顏色|什么色|什麼色|颜色是|顏色是", re.I)
_COLOUR_ZH = re.compile("(?:" + "|".join(_COLOURS_ZH) + ")色")
# the formatted text itself is asked for: "the underlined italic words", "lines highlighted in
# yellow", "the bold text"
_TYPOGRAPHY = re.compile(
    r"\b(?:italic|italics|italicized|underlined|bold|boldface|highlighted|strikethrough)\b"
    r"(?:\s+\w+){0,2}?\s+(?:texts?|words?|lines?|phrases?|sentences?|letters?)\b"
    r"|\b(?:texts?|words?|lines?|phrases?|sentences?)\s+(?:are\s+|is\s+)?(?:in\s+)?"
    r"(?:italics?|bold|underlined|highlighted)\b", re.I)
# objects counted in a rendered picture: "how many people with sunglasses are there in page 5"
_PICTURE_COUNT = re.compile(
    r"\bhow\s+many\s+(?:\w+\s+){0,2}(?:people|persons|men|women|children|faces|logos|icons|"
    r"animals|cars)\b.*\b(?:in|on)\s+(?:the\s+)?(?:picture|photo|photograph|image|page)\b",
    re.I)


@dataclass(frozen=True, slots=True)
class VisualAsk:
    """A question asking what only the rendered page shows: ``kind`` is ``colour``,
    ``typography`` or ``picture``; ``colours`` the colour words the question names (normal
    form, may be empty: "what colour …")."""

    kind: str
    colours: tuple[str, ...] = ()


def _number(word: str) -> int | None:
    word = word.strip().lower()
    if word.isdigit():
        return int(word)
    m = _ORDINAL_DIGITS.match(word)
    if m:
        return int(m.group(1))
    for parse in (parse_ordinal, parse_number):
        try:
            value = parse(word.replace("-", " "))
        except (ValueError, TypeError, AttributeError):
            value = None
        if isinstance(value, int) and 0 < value < 10000:
            return value
    return None


@lru_cache(maxsize=4096)
def asked_pages(question: str) -> tuple[int, ...]:
    """The 1-based page numbers ``question`` names, in question order (empty: none).

    ``"What is the FAX No on page thirteen?"`` → ``(13,)``; ``"on pages 3-4"`` → ``(3, 4)``;
    ``"the first page"`` → ``(1,)``; ``"第14页"`` → ``(14,)``. "page" followed by a word that is
    no number ("the page layout", "page numbers") names none.
    """
    text = unicodedata.normalize("NFKC", question)
    out: list[int] = []
    for m in _PAGE_AFTER.finditer(text):
        n = _number(m.group("n"))
        if n is None:
            continue
        end = int(m.group("m")) if m.group("m") else n
        out.extend(range(n, end + 1) if n <= end <= n + 10 else (n,))
    for m in _PAGE_BEFORE.finditer(text):
        n = _number(m.group("n"))
        if n is not None:
            out.append(n)
    out.extend(int(m.group("n")) for m in _PAGE_ZH.finditer(text))
    return tuple(dict.fromkeys(out))


def on_asked_page(pages: Sequence[int], page: int, page_end: int = 0, label: str = "",
                  label_end: str = "") -> bool:
    """True when a quote on physical pages ``page``..``page_end`` (labels ``label``,
    ``label_end``) is on one of ``pages`` (a question names the printed label as often as the
    physical page: either counts). ``pages`` empty: always true."""
    if not pages:
        return True
    last = max(page, page_end or page)
    labels = {lab.strip() for lab in (label, label_end) if lab.strip()}
    return any(page <= p <= last or str(p) in labels for p in pages)


@lru_cache(maxsize=4096)
def visual_ask(question: str) -> VisualAsk | None:
    """What ``question`` asks that only the rendered page shows (:class:`VisualAsk`), or
    ``None``. Typography and picture counts come first: "the yellow italic text" asks for the
    italic text, whatever its colour."""
    text = unicodedata.normalize("NFKC", question)
    if _TYPOGRAPHY.search(text):
        return VisualAsk("typography")
    if _PICTURE_COUNT.search(text):
        return VisualAsk("picture")
    colours = tuple(dict.fromkeys(m.group(0).lower() for m in _COLOUR_WORD.finditer(text)))
    zh = tuple(dict.fromkeys(m.group(0) for m in _COLOUR_ZH.finditer(text)))
    if colours or zh or _COLOUR_ASK.search(text):
        return VisualAsk("colour", colours + zh)
    return None


def visual_supported(ask: VisualAsk, text: str) -> bool:
    """True when the evidence ``text`` states what ``ask`` asks: for a colour, one of the
    question's colour words (any colour word when it names none); typography and picture counts
    never (extracted text does not keep them)."""
    if ask.kind != "colour":
        return False
    norm = unicodedata.normalize("NFKC", text)
    if ask.colours:
        low = norm.lower()
        return any((re.search(rf"\b{re.escape(c)}", low) if c.isascii() else c[0] in norm)
                   for c in ask.colours)
    return bool(_COLOUR_WORD.search(norm) or _COLOUR_ZH.search(norm))


def scope_misses(question: str, text: str, page: int, page_end: int = 0, label: str = "",
                 label_end: str = "") -> list[str]:
    """Why an answer quoting ``text`` on ``page``..``page_end`` falls outside what
    ``question`` restricts it to, as flags (empty: it does not):
    ``not_on_asked_page:<n,…>`` and ``asks_visual:<kind>``."""
    out: list[str] = []
    pages = asked_pages(question)
    if pages and not on_asked_page(pages, page, page_end, label, label_end):
        out.append("not_on_asked_page:" + ",".join(str(p) for p in pages))
    ask = visual_ask(question)
    if ask is not None and not visual_supported(ask, text):
        out.append("asks_visual:" + ask.kind)
    return out
