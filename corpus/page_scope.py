"""The page a question names, and whether a quote is on it (issue 15 item 4, answerability;
``corpus.question_scope``): "What is the FAX No on page thirteen?" used to be answered from page
fourteen, retrieval returning the closest text.

:func:`asked_pages` reads ``page 14``, ``page fourteen``, ``the first page``, ``p. 12``,
``pages 3-4``, ``第14页``; a quote is on an asked page when its physical page or its printed label
is one of them (:func:`on_asked_page`); :func:`page_misses` keeps the items quoted there. Pure
functions, no I/O. Ordinal and cardinal number words are read by the ``number-parser`` library
(``parse_number`` / ``parse_ordinal``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import islice
from typing import TypeVar

from number_parser import parse_number, parse_ordinal

from corpus.types import Citation

T = TypeVar("T")

__all__ = ["MAX_PAGE", "MAX_PAGE_SPAN", "asked_pages", "on_asked_page", "page_misses"]

# English number words, cardinal and ordinal ("fourteen", "twenty-first", "one hundred and
# five", "thirteenth"): only such a run is handed to number-parser, whole — a word that is no
# number ("the page layout", "the last page") costs nothing, and "page one hundred billion" is
# read as 100,000,000,000 (no page), not as page 100
_NUM_STEM = (r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
             r"|(?:thir|four|fif|six|seven|eigh|nine)teen|(?:twen|thir|for|fif|six|seven|eigh|nine)ty"
             r"|hundred|thousand|million|billion|trillion)")
_ORD_STEM = (r"(?:zeroth|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth"
             r"|eleventh|twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth"
             r"|(?:twen|thir|for|fif|six|seven|eigh|nine)tieth"
             r"|hundredth|thousandth|millionth|billionth|trillionth)")
_NUM_JOIN = r"(?:[-\s]+|(?<=hundred)\s+and\s+|(?<=thousand)\s+and\s+)"
_NUMBER_WORDS = (rf"(?:{_NUM_STEM}{_NUM_JOIN}){{0,7}}(?:{_ORD_STEM}|{_NUM_STEM})"
                 rf"(?:{_NUM_JOIN}(?:{_ORD_STEM}|{_NUM_STEM})){{0,7}}")
_PAGE_NUMBER = rf"\d{{1,6}}|{_NUMBER_WORDS}"
# "on page 14", "in Page 5", "page fourteen", "pages 3 and 4", "p. 12", "pp. 3-4", "pages 5-2"
_PAGE_AFTER = re.compile(
    rf"\b(?:pages?|pp?\.)\s*(?P<n>{_PAGE_NUMBER})\b(?:\s*(?P<sep>-|–|—|to|through|and|&)\s*"
    rf"(?P<m>{_PAGE_NUMBER})\b)?", re.I)
# "the first page", "the 3rd page", "the thirteenth page"
_PAGE_BEFORE = re.compile(
    rf"\bthe\s+(?P<n>\d{{1,6}}(?:st|nd|rd|th)|{_NUMBER_WORDS})\s+page\b", re.I)
_PAGE_ZH = re.compile(r"第\s*(?P<n>\d{1,6})\s*[页頁]")
_ORDINAL_DIGITS = re.compile(r"^(\d{1,6})(?:st|nd|rd|th)$", re.I)
#: the pages a question can name: 1-based, at most this many (a larger number or a page 0 names
#: no page; a range wider than MAX_PAGE_SPAN pages restricts nothing an answer could quote)
MAX_PAGE = 9999
MAX_PAGE_SPAN = 100
_MAX_MENTIONS = 16  # page mentions read per form: a 4,000-character question costs < 50 ms


@lru_cache(maxsize=4096)
def _number(word: str) -> int | None:
    """The page number ``word`` writes (digits, ``3rd``, number words), or ``None`` when it
    writes none or one outside ``1..MAX_PAGE`` (``page 0``, ``page one hundred billion``)."""
    word = " ".join(word.split()).lower()
    m = _ORDINAL_DIGITS.match(word)
    value: int | None = None
    if word.isdigit() or m:
        value = int(m.group(1) if m else word)
    else:
        for parse in (parse_ordinal, parse_number):
            try:
                parsed = parse(word.replace("-", " "))
            except (ValueError, TypeError, AttributeError):
                parsed = None
            if isinstance(parsed, int):
                value = parsed
                break
    return value if value is not None and 0 < value <= MAX_PAGE else None


@lru_cache(maxsize=4096)
def asked_pages(question: str) -> tuple[int, ...]:
    """The 1-based page numbers ``question`` names, in question order (empty: none).

    ``"What is the FAX No on page thirteen?"`` → ``(13,)``; ``"on pages 3-4"`` → ``(3, 4)``;
    ``"the first page"`` → ``(1,)``; ``"第14页"`` → ``(14,)``; ``"pages 5-2"`` → ``(2, 3, 4, 5)``;
    ``"pages 3 and 7"`` → ``(3, 7)``. "page" followed by a word that is no number ("the page
    layout", "page numbers"), a number outside ``1..MAX_PAGE`` ("page 0", "第0页", "page one
    hundred billion") or a range wider than ``MAX_PAGE_SPAN`` pages ("pages 1-9999") names none:
    the question is then answered as if it named no page, never refused for it.
    """
    text = unicodedata.normalize("NFKC", question)
    out: list[int] = []
    for m in islice(_PAGE_AFTER.finditer(text), _MAX_MENTIONS):
        n = _number(m.group("n"))
        if n is None:
            continue
        end = _number(m.group("m")) if m.group("m") else None
        if end is None:
            out.append(n)
        elif m.group("sep").lower() in ("and", "&"):
            out.extend((n, end))
        elif abs(end - n) <= MAX_PAGE_SPAN:  # "pages 5-2" is pages 2 to 5
            out.extend(range(min(n, end), max(n, end) + 1))
    for m in islice(_PAGE_BEFORE.finditer(text), _MAX_MENTIONS):
        n = _number(m.group("n"))
        if n is not None:
            out.append(n)
    for m in islice(_PAGE_ZH.finditer(text), _MAX_MENTIONS):
        n = _number(m.group("n"))
        if n is not None:
            out.append(n)
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


def page_misses(question: str, items: Sequence[T],
                citation: Callable[[T], Citation]) -> tuple[list[T], list[str]]:
    """The ``items`` quoted on a page ``question`` names (all of them when it names none), in
    order, and ``["not_on_asked_page:<n,…>"]`` when none is (else ``[]``).

    :param citation: the item's citation (its ``page``, ``page_end`` and printed labels).
    """
    pages = asked_pages(question)
    if not pages:
        return list(items), []
    kept = [it for it in items if on_asked_page(pages, (c := citation(it)).page, c.page_end,
                                                c.page_label, c.page_end_label)]
    return kept, ([] if kept or not items else ["not_on_asked_page:" + ",".join(map(str, pages))])
