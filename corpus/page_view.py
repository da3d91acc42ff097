"""What a citation looks like on its source: a PDF page rendered to PNG with the boxes of the
quoted words, or the lines of a Markdown / text file with the quoted ones marked.

Citations carry ``page`` / ``page_end`` and ``lines`` (1-based line numbers on the page, as
``corpus.parsers._pdf_page.page_lines`` numbers them: visual lines in reading order, every
visible line counted) and the verbatim ``quote``. :func:`quote_boxes` reads the same visual
lines again, takes the cited ones, and finds the quote's characters in them (PyMuPDF
``rawdict`` characters, compared in the normal form of ``corpus.citations`` with all whitespace
and table pipes removed). The boxes are those characters' union per visual line. A table row
the chunker rebuilt (``| a | b |``) whose cells the page lays over several visual lines (a
wrapped cell, a cell centred between rows, each cell a line of its own) is found cell by cell in
the lines around the cited ones, one box per piece of a cell. A quote not on its cited lines
(numbered before the page's reading order changed: re-ingesting renumbers them) is looked for
on the whole page, the occurrence nearest to the cited lines. When the characters cannot be
matched (an OCR'd page) the cited lines' whole boxes are returned instead, and ``exact`` says
which.

Rendering uses PyMuPDF ``Page.get_pixmap(dpi=…)`` (AGPL-3.0, like LoopGate).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus._page_quote import (
    ROW_FOUND,
    ROW_WINDOW,
    Box,
    line_chars,
    on_page,
    quote_key,
    row_boxes,
    span_in,
    union,
)
from corpus.errors import ParseError
from corpus.parsers._pdf_page import page_lines
from corpus.parsers._pymupdf import pymupdf
from corpus.parsers.text import decode_text

__all__ = ["Box", "PageImage", "QuoteBoxes", "quote_boxes", "render_page", "source_lines"]

#: Rendering resolution bounds (dots per inch): 72 = one pixel per point.
MIN_DPI, MAX_DPI = 48, 200
#: the longest side of a rendered page, pixels: an A3 page at MAX_DPI is 3,307 (``render_page``)
MAX_SIDE_PX = 4000


@dataclass(frozen=True, slots=True)
class PageImage:
    """A rendered PDF page.

    :ivar png: the PNG bytes. :ivar width: / :ivar height: image size in pixels.
    :ivar page_width: / :ivar page_height: page size in PDF points (a box's ``x / page_width``
        is its share of the image width). :ivar page_count: pages of the document.
    """

    png: bytes
    width: int
    height: int
    page_width: float
    page_height: float
    page_count: int


@dataclass(frozen=True, slots=True)
class QuoteBoxes:
    """Where a quote sits on one page: ``boxes`` (one per visual line it covers — a table row
    found cell by cell: one per piece of a cell — PDF points), ``lines`` the visual line
    numbers they belong to (one per box), ``exact`` true when the boxes are the
    quote's own characters (false: the cited lines' whole boxes), ``page_width`` /
    ``page_height`` in points."""

    boxes: list[Box]
    lines: list[int]
    exact: bool
    page_width: float
    page_height: float


def _open(path: Path) -> pymupdf.Document:
    try:
        return pymupdf.open(path)
    except Exception as exc:  # PyMuPDF raises its own FileDataError / RuntimeError family
        raise ParseError("corrupt_pdf", f"{path.name}: cannot be opened as a PDF") from exc


def _page(doc: pymupdf.Document, page: int) -> pymupdf.Page:
    if not 1 <= page <= doc.page_count:
        raise ValueError(f"page {page} is outside 1..{doc.page_count}")
    return doc[page - 1]


def render_page(path: Path, page: int, *, dpi: int = 110) -> PageImage:
    """Render physical ``page`` (1-based) of the PDF at ``path`` to PNG.

    :param dpi: resolution, clamped to ``MIN_DPI..MAX_DPI`` (110 dpi: an A4 page is 909 x 1286
        pixels, 100-300 kB for a text page); a page whose longer side would pass
        :data:`MAX_SIDE_PX` pixels is rendered that long (the image's ``width`` / ``height``
        say its size).
    :raises ParseError: ``corrupt_pdf`` (not a PDF). :raises ValueError: no such page.
    """
    dpi = max(MIN_DPI, min(MAX_DPI, int(dpi)))
    with _open(path) as doc:
        pg = _page(doc, page)
        # a page far larger than paper (a 200-inch poster) renders scaled to MAX_SIDE_PX on its
        # longer side: at 110 dpi MuPDF refused the pixmap ("Overly large image", a 500 in the
        # viewer: a break-it trial's 14,400-pt page)
        fit = MAX_SIDE_PX / max(pg.rect.width, pg.rect.height, 1.0)
        pix = (pg.get_pixmap(dpi=dpi, alpha=False) if dpi / 72.0 <= fit else
               pg.get_pixmap(matrix=pymupdf.Matrix(fit, fit), alpha=False))
        return PageImage(pix.tobytes("png"), pix.width, pix.height, pg.rect.width,
                         pg.rect.height, doc.page_count)




def quote_boxes(
    path: Path, page: int, lines: tuple[int, int], quote: str, *, cited_page: int | None = None,
    page_end: int = 0,
) -> QuoteBoxes:
    """Boxes of ``quote`` on physical ``page`` of the PDF at ``path``.

    :param lines: the citation's ``(first, last)`` line numbers (first on ``cited_page``, last
        on ``page_end``).
    :param cited_page: the citation's ``page`` (default ``page``); a quote crossing a page break
        is looked for on both pages: from ``first`` to the page's end on ``cited_page``, from
        line 1 to ``last`` on ``page_end``.
    :returns: :class:`QuoteBoxes`; ``boxes`` empty when the cited lines are not on ``page``.
    :raises ParseError: ``corrupt_pdf``. :raises ValueError: no such page.
    """
    start_page = cited_page or page
    end_page = page_end if page_end and page_end > start_page else start_page
    first = lines[0] if page == start_page else 1
    last = lines[1] if page == end_page else 10**9
    with _open(path) as doc:
        pg = _page(doc, page)
        size = (pg.rect.width, pg.rect.height)
        every = page_lines(pg)
        vlines = [v for v in every if first <= v.number <= last]
        if not vlines or not start_page <= page <= end_page:
            return QuoteBoxes([], [], False, *size)
        keys: list[str] = []
        where: list[tuple[int, Box]] = []  # (line number, char box) per key character
        bounds: list[tuple[int, int]] = []  # each line's [start, end) in ``keys``
        for v in vlines:
            first_key = len(keys)
            for k, b in line_chars(pg, v.bbox):
                for c in k:
                    keys.append(c)
                    where.append((v.number, b))
            bounds.append((first_key, len(keys)))
        span = span_in("".join(keys), quote_key(quote), bounds, head=page > start_page,
                        tail=page < end_page)
        row = None
        if span is None and "|" in quote and start_page == end_page:
            # a page may lay a row's cells out as lines of their own: one line per cell below
            below = last + ROW_WINDOW + quote.count("|")
            near = [v for v in every if first - ROW_WINDOW <= v.number <= below]
            row = row_boxes(pg, near, first, last, quote)
        if span is None and (row is None or row[2] < ROW_FOUND) and start_page == end_page:
            # the cited lines may be numbered otherwise than the page reads now (a collection
            # ingested before the reading order changed): the quote anywhere on the page, the
            # occurrence nearest to the cited lines
            where, span = on_page(pg, every, quote_key(quote), first)
    if span is None and row is not None and row[2] >= ROW_FOUND:
        return QuoteBoxes(row[0], row[1], row[2] == 1.0, *size)
    if span is None:
        return QuoteBoxes([v.bbox for v in vlines], [v.number for v in vlines], False, *size)
    per_line: dict[int, list[Box]] = {}
    for number, b in where[span[0]:span[1]]:
        per_line.setdefault(number, []).append(b)
    numbers = sorted(per_line)
    return QuoteBoxes([union(per_line[n]) for n in numbers], numbers, True, *size)


def source_lines(path: Path) -> list[str]:
    """The lines of a Markdown / text file as the parsers numbered them (decoded like
    ``corpus.parsers.text.decode_text``; line ``n`` is ``result[n - 1]``).

    :raises ParseError: ``undecodable`` (binary data).
    """
    text, _enc, _warnings = decode_text(path.read_bytes(), path)
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

