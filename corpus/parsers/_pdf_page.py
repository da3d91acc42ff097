"""Page-level PDF extraction: visual lines with fonts and boxes, and ruled tables.

A *visual line* is what a reader sees as one line: PyMuPDF ``get_text("dict", sort=True)``
lines, put in reading order (turned text, two text columns: ``corpus.parsers._pdf_order``),
that belong to one paragraph group and share a baseline band are joined left to right
(unruled financial tables store each cell as its own line; joining them gives ``Cash and cash
equivalents $ 2,853 $ 3,053`` instead of one number per line).

Tables: ``Page.find_tables()`` costs ~0.5 s per page, so it runs only on pages whose vector
drawings form a grid (at least :data:`MIN_RULES` horizontal and as many vertical rules, from
the cheap ``get_cdrawings()``). Cell text comes from our own spans (assigned to cells by their
centre), not ``Table.extract()``, which mangles ``FW-304`` into ``FW 304\\n-`` (case 01).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from corpus.parsers._common import expand_ligatures
from corpus.parsers._pdf_order import frame_box, ordered_lines
from corpus.parsers._pymupdf import pymupdf
from corpus.tuning import TUNING

__all__ = ["MIN_RULES", "PageTable", "VLine", "find_ruled_tables", "has_ruling_grid", "page_lines"]

MIN_RULES = 3
# a found grid is used as a table only when TUNING.pdf.table_min_fill of its cells hold text
# and it has at most TUNING.pdf.table_max_lines_per_row visual lines per row (corpus.tuning)
_FLAGS = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES & ~pymupdf.TEXT_PRESERVE_IMAGES
_BOLD = 16


@dataclass(slots=True)
class _Span:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


_GAP = 1.0  # points: spans closer than this are one word (a font switch, not a space)


def join_spans(spans: list[_Span]) -> str:
    """Join spans of one visual line left to right: a space only where there is a gap."""
    out = ""
    prev: _Span | None = None
    for s in spans:
        text = " ".join(s.text.split())
        if not text:
            continue
        if (
            prev is not None
            and out
            and (s.x0 - prev.x1 > _GAP or s.text[:1].isspace() or prev.text[-1:].isspace())
        ):
            out += " "
        out += text
        prev = s
    return out


@dataclass(slots=True)
class VLine:
    """One visual line of a page.

    :ivar text: the line's text (pieces joined by one space), ligatures expanded.
    :ivar bbox: ``(x0, y0, x1, y1)`` in PDF points.
    :ivar size: largest font size in the line (points); ``min_size`` the smallest.
    :ivar bold: every non-blank span is bold.
    :ivar block: index of the PyMuPDF text block the line came from.
    :ivar number: 1-based line number on the page (reading order, all visible lines counted).
    """

    text: str
    bbox: tuple[float, float, float, float]
    size: float
    min_size: float
    bold: bool
    block: int
    spans: list[_Span] = field(default_factory=list)
    number: int = 0


# Tesseract's Chinese models put a space between characters and around full-width punctuation
# ("增长百分之十二 , 主要"): nobody sees one there
_CJK_CHAR = "\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef"
_OCR_CJK_GAP = re.compile(f"(?<=[{_CJK_CHAR}]) +(?=[{_CJK_CHAR}])")


def _clean_ocr_lines(lines: list[VLine]) -> list[VLine]:
    """OCR lines without the margin rules Tesseract reads as ``|``, ``.``, ``!`` tokens at a
    line's ends, no space between two CJK characters or punctuation marks, lines with no
    letter or digit dropped, and one font size for the page (OCR sizes are box heights, not
    fonts: they must not make headings)."""
    kept: list[VLine] = []
    for v in lines:
        words = v.text.split()
        while words and not any(ch.isalnum() for ch in words[0]):
            words.pop(0)
        while words and not any(ch.isalnum() for ch in words[-1]):
            words.pop()
        if words:
            v.text = _OCR_CJK_GAP.sub("", " ".join(words))
            kept.append(v)
    if kept:
        size = sorted(v.size for v in kept)[len(kept) // 2]
        for v in kept:
            v.size = v.min_size = size
            v.bold = False
    return kept


def page_lines(page: pymupdf.Page, textpage: pymupdf.TextPage | None = None) -> list[VLine]:
    """Visual lines of ``page`` in reading order, numbered 1.. (blank lines skipped).

    :param textpage: an OCR text page of ``page`` (``corpus.parsers._pdf_ocr``) to read
        instead of the PDF's own text layer; its lines holding no letter or digit are dropped.
    """
    data = page.get_text("dict", flags=_FLAGS, sort=True, textpage=textpage)
    blocks = [b for b in data["blocks"] if b.get("type", 0) == 0]
    items, d = ordered_lines(blocks)  # reading order: turned text, two text columns
    out: list[VLine] = []
    rows: list[list[dict[str, Any]]] = []  # dict-lines grouped by baseline band
    boxes: list[list[float]] = []  # each row's box in the reading frame
    pboxes: list[list[float]] = []  # … and in page space
    groups: list[int] = []
    for o in items:
        spans = [s for s in o.line["spans"] if s["text"].strip()]
        x0, y0, x1, y1 = o.box
        px0, py0, px1, py1 = o.line["bbox"]
        if boxes and groups[-1] == o.group:
            b = boxes[-1]
            overlap = min(b[3], y1) - max(b[1], y0)
            if overlap > 0.5 * min(b[3] - b[1], y1 - y0) and x0 >= b[2] - 1:
                rows[-1].extend(spans)
                boxes[-1] = [min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1)]
                p = pboxes[-1]
                pboxes[-1] = [min(p[0], px0), min(p[1], py0), max(p[2], px1), max(p[3], py1)]
                continue
        rows.append(list(spans))
        boxes.append([x0, y0, x1, y1])
        pboxes.append([px0, py0, px1, py1])
        groups.append(o.group)
    for spans, box, group in zip(rows, pboxes, groups, strict=True):
        spans.sort(key=lambda s: frame_box(s["bbox"], d)[0])
        objs = [_Span(expand_ligatures(s["text"]), *s["bbox"]) for s in spans]
        text = join_spans(objs if d == (1, 0) else [
            _Span(o.text, *frame_box((o.x0, o.y0, o.x1, o.y1), d)) for o in objs])
        sizes = [s["size"] for s in spans]
        out.append(
            VLine(
                text=text,
                bbox=(box[0], box[1], box[2], box[3]),
                size=max(sizes),
                min_size=min(sizes),
                bold=all(s["flags"] & _BOLD or "Bold" in s["font"] for s in spans),
                block=group,
                spans=objs,
            )
        )
    if textpage is not None:
        out = _clean_ocr_lines(out)
    for i, v in enumerate(out, start=1):
        v.number = i
    return out


def has_ruling_grid(page: pymupdf.Page) -> bool:
    """True when the page's vector drawings hold at least :data:`MIN_RULES` horizontal and
    :data:`MIN_RULES` vertical rules (lines or hairline rectangles longer than 10 pt)."""
    h = v = 0
    for path in page.get_cdrawings():
        for item in path["items"]:
            if item[0] == "l":
                (ax, ay), (bx, by) = item[1], item[2]
                if abs(ay - by) < 1 and abs(ax - bx) > 10:
                    h += 1
                elif abs(ax - bx) < 1 and abs(ay - by) > 10:
                    v += 1
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1]
                w, ht = abs(x1 - x0), abs(y1 - y0)
                if ht < 2 and w > 10:
                    h += 1
                elif w < 2 and ht > 10:
                    v += 1
                elif w > 10 and ht > 10 and path.get("type") == "s":
                    h += 2
                    v += 2
            if h >= MIN_RULES and v >= MIN_RULES:
                return True
    return False


@dataclass(slots=True)
class PageTable:
    """A ruled table found on a page: ``rows`` of cell texts, each row's ``bbox``."""

    bbox: tuple[float, float, float, float]
    rows: list[list[str]]
    row_boxes: list[tuple[float, float, float, float]]


def find_ruled_tables(page: pymupdf.Page, lines: list[VLine]) -> list[PageTable]:
    """Ruled tables of ``page`` (``find_tables(strategy="lines")``), cell text from ``lines``."""
    try:
        found = page.find_tables(strategy="lines", use_layout=False).tables
    except Exception:  # PyMuPDF's table finder fails on odd drawings: treat as no table
        return []
    tables: list[PageTable] = []
    for t in found:
        if t.row_count < 2 or t.col_count < 2:
            continue
        rows: list[list[str]] = []
        boxes: list[tuple[float, float, float, float]] = []
        for row in t.rows:
            cells: list[str] = []
            for cell in row.cells:
                if cell is None:
                    cells.append("")
                    continue
                cx0, cy0, cx1, cy1 = cell
                parts = []
                for v in lines:  # reading order; spans left to right within a line
                    if v.bbox[3] < cy0 or v.bbox[1] > cy1:
                        continue
                    inside = [
                        s
                        for s in v.spans
                        if cx0 <= (s.x0 + s.x1) / 2 <= cx1 and cy0 <= (s.y0 + s.y1) / 2 <= cy1
                    ]
                    if inside:
                        parts.append(join_spans(inside))
                cells.append(" ".join(parts))
            rows.append(cells)
            boxes.append(tuple(row.bbox))
        filled = sum(1 for r in rows for c in r if c)
        if filled < 2 or filled < TUNING.pdf.table_min_fill * t.row_count * t.col_count:
            continue  # mostly empty grid: prose under a few rules, not a table
        x0, y0, x1, y1 = t.bbox
        n_inside = sum(
            1
            for v in lines
            if x0 <= (v.bbox[0] + v.bbox[2]) / 2 <= x1 and y0 <= (v.bbox[1] + v.bbox[3]) / 2 <= y1
        )
        if n_inside > TUNING.pdf.table_max_lines_per_row * t.row_count:
            continue  # a few giant cells holding a whole unruled statement: keep the lines
        tables.append(PageTable(tuple(t.bbox), rows, boxes))
    return tables
