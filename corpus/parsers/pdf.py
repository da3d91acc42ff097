"""PDF parser (PyMuPDF): blocks with 1-based physical pages, page labels, line numbers, boxes.

Pipeline per document:

1. open; ``needs_pass`` → ``password_protected`` (case 17); damaged → ``corrupt``. An
   owner-restricted PDF (opens without a password, copy/extract permission cleared) **is
   indexed**, with a warning recorded on the document: the permission bits are advisory and
   the organisation indexing its own documents is their owner's intended reader.
2. visual lines per page (:func:`corpus.parsers._pdf_page.page_lines`), ligatures expanded
   (case 04). Line ``n`` of a page is its n-th visible text line top to bottom, running
   header and footer included, so a person counting lines on the printed page agrees.
3. running headers/footers: a line among the first/last three of a page, in the top/bottom
   12 % of the page, whose text with digits masked repeats on at least two pages and 20 % of
   them (``第 1 页 / 共 2 页`` = ``第 2 页 / 共 2 页``); bare page numbers opening or closing a
   page. Both are dropped from the text (case 01).
4. table-of-contents pages (six or more lines ending in ascending small page numbers, at
   least 40 % of the page): kept out of the chunks; the outline comes from ``get_toc()`` or
   the headings.
5. ruled tables (pages with a ruling grid only, see ``_pdf_page``) → Markdown ``table`` blocks
   whose rows carry their own page and line; a table that opens a page and has the column
   count of the table closing the previous page continues it: its first row stays a data
   row, and a repeated header row is dropped (case 01).
6. headings: ``get_toc()`` titles found on their page; else lines whose font is ≥ 1.15× the
   body font (the character-weighted most common size), levels by size; plus numbered
   headings (``Section 2.3 …``, ``Item 7.``, ``第一章``) on a line of their own.
7. no text at all: ``needs_ocr`` when the pages hold images, else ``no_text``.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from corpus.errors import ParseError
from corpus.parsers._common import render_table, sha256_hex
from corpus.parsers._pdf_page import (
    PageTable,
    VLine,
    find_ruled_tables,
    has_ruling_grid,
    page_lines,
)
from corpus.parsers._pymupdf import pymupdf
from corpus.parsers.markdown import outline_from_blocks
from corpus.types import Block, OutlineEntry, ParsedDocument

__all__ = ["parse_pdf"]

_MARGIN = 0.12
_DIGITS = re.compile(r"\d+")
_PAGE_NO = re.compile(
    r"^\s*(?:[-–—]\s*)?(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:/|of)\s*\d{1,4})?"
    r"(?:\s*[-–—])?\s*$|^\s*第\s*\d{1,4}\s*页(?:\s*[/／]?\s*共\s*\d{1,4}\s*页)?\s*$",
    re.IGNORECASE,
)
_TOC_LINE = re.compile(r"^(?P<title>.*?\S)(?:\s*[.·…_]{2,}\s*|\s+)(?P<num>\d{1,3})$")
_NUMBERED = re.compile(
    r"^(?:(?P<word>section|chapter|part|item|article)\s+(?P<wn>[0-9ivx]+[a-z]?(?:\.\d+)*)\.?"
    r"|(?P<num>\d+(?:\.\d+)+)\.?(?=\s+[A-Z\u4e00-\u9fff])"
    r"|第[一二三四五六七八九十百零〇\d]+[章节篇部编])\s",
    re.IGNORECASE,
)
_SENT_END = re.compile(r"[.。;；,，:：]$")


def _open(path: Path, data: bytes) -> pymupdf.Document:
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError / RuntimeError variants
        raise ParseError("corrupt", f"{path}: not a readable PDF ({exc})") from exc
    if doc.needs_pass:
        doc.close()
        raise ParseError("password_protected", f"{path}: the PDF is password protected")
    if doc.page_count == 0:
        doc.close()
        raise ParseError("corrupt", f"{path}: the PDF has no pages")
    return doc


def _running_lines(
    pages: list[list[VLine]], heights: list[float], body: float, toc_titles: dict[str, int]
) -> set[tuple[int, int]]:
    """``(page_index, line_number)`` of running headers/footers and edge page numbers.

    Heading candidates (a title of the PDF outline, or a font ≥ 1.15x the body font) are never
    running headers: ``Chapter 1`` / ``Chapter 2`` atop their pages differ only in digits.
    """
    cands: list[tuple[int, VLine, str]] = []
    for pi, lines in enumerate(pages):
        h = heights[pi]
        edge = lines[:3] + lines[-3:] if len(lines) > 6 else lines
        for v in edge:
            if v.min_size >= body * 1.15 or _norm_title(v.text) in toc_titles:
                continue
            if v.bbox[3] <= h * _MARGIN or v.bbox[1] >= h * (1 - _MARGIN):
                cands.append((pi, v, _DIGITS.sub("#", " ".join(v.text.lower().split()))))
    pages_with: dict[str, set[int]] = {}
    for pi, _v, key in cands:
        pages_with.setdefault(key, set()).add(pi)
    need = max(2, int(0.2 * len(pages)))
    drop = {(pi, v.number) for pi, v, key in cands if len(pages_with[key]) >= need}
    for pi, lines in enumerate(pages):
        for v in lines[:1] + lines[-2:]:
            if _PAGE_NO.match(v.text):
                drop.add((pi, v.number))
    return drop


def _is_toc_page(lines: list[VLine]) -> bool:
    nums: list[int] = []
    for v in lines:
        m = _TOC_LINE.match(v.text)
        if m and "$" not in v.text and "%" not in v.text and re.search(r"[^\W\d]", m["title"]):
            nums.append(int(m["num"]))
    if len(nums) < 6 or len(nums) < 0.4 * len(lines):
        return False
    ups = sum(b >= a for a, b in zip(nums, nums[1:], strict=False))
    return ups >= 0.8 * (len(nums) - 1)


def _body_size(pages: list[list[VLine]]) -> float:
    weights: Counter[float] = Counter()
    for lines in pages:
        for v in lines:
            weights[round(v.min_size, 1)] += len(v.text)
    return weights.most_common(1)[0][0] if weights else 10.0


def _norm_title(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _heading_level(
    v: VLine, body: float, size_levels: dict[float, int], toc_titles: dict[str, int]
) -> int:
    if toc_titles:
        key = _norm_title(v.text)
        if key and key in toc_titles:
            return toc_titles[key]
    if len(v.text) > 150 or not re.search(r"[^\W\d_]", v.text):
        return 0
    if v.min_size >= body * 1.15 and not toc_titles:
        return size_levels.get(round(v.size, 1), 3)
    m = _NUMBERED.match(v.text + " ")
    if m and len(v.text) <= 90 and not _SENT_END.search(v.text):
        return min((m["num"] or m["wn"] or "").count(".") + 1, 6)
    return 0


def _table_rows(
    table: PageTable, lines: list[VLine], page: int
) -> tuple[list[list[str]], list[tuple[int, int]]]:
    """The table's rows and, for each, ``(page, line)`` of the first visual line inside it."""
    pos: list[tuple[int, int]] = []
    last = 1
    for x0, y0, x1, y1 in table.row_boxes:
        inside = [
            v.number
            for v in lines
            if y0 - 1 <= (v.bbox[1] + v.bbox[3]) / 2 <= y1 + 1 and v.bbox[0] < x1 and v.bbox[2] > x0
        ]
        last = min(inside) if inside else last
        pos.append((page, last))
    return table.rows, pos


def _in_table(v: VLine, tables: list[PageTable]) -> int:
    cx, cy = (v.bbox[0] + v.bbox[2]) / 2, (v.bbox[1] + v.bbox[3]) / 2
    for i, t in enumerate(tables):
        x0, y0, x1, y1 = t.bbox
        if x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1:
            return i
    return -1


def _text_block(run: list[VLine], page: int, label: str) -> Block:
    lmap, parts, off = [], [], 0
    for v in run:
        lmap.append((off, page, v.number))
        parts.append(v.text)
        off += len(v.text) + 1
    x0 = min(v.bbox[0] for v in run)
    y0 = min(v.bbox[1] for v in run)
    x1 = max(v.bbox[2] for v in run)
    y1 = max(v.bbox[3] for v in run)
    return Block(
        kind="text",
        text="\n".join(parts),
        page=page,
        page_end=page,
        line_start=run[0].number,
        line_end=run[-1].number,
        bbox=(x0, y0, x1, y1),
        page_label=label,
        line_map=tuple(lmap),
    )


def _flush(run: list[VLine], blocks: list[Block], page: int, label: str) -> None:
    """Append the pending paragraph ``run`` (if any) to ``blocks`` and empty it."""
    if run:
        blocks.append(_text_block(list(run), page, label))
        run.clear()


def parse_pdf(path: Path, data: bytes) -> ParsedDocument:
    """Parse a PDF (see the module docstring for every rule).

    :raises ParseError: ``corrupt``, ``password_protected``, ``needs_ocr``, ``no_text``.
    """
    doc = _open(path, data)
    try:
        return _parse(path, data, doc)
    finally:
        doc.close()


def _parse(path: Path, data: bytes, doc: pymupdf.Document) -> ParsedDocument:
    warnings: list[str] = []
    perms = doc.permissions
    if doc.is_encrypted or not perms & pymupdf.PDF_PERM_COPY:
        if not perms & pymupdf.PDF_PERM_COPY:
            warnings.append(
                "owner-restricted PDF: its permissions forbid copying/extraction; indexed "
                "anyway (policy: the permission bits are advisory for the document's owner)"
            )
    pages = [doc[i] for i in range(doc.page_count)]
    lines = [page_lines(p) for p in pages]
    heights = [p.rect.height for p in pages]
    labels: dict[int, str] = {}
    if doc.get_page_labels():
        labels = {i + 1: p.get_label() for i, p in enumerate(pages) if p.get_label()}
    if not any(lines):
        if any(p.get_images(full=False) for p in pages):
            raise ParseError(
                "needs_ocr", f"{path}: no text layer on any of {len(pages)} page(s): OCR is needed"
            )
        raise ParseError("no_text", f"{path}: the PDF holds no extractable text")
    no_text = [i + 1 for i, ls in enumerate(lines) if not ls and pages[i].get_images(full=False)]
    if no_text:
        warnings.append(f"{len(no_text)} page(s) without a text layer (OCR needed): {no_text[:20]}")

    body = _body_size(lines)
    toc = doc.get_toc(simple=True)
    toc_titles: dict[str, int] = {}
    for level, title, _pg in toc:
        toc_titles.setdefault(_norm_title(title), min(max(level, 1), 6))
    toc_titles.pop("", None)
    drop = _running_lines(lines, heights, body, toc_titles)
    big = sorted(
        {round(v.size, 1) for ls in lines for v in ls if v.min_size >= body * 1.15}, reverse=True
    )
    size_levels = {sz: min(i + 1, 6) for i, sz in enumerate(big)}

    blocks: list[Block] = []
    table_src: dict[int, tuple[list[list[str]], list[tuple[int, int]]]] = {}
    prev_table_open = -1  # index in blocks of a table that closed the previous page
    toc_pages = 0
    for pi, page in enumerate(pages):
        pno = pi + 1
        label = labels.get(pno, "")
        plines = [v for v in lines[pi] if (pi, v.number) not in drop]
        if not plines:
            prev_table_open = -1
            continue
        if _is_toc_page(plines):
            toc_pages += 1
            prev_table_open = -1
            continue
        tables = find_ruled_tables(page, lines[pi]) if has_ruling_grid(page) else []
        emitted: set[int] = set()
        run: list[VLine] = []
        first_on_page = True
        last_was_table = False

        for v in plines:
            ti = _in_table(v, tables) if tables else -1
            if ti >= 0:
                if ti in emitted:
                    continue
                _flush(run, blocks, pno, label)
                emitted.add(ti)
                rows, pos = _table_rows(tables[ti], lines[pi], pno)
                cont = first_on_page and prev_table_open >= 0
                if cont and len(rows[0]) == len(table_src[prev_table_open][0][0]):
                    prows, ppos = table_src[prev_table_open]
                    if [c.lower() for c in rows[0]] == [c.lower() for c in prows[0]]:
                        rows, pos = rows[1:], pos[1:]
                    rows, pos = prows + rows, ppos + pos
                    blocks.pop(prev_table_open)
                block = render_table(rows, pos, page_label=label)
                if block is not None:
                    table_src[len(blocks)] = (rows, pos)
                    blocks.append(block)
                first_on_page = False
                last_was_table = True
                continue
            first_on_page = False
            last_was_table = False
            level = _heading_level(v, body, size_levels, toc_titles)
            if level:
                _flush(run, blocks, pno, label)
                blocks.append(
                    Block(
                        "heading",
                        v.text,
                        pno,
                        v.number,
                        v.number,
                        pno,
                        level,
                        v.bbox,
                        label,
                        ((0, pno, v.number),),
                    )
                )
                continue
            if run and run[-1].block != v.block:
                _flush(run, blocks, pno, label)
            run.append(v)
        _flush(run, blocks, pno, label)
        prev_table_open = len(blocks) - 1 if last_was_table else -1
    if toc_pages:
        warnings.append(f"{toc_pages} table-of-contents page(s) kept out of the chunks")
    if not blocks:
        raise ParseError("no_text", f"{path}: the PDF holds no text besides page furniture")

    meta_title = ((doc.metadata or {}).get("title") or "").strip()
    first_heading = next((b.text for b in blocks if b.kind == "heading"), "")
    if toc:
        outline, stack = [], []
        for level, title, pg in toc:
            stack = stack[: max(level, 1) - 1] + [title.strip()]
            outline.append(OutlineEntry(title.strip(), level, max(pg, 1), tuple(stack)))
    else:
        outline = outline_from_blocks(blocks)
    return ParsedDocument(
        path=str(path),
        doc_id=sha256_hex(data),
        title=meta_title or first_heading or path.stem,
        media_type="pdf",
        page_count=len(pages),
        blocks=blocks,
        outline=outline,
        warnings=warnings,
        page_labels=labels,
    )
