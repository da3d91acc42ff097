"""Pictures of text on born-digital PDF pages (issue 17 item 1, "mixed scanned pages").

A page can hold enough text not to count as scanned (``_pdf_ocr.needs_ocr``) and still show
its key paragraph as a picture: a pasted screenshot, a scanned signature page, a stamped
clause. Such a picture is a *text gap*: an image covering at least :data:`MIN_SHARE` of an
unrotated page with fewer than :data:`MAX_TEXT_ON_IT` characters of the text layer on it
(text drawn over a background picture is not a gap).

:func:`read_text_pictures` keeps the gaps whose pixels show lines of text
(:func:`looks_like_text`: no Tesseract run for a chart, photo or logo), OCRs each when OCR is
available and inserts the OCR lines into
the page's lines where the picture sits (before the first line below its middle), as their own
paragraph in the page's body font size — only when they read as prose
(:func:`reads_as_text`: at least two lines of on average :data:`MIN_LINE_CHARS` characters,
mostly letters, not garbled). Without OCR the page is reported (``mixed_scan``) and indexed
as before.
"""

from __future__ import annotations

from corpus.parsers._pdf_ocr import ocr_clip_lines, ocr_languages
from corpus.parsers._pdf_page import VLine
from corpus.parsers._pdf_quality import garbled_reason
from corpus.parsers._pymupdf import pymupdf

__all__ = ["MAX_TEXT_ON_IT", "MIN_LINE_CHARS", "MIN_PIXELS", "MIN_SHARE", "PROFILE_DPI",
           "looks_like_text", "read_text_pictures", "reads_as_text", "text_gaps"]

MIN_SHARE = 0.05
MAX_TEXT_ON_IT = 10
MIN_LINE_CHARS = 15
MIN_PIXELS = 20_000  # a picture of two lines of text is larger; icons and rules are not
PROFILE_DPI = 72


def text_gaps(page: pymupdf.Page, lines: list[VLine]) -> list[pymupdf.Rect]:
    """Pictures on ``page`` (rotation 0) covering ≥ :data:`MIN_SHARE` of it with fewer than
    :data:`MAX_TEXT_ON_IT` text-layer characters on them (``lines``: the page's lines)."""
    if page.rotation:
        return []
    # cheap gate first (the page's image resources, no drawing): an image of at least
    # MIN_PIXELS pixels; get_image_info runs the page's content and costs ~3 ms a page
    if not any(i[2] * i[3] >= MIN_PIXELS and min(i[2], i[3]) >= 16
               for i in page.get_images(full=False)):
        return []
    area = abs(page.rect)
    rects: list[pymupdf.Rect] = []
    for info in page.get_image_info():
        r = pymupdf.Rect(info["bbox"]) & page.rect
        if r.is_empty or abs(r) < MIN_SHARE * area:
            continue
        for k, other in enumerate(rects):
            if r.intersects(other):  # tiles or a picture drawn twice: one gap
                rects[k] = other | r
                break
        else:
            rects.append(r)
    out = []
    for r in rects:
        on_it = sum(
            len(v.text)
            for v in lines
            if r.contains(pymupdf.Point((v.bbox[0] + v.bbox[2]) / 2, (v.bbox[1] + v.bbox[3]) / 2))
        )
        if on_it < MAX_TEXT_ON_IT:
            out.append(r)
    return out


def looks_like_text(page: pymupdf.Page, rect: pymupdf.Rect) -> bool:
    """True when the picture at ``rect`` shows lines of text, judged from its pixels before
    any OCR (a chart, a photo or a logo costs no Tesseract run): rendered grey at
    :data:`PROFILE_DPI`, ink = pixels far from the background (the most common grey); a text
    *band* is a run of at least 4 rows with ink on over 3 % of the row, between rows with ink on
    under 1.5 %; a *line of text* is a band at most 30 rows high (30 pt), with a row inked over
    20 %, its ink spanning over half the picture. At least three lines of text, and they make
    60 % of the bands: prose, not a chart's plot area, axis labels and legend."""
    import numpy as np

    pix = page.get_pixmap(dpi=PROFILE_DPI, clip=rect, colorspace=pymupdf.csGRAY, alpha=False)
    if pix.width < 20 or pix.height < 10:
        return False
    img = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width]
    bg = int(np.bincount(img.ravel(), minlength=256).argmax())
    ink = np.abs(img.astype(np.int16) - bg) > 80
    share = ink.mean(axis=1)
    bands: list[tuple[int, int]] = []
    start = -1
    for y, frac in enumerate(share.tolist() + [0.0]):
        if frac > 0.03 and start < 0:
            start = y
        elif frac < 0.015 and start >= 0:
            if y - start >= 4:
                bands.append((start, y))
            start = -1
    lines = 0
    for a, b in bands:
        if b - a > 30 or share[a:b].max() < 0.2:  # a chart's plot area, axis labels, legend
            continue
        cols = np.flatnonzero(ink[a:b].any(axis=0))
        lines += cols.size > 0 and cols[-1] - cols[0] > 0.5 * pix.width
    return lines >= 3 and lines >= 0.6 * len(bands)


def reads_as_text(lines: list[VLine]) -> bool:
    """True when OCR ``lines`` read as prose, not a photo's specks or a chart's labels."""
    if len(lines) < 2:
        return False
    text = "\n".join(v.text for v in lines)
    chars = [c for c in text if not c.isspace()]
    if len(chars) < MIN_LINE_CHARS * len(lines) or garbled_reason(text) is not None:
        return False
    return sum(c.isalpha() for c in chars) >= 0.6 * len(chars)


def _insert(lines: list[VLine], ocr: list[VLine], rect: pymupdf.Rect) -> list[VLine]:
    mid = (rect.y0 + rect.y1) / 2
    at = next(
        (i for i, v in enumerate(lines)
         if (v.bbox[1] + v.bbox[3]) / 2 > mid and v.bbox[0] < rect.x1 and v.bbox[2] > rect.x0),
        len(lines),
    )
    sizes = sorted(v.size for v in lines)
    body = sizes[len(sizes) // 2] if sizes else 0.0
    block = max((v.block for v in lines), default=0) + 1
    for v in ocr:
        v.size = v.min_size = body
        v.bold = False
        v.block = block
    out = lines[:at] + ocr + lines[at:]
    for n, v in enumerate(out, start=1):
        v.number = n
    return out


def read_text_pictures(
    pages: list[pymupdf.Page], lines: list[list[VLine]], skip: set[int]
) -> tuple[list[int], list[int]]:
    """OCR the text gaps of every page (0-based index not in ``skip``), in place in ``lines``.

    :returns: ``(read, unread)``: 1-based pages whose pictures of text were read by OCR, and
        pages with a text gap left unread because OCR is unavailable.
    """
    read: list[int] = []
    unread: list[int] = []
    for i, page in enumerate(pages):
        if i in skip or not lines[i]:
            continue
        gaps = [r for r in text_gaps(page, lines[i]) if looks_like_text(page, r)]
        if not gaps:
            continue
        if not ocr_languages():
            unread.append(i + 1)
            continue
        added = False
        for rect in gaps:
            ocr = ocr_clip_lines(page, rect)
            if ocr and reads_as_text(ocr):
                lines[i] = _insert(lines[i], ocr, rect)
                added = True
        if added:
            read.append(i + 1)
    return read, unread
