"""Packing of the chunker's units into chunks (``corpus.chunker``): one section's units grouped
greedily up to the target size, small fragments merged into a neighbour, heading-only sections
carried into the next, and a group's text assembled with its line map."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator

from corpus._chunk_spans import SEP, Unit, Window, block_units
from corpus.types import Block, LineSpan

__all__ = ["assemble", "section_groups"]


def _size(units: list[Unit]) -> int:
    return sum(u.size for u in units) + 2 * (len(units) - 1)


class _Packer:
    """Packs one section's units into chunk groups as they come (greedy up to ``target``, never
    beyond ``max_chars``), then merges fragments shorter than ``min_chars`` into a neighbour of
    the same section (a small overflow of ``max_chars``, up to ``min_chars``, is accepted rather
    than leaving a fragment). :meth:`feed` and :meth:`finish` return the groups that are final."""

    def __init__(self, min_chars: int, max_chars: int, target: int) -> None:
        self.min, self.max, self.target = min_chars, max_chars, target
        self.cur: list[Unit] = []
        self.size = self.body = 0  # body: characters of non-heading units in cur
        self.pending: list[Unit] | None = None  # the last merged group, may still grow

    def feed(self, u: Unit) -> list[list[Unit]]:
        out: list[list[Unit]] = []
        cur, size = self.cur, self.size
        if not cur:
            pass
        elif u.kind == "table":
            if not (self.body < 2 * self.min and size + u.size + 2 <= self.max):
                out = self._close()
        elif u.kind == "heading":
            if size + u.size + 2 > self.max:  # a run of headings (mis-detected body text)
                out = self._close()
        elif cur[-1].kind == "table" or size >= self.target or size + u.size + 2 > self.max:
            out = self._close()
        self.cur.append(u)
        self.size += u.size + (2 if len(self.cur) > 1 else 0)
        if u.kind != "heading":
            self.body += u.size
        return out

    def finish(self) -> list[list[Unit]]:
        out = self._close() if self.cur else []
        if self.pending is not None:
            out.append(self.pending)
            self.pending = None
        return out

    def _close(self) -> list[list[Unit]]:
        g, self.cur, self.size, self.body = self.cur, [], 0, 0
        p = self.pending
        if p is not None:
            small = _size(p) < self.min or _size(g) < self.min
            fits = _size(p) + _size(g) + 2 <= self.max + self.min
            if fits and (small or all(u.kind == "heading" for u in p)):
                p.extend(g)
                return []
        self.pending = g
        return [p] if p is not None else []


def section_groups(
    blocks: Iterable[Block], win: Window, min_chars: int, max_chars: int, target: int
) -> Iterator[tuple[tuple[str, ...], list[Unit]]]:
    """``(section path, units)`` of every chunk in document order, as the blocks come.

    A chunk never spans two heading sections; a heading with no body of its own is carried into
    the next section (its path becomes that section's); a heading-only group (a heading at the
    very end) joins the previous chunk. A section's groups are packed only once its path is
    final (its first body unit)."""
    stack: list[tuple[int, str]] = []
    path: tuple[str, ...] = ()
    held: list[Unit] = []  # the section's units while it has no body (headings only)
    has_body = False
    packer = _Packer(min_chars, max_chars, target)
    last: tuple[tuple[str, ...], list[Unit]] | None = None  # may still take a heading group

    def out(groups: list[list[Unit]]) -> Iterator[tuple[tuple[str, ...], list[Unit]]]:
        nonlocal last
        for g in groups:
            if (last is not None and all(u.kind == "heading" for u in g)
                    and _size(last[1]) + _size(g) + 2 <= max_chars + min_chars):
                last[1].extend(g)
                continue
            if last is not None:
                yield last
            last = (path, g)

    pos = 0
    for b in blocks:
        base = pos
        pos += len(b.text) + len(SEP)
        win.add(b, base)
        if b.kind == "heading":
            while stack and stack[-1][0] >= max(b.level, 1):
                stack.pop()
            stack.append((max(b.level, 1), " ".join(b.text.split())))
            unit = Unit(base, base + len(b.text), "heading")
            if has_body or not held:  # a new section
                if has_body:
                    yield from out(packer.finish())
                has_body, held = False, [unit]
            else:  # heading-only section: carry its heading into this one
                held.append(unit)
            path = tuple(t for _, t in stack)
            continue
        new = block_units(b, base, win, min_chars, max_chars, target)
        if not new:
            continue
        if not has_body:
            has_body = True
            for u in held:
                yield from out(packer.feed(u))
            held = []
        for u in new:
            yield from out(packer.feed(u))
    if held:  # a section of headings only, at the end
        for u in held:
            yield from out(packer.feed(u))
    yield from out(packer.finish())
    if last is not None:
        yield last


def assemble(
    units: list[Unit], text: str, lmap: list[LineSpan], keys: list[int]
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

