"""The whole-document chunker as it was at commit 033691d, kept unchanged as the reference the
streaming chunker (``corpus.chunker.iter_chunks``) is tested against (tests/corpus/test_chunk_stream.py).

Original module docstring:

Structure-following chunker: a ``ParsedDocument`` becomes a list of ``Chunk`` s.

Rules (issue 2 item 4, cases 09 and 14):

- A chunk never spans two heading sections and never two documents. The headings that open
  a section are the first lines of its first chunk; a heading with no body of its own (a
  chapter title directly followed by a sub-heading) is carried into the next section's chunk.
- Text is packed up to ``target_chars`` and never beyond ``max_chars``; a block longer than
  ``max_chars`` is split at blank lines, then sentence ends (``。！？；`` and ``. ! ? ;``
  followed by a space), then line breaks, then (last resort) at a space near ``max_chars``.
- A table is never separated from its header: a table longer than ``max_chars`` is split
  between rows into groups of about ``target_chars``, and every group after the first starts
  with the repeated header row and ``|---|`` row. A table starts its own chunk (a short lead-in
  sentence before it may stay).
- Fragments shorter than ``min_chars`` (a trailing sentence, a note under a table) are merged
  into a neighbouring chunk of the same section; junk (bare page numbers, ``Page 3 of 9``,
  table-of-contents leader lines) is dropped. A whole section shorter than ``min_chars`` stays
  a chunk of its own when it holds real words (case 14's "备注 Notes" section is 76
  characters and is cited by its heading).

Offsets: the document's extracted text is its blocks joined by ``"\\n\\n"``
(:func:`document_text`); ``char_start``/``char_end`` index into it. A chunk's text is the exact
slice ``text[char_start:char_end]``, except that a repeated table header is prepended to a
continued row group (the header then appears before ``char_start``). ``line_map`` maps every
source line start in the chunk text to its physical page and line, header included, so
:func:`corpus.citations.make_citation` can locate any quote.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from corpus.types import Block, Chunk, LineSpan, ParsedDocument

__all__ = ["chunk_document", "document_text", "is_junk_line"]

_SEP = "\n\n"
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
        pos += len(b.text) + len(_SEP)
    return _SEP.join(b.text for b in doc.blocks), offsets


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
class _Unit:
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
) -> list[_Unit]:
    if e - s <= max_chars:
        return [_Unit(s, e, "table")]
    lines, pos = [], s
    for line in text[s:e].split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    if len(lines) < 3:
        return [_Unit(a, b, "table") for a, b in _split_spans(text, s, e, max_chars)]
    head_end = lines[1][1]
    header = text[s:head_end]
    if len(header) > max_chars // 2:  # a header this long cannot be repeated: split by lines
        return [_Unit(a, b, "table") for a, b in _split_spans(text, s, e, max_chars)]
    hmap = tuple(
        (o - s, p, ln)
        for o, p, ln in lmap[bisect_right(keys, s) - 1 : bisect_right(keys, head_end)]
    )
    units: list[_Unit] = []
    g_start, g_end = s, head_end
    for a, b in lines[2:]:
        size = (g_end - g_start) + (len(header) + 1 if units else 0)
        if g_end > head_end and g_start != a and size + (b - a) + 1 > target:
            units.append(_Unit(g_start, g_end, "table", *((header, hmap) if units else ("", ()))))
            g_start = a
        g_end = b
    units.append(_Unit(g_start, g_end, "table", *((header, hmap) if units else ("", ()))))
    return units


@dataclass(slots=True)
class _Section:
    path: tuple[str, ...]
    units: list[_Unit]
    has_body: bool = False


def _sections(
    doc: ParsedDocument,
    text: str,
    offsets: list[int],
    lmap: list[LineSpan],
    keys: list[int],
    min_chars: int,
    max_chars: int,
    target: int,
) -> list[_Section]:
    sections: list[_Section] = [_Section((), [])]
    stack: list[tuple[int, str]] = []
    for b, base in zip(doc.blocks, offsets, strict=True):
        s, e = base, base + len(b.text)
        if b.kind == "heading":
            while stack and stack[-1][0] >= max(b.level, 1):
                stack.pop()
            stack.append((max(b.level, 1), " ".join(b.text.split())))
            path = tuple(t for _, t in stack)
            cur = sections[-1]
            if cur.has_body or not cur.units:
                sections.append(_Section(path, [_Unit(s, e, "heading")]))
            else:  # heading-only section: carry its heading into this one
                cur.path = path
                cur.units.append(_Unit(s, e, "heading"))
            continue
        if b.kind == "table":
            new = _table_units(text, s, e, lmap, keys, target, max_chars)
        else:
            if len(b.text) < min_chars and all(is_junk_line(x) for x in b.text.split("\n")):
                continue
            new = [_Unit(a, z, "text") for a, z in _split_spans(text, s, e, max_chars)]
        if new:
            sections[-1].units.extend(new)
            sections[-1].has_body = True
    return [sec for sec in sections if sec.units]


def _size(units: list[_Unit]) -> int:
    return sum(u.size for u in units) + 2 * (len(units) - 1)


def _pack(sec: _Section, min_chars: int, max_chars: int, target: int) -> list[list[_Unit]]:
    groups: list[list[_Unit]] = []
    cur: list[_Unit] = []
    size = 0
    body = 0  # characters of non-heading units in cur
    for u in sec.units:
        if not cur:
            pass
        elif u.kind == "table":
            if not (body < 2 * min_chars and size + u.size + 2 <= max_chars):
                groups.append(cur)
                cur, size, body = [], 0, 0
        elif u.kind == "heading":
            if size + u.size + 2 > max_chars:  # a run of headings (mis-detected body text)
                groups.append(cur)
                cur, size, body = [], 0, 0
        elif cur[-1].kind == "table" or size >= target or size + u.size + 2 > max_chars:
            groups.append(cur)
            cur, size, body = [], 0, 0
        cur.append(u)
        size += u.size + (2 if len(cur) > 1 else 0)
        if u.kind != "heading":
            body += u.size
    if cur:
        groups.append(cur)
    # merge fragments shorter than min_chars into a neighbour of the same section (a small
    # overflow of max_chars, up to min_chars, is accepted rather than leaving a fragment)
    merged: list[list[_Unit]] = []
    for g in groups:
        if merged:
            p = merged[-1]
            small = _size(p) < min_chars or _size(g) < min_chars
            fits = _size(p) + _size(g) + 2 <= max_chars + min_chars
            if fits and (small or all(u.kind == "heading" for u in p)):
                p.extend(g)
                continue
        merged.append(g)
    return merged


def _assemble(
    units: list[_Unit], text: str, lmap: list[LineSpan], keys: list[int]
) -> tuple[str, tuple[LineSpan, ...], list[LineSpan]]:
    """Chunk text, its line map, and the line-map entries of its own (non-prefix) content."""
    parts: list[str] = []
    out_map: list[LineSpan] = []
    pos = 0
    own: list[LineSpan] = []
    prev_end = -1
    for u in units:
        if parts:
            gap = text[prev_end : u.start]
            sep = gap if gap and not gap.strip() and not u.prefix else "\n\n"
            parts.append(sep)
            pos += len(sep)
        if u.prefix:
            out_map.extend((pos + o, p, ln) for o, p, ln in u.prefix_map)
            parts.append(u.prefix + "\n")
            pos += len(u.prefix) + 1
        i = max(bisect_right(keys, u.start) - 1, 0)
        first = True
        while i < len(lmap) and lmap[i][0] < u.end:
            o, p, ln = lmap[i]
            entry = (pos + max(o - u.start, 0), p, ln)
            if first or o > u.start:
                if first and out_map and out_map[-1][0] == entry[0]:
                    out_map.pop()
                out_map.append(entry)
                own.append(entry)
            first = False
            i += 1
        parts.append(text[u.start : u.end])
        pos += u.end - u.start
        prev_end = u.end
    return "".join(parts), tuple(out_map), own


def chunk_document(
    doc: ParsedDocument,
    *,
    rel_path: str,
    min_chars: int = 80,
    max_chars: int = 1500,
    target_chars: int = 1000,
) -> list[Chunk]:
    """Split a parsed document into structure-following chunks (see the module docstring).

    :param doc: parser output.
    :param rel_path: the document path stored in every chunk (relative to the ingest root).
    :param min_chars: fragments shorter than this are merged or dropped (default 80).
    :param max_chars: hard upper bound of a chunk's text, except a single table row or repeated
        header longer than it (default 1500).
    :param target_chars: soft size at which a chunk is closed (default 1000).
    :returns: chunks in document order, ``ordinal`` 0..n-1, ``prev_id``/``next_id`` linked,
        ``chunk_id = f"{doc_id[:16]}-{ordinal:05d}"`` (stable for the same bytes).
    :raises ValueError: when the sizes are inconsistent (need ``0 < min <= target <= max``).
    """
    if not 0 < min_chars <= target_chars <= max_chars:
        raise ValueError(
            f"need 0 < min_chars <= target_chars <= max_chars, got "
            f"{min_chars}, {target_chars}, {max_chars}"
        )
    text, offsets = document_text(doc)
    lmap = _line_map(doc.blocks, offsets)
    keys = [e[0] for e in lmap]
    raw: list[tuple[tuple[str, ...], list[_Unit]]] = []
    for sec in _sections(doc, text, offsets, lmap, keys, min_chars, max_chars, target_chars):
        raw.extend((sec.path, g) for g in _pack(sec, min_chars, max_chars, target_chars))
    # a heading-only group (a heading at the very end) joins the previous chunk
    groups: list[tuple[tuple[str, ...], list[_Unit]]] = []
    for path, g in raw:
        if (
            groups
            and all(u.kind == "heading" for u in g)
            and _size(groups[-1][1]) + _size(g) + 2 <= max_chars + min_chars
        ):
            groups[-1][1].extend(g)
            continue
        groups.append((path, g))
    prefix = doc.doc_id[:16]
    chunks: list[Chunk] = []
    n = len(groups)
    for ordinal, (path, g) in enumerate(groups):
        ctext, cmap, own = _assemble(g, text, lmap, keys)
        first, last = own[0], own[-1]
        table_chars = sum(u.size for u in g if u.kind == "table")
        chunks.append(
            Chunk(
                chunk_id=f"{prefix}-{ordinal:05d}",
                doc_id=doc.doc_id,
                path=rel_path,
                title=doc.title,
                section_path=path,
                page_start=first[1],
                page_end=max(last[1], first[1]),
                line_start=first[2],
                line_end=last[2],
                char_start=g[0].start,
                char_end=g[-1].end,
                text=ctext,
                kind="table" if table_chars * 2 >= len(ctext) else "text",
                prev_id=f"{prefix}-{ordinal - 1:05d}" if ordinal else None,
                next_id=f"{prefix}-{ordinal + 1:05d}" if ordinal + 1 < n else None,
                ordinal=ordinal,
                page_label=doc.page_labels.get(first[1], ""),
                line_map=cmap,
                page_labels=tuple(doc.page_labels.get(p, "") for p in
                                  range(first[1], max(last[1], first[1]) + 1))
                if doc.page_labels else (),
                page_warning=_page_warning(doc, first[1], max(last[1], first[1])),
            )
        )
    return chunks


def _page_warning(doc: ParsedDocument, first: int, last: int) -> str:
    """The chunk's page warning (``Chunk.page_warning``): ``mixed_scan`` before ``ocr``."""
    got = {doc.page_warnings.get(p, "") for p in range(first, last + 1)} if doc.page_warnings \
        else set()
    return next((w for w in ("mixed_scan", "ocr") if w in got), "")
