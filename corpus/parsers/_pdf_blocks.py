"""Blocks of a PDF's pages (``corpus.parsers.pdf``): per page, its visual lines less the running
headers and footers become paragraphs, headings (by font size, outline titles and numbering)
and ruled tables rendered as Markdown (a table continuing the previous page's is joined to it);
table-of-contents pages are skipped."""

from __future__ import annotations

from corpus.parsers._common import render_table
from corpus.parsers._pdf_page import PageTable, VLine, find_ruled_tables, has_ruling_grid
from corpus.parsers._pdf_structure import body_size, heading_level, is_toc_page
from corpus.parsers._pymupdf import pymupdf
from corpus.types import Block

__all__ = ["document_blocks"]


def document_blocks(pages: list[pymupdf.Page], lines: list[list[VLine]],
                    drop: set[tuple[int, int]], labels: dict[int, str], body: float,
                    size_levels: dict[float, int], toc_titles: dict[str, int]
                    ) -> tuple[list[Block], int]:
    """``(blocks, table-of-contents pages skipped)`` of the document's pages in reading order.

    :param lines: each page's visual lines (after OCR and the text-layer screen).
    :param drop: ``(page index, line number)`` of the running headers and footers.
    :param labels: physical page → printed label; ``body`` the body font size;
        ``size_levels`` a larger font size → heading level; ``toc_titles`` outline titles.
    """
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
        if is_toc_page(plines):
            toc_pages += 1
            prev_table_open = -1
            continue
        tables = find_ruled_tables(page, lines[pi]) if has_ruling_grid(page) else []
        # a page set wholly in a larger font (an exhibit appended to a 10-K) has no headings
        # merely for being larger than the document's body font
        page_body = max(body, body_size([plines]))
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
            level = heading_level(v, page_body, size_levels, toc_titles)
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
    return blocks, toc_pages


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


