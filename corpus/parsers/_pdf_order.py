"""Reading order of a PDF page's text lines (issue 17 item 2): rotation and text columns.

Input: the text blocks of PyMuPDF ``Page.get_text("dict", sort=True)``; output: their lines in
the order a reader reads them, each with its box in the *reading frame* and the paragraph group
it belongs to (:class:`OLine`).

- **Reading frame.** The page's text direction is the direction (one of the four axes) of most
  of its characters (PyMuPDF line ``dir``, in unrotated page space). Upright text keeps
  PyMuPDF's order and coordinates. Otherwise — a landscape table on a ``/Rotate 90`` page whose
  text is drawn turned, a sideways table on a portrait page — every box is turned so that the
  text runs left to right (``u`` along the text, ``v`` down the lines: text running up reads its
  lines left to right, text running down right to left) and the lines are sorted by block,
  then ``v``, then ``u`` in that frame: the order the reader sees after turning the page.
- **Columns.** A vertical gutter is looked for in the middle half of the text's width: the
  ``u`` interval crossed by the fewest lines (at most :data:`MAX_CROSS` of them, at least
  :data:`MIN_GUTTER` points wide). Lines crossing it (a title, a closing full-width line)
  split the page into bands; in a band where both sides read as *text columns* — each at least
  three lines, a quarter of the text width, half of its lines at least 3/4 of the side's
  width, 60 % of its characters letters, and the sides side by side (overlapping over half of
  the shorter's height) — all left lines come before all right lines, each side its own
  paragraph group. A financial table (narrow numeric columns, labels that do not fill their
  column) is not text columns: its rows keep their order. A page without such a band keeps
  PyMuPDF's order exactly.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Any

__all__ = ["MAX_CROSS", "MIN_GUTTER", "OLine", "frame_box", "ordered_lines", "text_direction"]

Box = tuple[float, float, float, float]
Dir = tuple[int, int]

MIN_GUTTER = 6.0  # points
MAX_CROSS = 0.3  # share of the page's lines that may cross a gutter (full-width lines)
_MIN_LINES = 8  # fewer lines on a page: no column search
_AXES: tuple[Dir, ...] = ((1, 0), (0, -1), (0, 1), (-1, 0))


@dataclass(slots=True)
class OLine:
    """One PyMuPDF dict line in reading order.

    :ivar group: paragraph group: lines of one group may join into one paragraph (PyMuPDF's
        block, split by column).
    :ivar line: the PyMuPDF dict line (``bbox``, ``dir``, ``spans`` in page space).
    :ivar box: the line's box in the reading frame, points.
    """

    group: int
    line: dict[str, Any]
    box: Box


def text_direction(blocks: list[dict[str, Any]]) -> Dir:
    """The axis along which most characters of ``blocks`` run: ``(1, 0)`` upright, ``(0, -1)``
    up the page, ``(0, 1)`` down, ``(-1, 0)`` upside down; ``(1, 0)`` when there is no text."""
    if all(line["dir"] == (1.0, 0.0) for b in blocks for line in b["lines"]):
        return (1, 0)  # the common case, decided without counting characters
    weight: dict[Dir, int] = {}
    for b in blocks:
        for line in b["lines"]:
            dx, dy = line["dir"]
            d = (round(dx), round(dy))
            if d in _AXES:
                n = sum(len(s["text"].strip()) for s in line["spans"])
                weight[d] = weight.get(d, 0) + n
    if not weight:
        return (1, 0)
    best = max(weight.values())
    return (1, 0) if weight.get((1, 0), 0) == best else max(weight, key=lambda k: weight[k])


def frame_box(bbox: Any, d: Dir) -> Box:
    """``bbox`` (page space) in the reading frame of direction ``d``: ``u = p·d``,
    ``v = p·(-dy, dx)``."""
    x0, y0, x1, y1 = bbox
    if d == (1, 0):
        return (x0, y0, x1, y1)
    dx, dy = d
    us = [x * dx + y * dy for x in (x0, x1) for y in (y0, y1)]
    vs = [-x * dy + y * dx for x in (x0, x1) for y in (y0, y1)]
    return (min(us), min(vs), max(us), max(vs))


def ordered_lines(blocks: list[dict[str, Any]]) -> tuple[list[OLine], Dir]:
    """The non-blank lines of ``blocks`` (text blocks, PyMuPDF order) in reading order, and the
    page's text direction (see the module docstring)."""
    d = text_direction(blocks)
    items: list[OLine] = []
    for bno, b in enumerate(blocks):
        for line in b["lines"]:
            if any(s["text"].strip() for s in line["spans"]):
                items.append(OLine(bno, line, frame_box(line["bbox"], d)))
    if d != (1, 0):
        top: dict[int, tuple[float, float]] = {}
        for o in items:
            top[o.group] = min(top.get(o.group, (o.box[1], o.box[0])), (o.box[1], o.box[0]))
        items.sort(key=lambda o: (top[o.group], o.box[1], o.box[0]))
    return _columns(items), d


def _gutter(spans: list[tuple[float, float]], lo: float, hi: float, max_cross: int) -> float | None:
    """Middle of the widest ``[lo, hi]`` interval crossed by the fewest ``spans`` (at most
    ``max_cross``, at least :data:`MIN_GUTTER` wide), or ``None``."""
    events = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    best: tuple[int, float, float] | None = None  # (count, -width, middle)
    cover, prev = 0, None
    for x, step in events:
        if prev is not None and x > prev:
            a, b = max(prev, lo), min(x, hi)
            if b - a >= MIN_GUTTER and cover <= max_cross:
                cand = (cover, -(b - a), (a + b) / 2)
                if best is None or cand < best:
                    best = cand
        cover += step
        prev = x
    return None if best is None else best[2]


def _text_column(col: list[OLine], width: float) -> bool:
    if len(col) < 3:
        return False
    x0 = min(o.box[0] for o in col)
    ext = max(o.box[2] for o in col) - x0
    if ext < 0.25 * width:
        return False
    if sum(o.box[2] - o.box[0] >= 0.75 * ext for o in col) < 0.5 * len(col):
        return False
    chars = [c for o in col for s in o.line["spans"] for c in s["text"] if not c.isspace()]
    return bool(chars) and sum(c.isalpha() for c in chars) >= 0.6 * len(chars)


def _side_by_side(left: list[OLine], right: list[OLine]) -> bool:
    la, lb = min(o.box[1] for o in left), max(o.box[3] for o in left)
    ra, rb = min(o.box[1] for o in right), max(o.box[3] for o in right)
    return min(lb, rb) - max(la, ra) > 0.5 * min(lb - la, rb - ra)


def _trailing(col: list[OLine], other_bottom: float) -> list[OLine]:
    """The last lines of ``col`` that start below ``other_bottom`` after a gap of more than
    1.5 line heights: a short full-width line under both columns, not part of this one."""
    heights = sorted(o.box[3] - o.box[1] for o in col)
    gap = 1.5 * heights[len(heights) // 2]
    for i in range(len(col) - 1, 0, -1):
        if col[i].box[1] <= other_bottom:
            return []
        if col[i].box[1] - col[i - 1].box[3] > gap:
            return col[i:]
    return []


def _columns(items: list[OLine]) -> list[OLine]:
    """``items`` with each band of two text columns read left column first (module docstring);
    unchanged when the page has none."""
    if len(items) < _MIN_LINES:
        return items
    x0 = min(o.box[0] for o in items)
    width = max(o.box[2] for o in items) - x0
    if width <= 0:
        return items
    # a line wider than 3/4 of the text crosses every gutter the middle half could hold
    if sum(o.box[2] - o.box[0] > 0.75 * width for o in items) > MAX_CROSS * len(items):
        return items
    g = _gutter([(o.box[0], o.box[2]) for o in items], x0 + 0.25 * width, x0 + 0.75 * width,
                int(MAX_CROSS * len(items)))
    if g is None:
        return items

    def mid(o: OLine) -> float:
        return (o.box[1] + o.box[3]) / 2

    cross = sorted(mid(o) for o in items if o.box[0] < g < o.box[2])
    bands: list[tuple[list[OLine], list[OLine], list[OLine]]] = [
        ([], [], []) for _ in range(len(cross) + 1)
    ]  # per band: left, right, crossing lines that close it
    for o in items:
        if o.box[0] < g < o.box[2]:
            bands[bisect_left(cross, mid(o))][2].append(o)
        else:
            bands[bisect_left(cross, mid(o))][0 if o.box[2] <= g else 1].append(o)
    split = [
        _text_column(left, width) and _text_column(right, width) and _side_by_side(left, right)
        for left, right, _ in bands
    ]
    if not any(split):
        return items
    rank = {id(o): i for i, o in enumerate(items)}
    leading: list[list[OLine]] = []
    for (left, right, closing), is_split in zip(bands, split, strict=True):
        lead: list[OLine] = []
        if is_split:
            # lines above the other column's first line open the band (the end of a paragraph
            # begun above it); a line under both columns after a gap closes it
            ltop, rtop = min(o.box[1] for o in left), min(o.box[1] for o in right)
            lead = sorted([o for o in left if o.box[3] <= rtop]
                          + [o for o in right if o.box[3] <= ltop], key=lambda o: rank[id(o)])
            left[:] = [o for o in left if o.box[3] > rtop]
            right[:] = [o for o in right if o.box[3] > ltop]
            tail = _trailing(left, max(o.box[3] for o in right)) if left and right else []
            del left[len(left) - len(tail):]
            closing[:0] = tail
        leading.append(lead)
    out: list[OLine] = []
    group = 0
    last: tuple[int, str] | None = None
    for (left, right, closing), is_split, lead in zip(bands, split, leading, strict=True):
        parts = ([(lead, ""), (left, "left"), (right, "right")] if is_split
                 else [(sorted(left + right, key=lambda o: rank[id(o)]), "")])
        for part, side in parts + [(closing, "")]:
            for o in part:  # a new paragraph group where PyMuPDF's block or the column changes
                if (o.group, side) != last:
                    group += 1
                    last = (o.group, side)
                out.append(OLine(group, o.line, o.box))
    return out
