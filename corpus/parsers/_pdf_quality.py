"""Text-layer quality per PDF page (issue 17 item 1): text that cannot be what the page shows.

A font without a usable ToUnicode map makes MuPDF return glyph ids as characters: U+FFFD,
private-use code points, C0 controls where spaces were (``/FUXPSL\\x01MPHT``: "Network logs"
shifted), or CJK characters nobody writes (CJK Extension A, characters outside both GB2312 and
Big5). A page is *garbled* when, among its non-space characters (at least 20),

- replacement (U+FFFD), private-use (U+E000–F8FF, planes 15–16) and control characters are
  ≥ 5 %, or
- of its CJK ideographs (at least 10), ≥ 30 % are in neither GB2312 nor Big5 (real Chinese
  text, technical terms included, stays under 5 %; the Unicode Han blocks in GB2312 ∪ Big5
  cover some 15 000 common characters).

:func:`screen_pages` OCRs a garbled page when OCR is available (``_pdf_ocr``) and keeps the OCR
text when it is not garbled itself; otherwise the page's text is dropped (kept out of the
index) and the page is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["MIN_CHARS", "garbled_reason", "screen_pages"]

MIN_CHARS = 20
_BAD_SHARE = 0.05
_RARE_SHARE = 0.30
_MIN_CJK = 10


@lru_cache(maxsize=65536)
def _common_han(ch: str) -> bool:
    for enc in ("gb2312", "big5"):
        try:
            ch.encode(enc)
            return True
        except UnicodeEncodeError:
            pass
    return False


def _bad(ch: str) -> bool:
    o = ord(ch)
    return (ch == "\ufffd" or 0xE000 <= o <= 0xF8FF or o >= 0xF0000
            or (o < 0x20 and ch not in "\t\n\r\f") or 0x7F <= o <= 0x9F)


def garbled_reason(text: str) -> str | None:
    """Why ``text`` (one page's text layer) cannot be what the page shows, or ``None``.

    :returns: ``"unmapped glyphs"`` (replacement / private-use / control characters) or
        ``"implausible CJK characters"`` (rules in the module docstring); ``None`` for text
        that passes, and for pages with fewer than :data:`MIN_CHARS` non-space characters.
    """
    chars = [c for c in text if not c.isspace()]
    if len(chars) < MIN_CHARS:
        return None
    if text.isascii():
        bad = sum(1 for c in chars if ord(c) < 0x20 or ord(c) == 0x7F)
        return "unmapped glyphs" if bad >= _BAD_SHARE * len(chars) else None
    if sum(1 for c in chars if _bad(c)) >= _BAD_SHARE * len(chars):
        return "unmapped glyphs"
    han = [c for c in chars if "\u3400" <= c <= "\u9fff" or "\U00020000" <= c <= "\U0003134f"]
    if len(han) >= _MIN_CJK:
        rare = sum(1 for c in han if not _common_han(c))
        if rare >= _RARE_SHARE * len(han):
            return "implausible CJK characters"
    return None


def screen_pages(
    lines: list[list[Any]], text_of: Callable[[list[Any]], str],
    reocr: Callable[[int], list[Any] | None],
    skip: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[list[int], dict[int, str]]:
    """Check every page's text layer; replace or drop garbled ones, in place in ``lines``.

    :param lines: per page (0-based), its visual lines; a garbled page's entry becomes its OCR
        lines, or ``[]``.
    :param text_of: a page's text from its lines.
    :param reocr: OCR lines of page index ``i``, ``None`` when OCR is unavailable or failed.
    :param skip: page indexes already read by OCR.
    :returns: ``(ocr_pages, garbled)``: 1-based pages whose garbled layer was replaced by OCR,
        and 1-based pages kept out of the index → the reason.
    """
    fixed: list[int] = []
    garbled: dict[int, str] = {}
    for i, ls in enumerate(lines):
        if not ls or i in skip:
            continue
        why = garbled_reason(text_of(ls))
        if why is None:
            continue
        ocr = reocr(i)
        if ocr and garbled_reason(text_of(ocr)) is None:
            lines[i] = ocr
            fixed.append(i + 1)
        else:
            lines[i] = []
            garbled[i + 1] = why
    return fixed, garbled
