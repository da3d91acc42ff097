"""Text units of the chunker (``corpus.chunker``): junk lines, the document text and its line
map, spans split at the best boundary under ``max_chars``, table row groups that repeat their
header, and the sliding window of document text the chunker reads through."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from corpus.types import Block, LineSpan, ParsedDocument

__all__ = ["SEP", "Unit", "Window", "block_units", "document_text", "is_junk_line"]

SEP = "\n\n"
_SENT_RE = re.compile(r"[。！？；][”’」』）)]*|[.!?;][\"'”’)\]]*(?=\s)")
_ROMAN = r"(?=[ivxlc])(?:l?x{0,3})(?:ix|iv|v?i{0,3})"
_JUNK_RE = re.compile(
    "|".join(
        (
            rf"[-–—\s]*(?:page\s*)?(?:\d{{1,5}}|{_ROMAN})(?:\s*(?:of|/)\s*\d{{1,5}})?[-–—\s]*",
            r"第\s*\d{1,5}\s*页(?:\s*[/／]?\s*共\s*\d{1,5}\s*页)?",
            r".{0,120}?(?:\.{4,}|…{2,}|·{4,})\s*(?:\d{1,5}|" + _ROMAN + ")",
            r"</?[a-z][^>]*>",
            r"[\W_]*",
        )
    ),
    re.IGNORECASE,
)


def is_junk_line(text: str) -> bool:
    """True for lines that carry no content: page numbers, TOC leader lines, bare tags, rules."""
    return len(text) < 200 and bool(_JUNK_RE.fullmatch(text.strip()))


def document_text(doc: ParsedDocument) -> tuple[str, list[int]]:
    """The document's extracted text (blocks joined by a blank line) and each block's offset."""
    offsets, pos = [], 0
    for b in doc.blocks:
        offsets.append(pos)
        pos += len(b.text) + len(SEP)
    return SEP.join(b.text for b in doc.blocks), offsets


def _line_map(blocks: list[Block], offsets: list[int]) -> list[LineSpan]:
    out: list[LineSpan] = []
    for b, base in zip(blocks, offsets, strict=True):
        if b.line_map:
            out.extend((base + o, p, ln) for o, p, ln in b.line_map)
            continue
        off = 0
        for i, line in enumerate(b.text.split("\n")):
            out.append((base + off, b.page, b.line_start + i))
            off += len(line) + 1
    return out


@dataclass(slots=True)
class Unit:
    start: int
    end: int
    kind: str  # heading | text | table
    prefix: str = ""
    prefix_map: tuple[LineSpan, ...] = ()

    @property
    def size(self) -> int:
        return self.end - self.start + (len(self.prefix) + 1 if self.prefix else 0)


def _split_spans(text: str, s: int, e: int, max_chars: int) -> list[tuple[int, int]]:
    """Split ``text[s:e]`` into spans of at most ``max_chars`` at the best available boundary."""
    if e - s <= max_chars:
        return [(s, e)] if text[s:e].strip() else []
    piece = text[s:e]
    finders: tuple[Callable[[], list[int]], ...] = (
        lambda: [m.end() for m in re.finditer(r"\n\s*\n", piece)],
        lambda: [m.end() for m in _SENT_RE.finditer(piece)],
        lambda: [m.end() for m in re.finditer(r"\n", piece)],
    )
    for finder in finders:
        cuts = [c for c in finder() if 0 < c < len(piece)]
        if cuts:
            out: list[tuple[int, int]] = []
            prev = 0
            for c in [*cuts, len(piece)]:
                a, b = s + prev, s + c
                while a < b and text[a].isspace():
                    a += 1
                while b > a and text[b - 1].isspace():
                    b -= 1
                if b > a:
                    out.extend(
                        _split_spans(text, a, b, max_chars) if b - a > max_chars else [(a, b)]
                    )
                prev = c
            return out
    # no boundary at all (one huge line): cut at the last space of each window, iteratively
    # (recursion here overflowed the stack on a 2 MB line and copied the tail at every step)
    out = []
    while e - s > max_chars:
        cut = text.rfind(" ", s + max_chars // 2, s + max_chars)
        cut = cut if cut > s else s + max_chars
        if text[s:cut].strip():
            out.append((s, cut))
        s = cut
        while s < e and text[s].isspace():
            s += 1
    if s < e and text[s:e].strip():
        out.append((s, e))
    return out


def _table_units(
    text: str, s: int, e: int, lmap: list[LineSpan], keys: list[int], target: int, max_chars: int
) -> list[Unit]:
    if e - s <= max_chars:
        return [Unit(s, e, "table")]
    lines, pos = [], s
    for line in text[s:e].split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    if len(lines) < 3:
        return [Unit(a, b, "table") for a, b in _split_spans(text, s, e, max_chars)]
    head_end = lines[1][1]
    header = text[s:head_end]
    if len(header) > max_chars // 2:  # a header this long cannot be repeated: split by lines
        return [Unit(a, b, "table") for a, b in _split_spans(text, s, e, max_chars)]
    hmap = tuple(
        (o - s, p, ln)
        for o, p, ln in lmap[bisect_right(keys, s) - 1 : bisect_right(keys, head_end)]
    )
    units: list[Unit] = []
    g_start, g_end = s, head_end
    for a, b in lines[2:]:
        size = (g_end - g_start) + (len(header) + 1 if units else 0)
        if g_end > head_end and g_start != a and size + (b - a) + 1 > target:
            units.append(Unit(g_start, g_end, "table", *((header, hmap) if units else ("", ()))))
            g_start = a
        g_end = b
    units.append(Unit(g_start, g_end, "table", *((header, hmap) if units else ("", ()))))
    return units


class Window:
    """The document text from ``base`` on, with its line map, addressed by offsets into the whole
    document text (:func:`document_text`): ``window[a:b]``, ``window[i]`` and :meth:`rfind`
    behave as on that text for every offset not yet trimmed. Blocks are appended as they come
    and :meth:`trim` drops what no pending chunk needs, so memory holds a few chunks, not the
    document."""

    __slots__ = ("base", "buf", "keys", "lmap", "started")

    def __init__(self) -> None:
        self.buf, self.base, self.started = "", 0, False
        self.lmap: list[LineSpan] = []
        self.keys: list[int] = []

    def __getitem__(self, k: int | slice) -> str:
        if isinstance(k, slice):
            a, b = k.start, k.stop
            return self.buf[(a - self.base if a is not None else None):
                            (b - self.base if b is not None else None)]
        return self.buf[k - self.base]

    def rfind(self, sub: str, a: int, b: int) -> int:
        i = self.buf.rfind(sub, a - self.base, b - self.base)
        return i + self.base if i >= 0 else -1

    def add(self, block: Block, at: int) -> None:
        """Append ``block`` whose text starts at document offset ``at``."""
        self.buf += (SEP + block.text) if self.started else block.text
        self.started = True
        spans = _line_map([block], [at])
        self.lmap.extend(spans)
        self.keys.extend(e[0] for e in spans)

    def trim(self, upto: int) -> None:
        """Forget the text before ``upto`` and the line-map entries before the one covering it
        (amortised: only once 64 KiB can go)."""
        if upto - self.base < 1 << 16:
            return
        self.buf, self.base = self.buf[upto - self.base:], upto
        i = max(bisect_right(self.keys, upto) - 1, 0)
        del self.lmap[:i], self.keys[:i]


def block_units(b: Block, base: int, win: Window, min_chars: int, max_chars: int,
                 target: int) -> list[Unit]:
    """The units of one non-heading block at document offset ``base`` ([] for junk)."""
    s, e = base, base + len(b.text)
    text = win  # offsets are the whole document's
    if b.kind == "table":
        return _table_units(text, s, e, win.lmap, win.keys, target, max_chars)  # type: ignore[arg-type]
    if len(b.text) < min_chars and all(is_junk_line(x) for x in b.text.split("\n")):
        return []
    return [Unit(a, z, "text") for a, z in _split_spans(text, s, e, max_chars)]  # type: ignore[arg-type]

