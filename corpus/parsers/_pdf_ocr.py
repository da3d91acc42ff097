"""OCR for scanned PDF pages (PyMuPDF's Tesseract bridge, ``Page.get_textpage_ocr``).

A page *needs OCR* when images cover at least half of it and its text layer holds fewer than
:data:`MIN_TEXT_CHARS` characters: a scan, possibly stamped with a one-line text header (court
filings: ``Case 2:18-cv-… Page 1 of 16`` over a scanned page, seen in MMLongBench-Doc).

Such a page is rendered at :data:`OCR_DPI` and recognised in full (``full=True``); the OCR
text page then goes through the same visual-line extraction as a born-digital page, so page,
line numbers and boxes mean the same thing. Lines with no letter or digit (the ``|`` and ``.``
Tesseract reads from ruled margins) are dropped.

Languages: ``LOOPGATE_OCR_LANGUAGES`` (Tesseract codes joined by ``+``; default
``eng+chi_sim+chi_tra``), reduced to those whose ``.traineddata`` is installed; an empty value
turns OCR off. OCR is unavailable when Tesseract's data folder is not found
(``pymupdf.get_tessdata()``); the parser then reports ``needs_ocr`` as before.
Install on Debian/Ubuntu: ``apt-get install tesseract-ocr tesseract-ocr-chi-sim``.
"""

from __future__ import annotations

import contextlib
import functools
import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path

from corpus.parsers._pdf_page import VLine, page_lines
from corpus.parsers._pymupdf import pymupdf

__all__ = [
    "MIN_TEXT_CHARS",
    "OCR_DPI",
    "needs_ocr",
    "ocr_clip_lines",
    "ocr_languages",
    "ocr_textpage",
]

MIN_TEXT_CHARS = 200
OCR_DPI = 300  # Tesseract's documented sweet spot for body text (tessdoc "ImproveQuality")
_MIN_IMAGE_COVER = 0.5
DEFAULT_LANGUAGES = "eng+chi_sim+chi_tra"


@functools.cache
def _tessdata() -> str | None:
    try:
        return str(pymupdf.get_tessdata())
    except Exception:  # no Tesseract install found: OCR unavailable
        return None


@functools.cache
def ocr_languages() -> str:
    """The installed subset of ``LOOPGATE_OCR_LANGUAGES`` as ``eng+chi_sim``; ``""`` = no OCR."""
    folder = _tessdata()
    wanted = os.environ.get("LOOPGATE_OCR_LANGUAGES", DEFAULT_LANGUAGES)
    if folder is None or not wanted.strip():
        return ""
    have = [c for c in wanted.split("+") if c and (Path(folder) / f"{c}.traineddata").is_file()]
    return "+".join(have)


def needs_ocr(page: pymupdf.Page, text_chars: int) -> bool:
    """True when ``page`` looks scanned: images cover ≥ 50 % of it and it has little text."""
    if text_chars >= MIN_TEXT_CHARS:
        return False
    area = abs(page.rect)
    if area <= 0:
        return False
    covered = 0.0
    for info in page.get_image_info():
        covered += abs(pymupdf.Rect(info["bbox"]) & page.rect)
    return covered >= _MIN_IMAGE_COVER * area


def ocr_textpage(page: pymupdf.Page) -> pymupdf.TextPage | None:
    """OCR the whole page; ``None`` when OCR is unavailable or Tesseract fails on it."""
    langs = ocr_languages()
    if not langs:
        return None
    try:
        with _quiet_stderr():
            return page.get_textpage_ocr(
                language=langs, dpi=OCR_DPI, full=True, tessdata=_tessdata()
            )
    except Exception:  # Tesseract error on this page: treated as a page without text
        return None


def ocr_clip_lines(page: pymupdf.Page, rect: pymupdf.Rect) -> list[VLine] | None:
    """OCR the part ``rect`` of ``page`` (a picture of text on a born-digital page).

    :returns: its visual lines (``corpus.parsers._pdf_page.page_lines`` of the OCR text, boxes
        in ``page``'s points), ``None`` when OCR is unavailable or Tesseract fails on it.
    """
    langs = ocr_languages()
    if not langs:
        return None
    try:
        pix = page.get_pixmap(dpi=OCR_DPI, clip=rect)
        with _quiet_stderr():
            data = pix.pdfocr_tobytes(compress=False, language=langs, tessdata=_tessdata())
        ocr = pymupdf.open(stream=data, filetype="pdf")
    except Exception:  # Tesseract error on this picture: treated as no text
        return None
    try:
        opage = ocr[0]
        lines = page_lines(opage, opage.get_textpage(flags=0))
        # OCR page points → page points (a matrix on the text page would clip the text away)
        k, dx, dy = rect.width / opage.rect.width, rect.x0, rect.y0
        for v in lines:
            x0, y0, x1, y1 = v.bbox
            v.bbox = (x0 * k + dx, y0 * k + dy, x1 * k + dx, y1 * k + dy)
            for s in v.spans:
                s.x0, s.y0, s.x1, s.y1 = s.x0 * k + dx, s.y0 * k + dy, s.x1 * k + dx, s.y1 * k + dy
        return lines
    finally:
        ocr.close()


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence file descriptor 2 for the duration: Tesseract/Leptonica print diagnostics such as
    "Line cannot be recognized!!" for every speck on a scan straight to the C-level stderr.

    Only in an ingest worker process (``multiprocessing.parent_process()`` set): descriptor 2 is
    process-wide, and in a gateway process other threads' logs would be lost meanwhile."""
    if multiprocessing.parent_process() is None:
        yield
        return
    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            try:
                yield
            finally:
                os.dup2(saved, 2)
    finally:
        os.close(saved)
