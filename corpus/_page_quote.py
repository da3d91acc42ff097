"""Where a quote's characters sit among a PDF page's visual lines (``corpus.page_view``): the
characters of a line in the citations' normal form, the quote's span in the cited lines, a
table row found cell by cell around them, or the quote anywhere on the page."""

from __future__ import annotations

import unicodedata

from corpus.citations import normalise_ws
from corpus.parsers._pdf_page import _FLAGS, VLine
from corpus.parsers._pymupdf import pymupdf

__all__ = ["ROW_FOUND", "ROW_WINDOW", "Box", "line_chars", "on_page", "quote_key", "row_boxes",
           "span_in", "union"]

#: ``(x0, y0, x1, y1)`` in PDF points, origin top-left (PyMuPDF's page coordinates).
Box = tuple[float, float, float, float]


def quote_key(text: str) -> str:
    """The comparison form: ``normalise_ws`` without any whitespace or table pipe."""
    return "".join(ch for ch in normalise_ws(text) if not ch.isspace() and ch != "|")


def _char_key(ch: str) -> str:
    norm = unicodedata.normalize("NFKC", ch) if ord(ch) > 0x7F else ch
    return "".join(c for c in norm if not c.isspace() and c != "|")


def line_chars(page: pymupdf.Page, box: Box) -> list[tuple[str, Box]]:
    """``(key, box)`` of each character whose centre lies in ``box``, left to right."""
    x0, y0, x1, y1 = box
    found: list[tuple[float, str, Box]] = []
    raw = page.get_text("rawdict", flags=_FLAGS, clip=pymupdf.Rect(x0 - 1, y0 - 1, x1 + 1, y1 + 1))
    for block in raw.get("blocks", []):
        for line in block.get("lines", []):
            for span in line.get("spans", []):
                for ch in span.get("chars", []):
                    cb = ch["bbox"]
                    cx, cy = (cb[0] + cb[2]) / 2, (cb[1] + cb[3]) / 2
                    if x0 - 1 <= cx <= x1 + 1 and y0 - 1 <= cy <= y1 + 1:
                        key = _char_key(ch["c"])
                        if key:
                            found.append((cb[0], key, (cb[0], cb[1], cb[2], cb[3])))
    found.sort(key=lambda t: t[0])
    return [(k, b) for _, k, b in found]


def union(boxes: list[Box]) -> Box:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def span_in(text: str, quote: str, bounds: list[tuple[int, int]], *, head: bool,
             tail: bool) -> tuple[int, int] | None:
    """Where ``quote`` sits in ``text`` (the cited lines' characters, line ``i`` spanning
    ``bounds[i]``): whole, or (a quote running onto the next page, ``tail``) its longest prefix
    ending a line, or (continued from the previous page, ``head``) its longest suffix starting
    one — a page's footer or header line may follow or precede the quote's part."""
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    best: tuple[int, int] | None = None
    for start, end in bounds:
        for m in range(min(len(quote), end), 1, -1):
            if best is not None and m <= best[1] - best[0]:
                break
            if tail and text[:end].endswith(quote[:m]):
                best = (end - m, end)
            elif head and text[start:].startswith(quote[-m:]):
                best = (start, start + m)
    return best


#: Visual lines searched above and below the cited ones for the cells of a table row (below:
#: one more per cell, for pages that lay each cell out as a line of its own).
ROW_WINDOW = 2
#: Share of a table row's characters that must be found for its cells to be boxed.
ROW_FOUND = 0.8


def _free_find(text: str, sub: str, used: set[int]) -> int:
    """The first index of ``sub`` in ``text`` touching no index in ``used``; -1 when none."""
    at = text.find(sub)
    while at >= 0 and any(i in used for i in range(at, at + len(sub))):
        at = text.find(sub, at + 1)
    return at


def row_boxes(page: pymupdf.Page, vlines: list[VLine], first: int, last: int,
               quote: str) -> tuple[list[Box], list[int], float] | None:
    """A table row (``| a | b |``, as the chunker writes rows) that the page lays out over
    several visual lines — a cell wrapped onto a second line, a cell centred between two
    rows — so its characters are not one run: each cell is found piece by piece, the longest
    run of its remaining characters that one of ``vlines`` holds (unused), the line nearest to
    the cited ``first``..``last`` first. Returns one box per piece with its line number and the
    share of the row's characters found; ``None`` for a quote of fewer than two cells."""
    cells = [k for cell in quote.split("|") if (k := quote_key(cell))]
    if len(cells) < 2:
        return None
    texts: dict[int, tuple[str, list[Box]]] = {}
    for v in vlines:
        keys: list[str] = []
        where: list[Box] = []
        for k, b in line_chars(page, v.bbox):
            keys.extend(k)
            where.extend([b] * len(k))
        texts[v.number] = ("".join(keys), where)
    used: dict[int, set[int]] = {n: set() for n in texts}
    order = sorted(texts, key=lambda n: (0 if first <= n <= last
                                         else min(abs(n - first), abs(n - last)), n))
    boxes: list[Box] = []
    numbers: list[int] = []
    found = 0
    for rest in cells:
        while rest:
            best: tuple[int, int, int] | None = None  # (length, line, start)
            for n in order:
                for m in range(len(rest), 0, -1):
                    if best is not None and m <= best[0]:
                        break
                    at = _free_find(texts[n][0], rest[:m], used[n])
                    if at >= 0:
                        best = (m, n, at)
                        break
            if best is None or (best[0] < 2 and len(rest) > 1):
                rest = rest[1:]  # a character the page does not hold where the row is
                continue
            m, n, at = best
            used[n].update(range(at, at + m))
            boxes.append(union(texts[n][1][at:at + m]))
            numbers.append(n)
            found += m
            rest = rest[m:]
    return boxes, numbers, found / sum(map(len, cells))


def on_page(page: pymupdf.Page, vlines: list[VLine], qk: str, near: int
             ) -> tuple[list[tuple[int, Box]], tuple[int, int] | None]:
    """``(line number, char box)`` of every key character of ``vlines`` and the span of the
    occurrence of ``qk`` whose first line is nearest to line ``near`` (``None``: not there)."""
    keys: list[str] = []
    where: list[tuple[int, Box]] = []
    for v in vlines:
        for k, b in line_chars(page, v.bbox):
            keys.extend(k)
            where.extend([(v.number, b)] * len(k))
    text = "".join(keys)
    best: tuple[int, int] | None = None
    at = text.find(qk) if qk else -1
    while at >= 0:
        if best is None or abs(where[at][0] - near) < abs(where[best[0]][0] - near):
            best = (at, at + len(qk))
        at = text.find(qk, at + 1)
    return where, best
