"""Blocks of the line-reading protocol (issue 14): a chunk cut into short blocks of numbered
lines, each line a sentence or table row that is verbatim in the chunk
(:func:`loop.evidence.split_units`), so a line id the model cites becomes a verified quote
(``corpus.citations.make_citation``) without the model ever writing text to match.

Pure functions, no I/O. Sizes are in characters (a Chinese block of 420 characters is about
300–400 prompt tokens with Qwen2.5's tokenizer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.citations import normalise_ws
from corpus.types import Chunk
from loop.evidence import split_units

__all__ = ["BLOCK_CHARS", "Block", "block_of", "chunk_blocks", "render_block"]

BLOCK_CHARS = 420  # characters of numbered lines per block (one line may exceed it alone)
_TAG = re.compile(r"<(?=/?\s*document)", re.IGNORECASE)
LINE_CHARS = 300  # a longer unit is shown cut (``split_units`` already caps units at 300)


@dataclass(frozen=True, slots=True)
class Block:
    """One block the model reads: ``lines`` (1-based ids in the prompt) are verbatim units of
    ``chunk``; ``index`` is the block's position among the chunk's ``count`` blocks."""

    chunk: Chunk
    index: int
    count: int
    lines: tuple[str, ...]

    @property
    def key(self) -> tuple[str, int]:
        """``(chunk_id, index)``: identifies the block within a question."""
        return self.chunk.chunk_id, self.index

    def line(self, line_id: int) -> str | None:
        """The unit behind 1-based ``line_id``, ``None`` for an id the block does not show."""
        return self.lines[line_id - 1] if 1 <= line_id <= len(self.lines) else None


def chunk_blocks(chunk: Chunk, max_chars: int = BLOCK_CHARS) -> list[Block]:
    """``chunk``'s units grouped in order into blocks of at most ``max_chars`` characters
    (a block holds at least one unit); ``[]`` for a chunk without units."""
    groups: list[list[str]] = []
    size = 0
    for unit in split_units(chunk):
        if not groups or size + len(unit) > max_chars:
            groups.append([])
            size = 0
        groups[-1].append(unit)
        size += len(unit)
    return [Block(chunk, i, len(groups), tuple(g)) for i, g in enumerate(groups)]


def block_of(blocks: list[Block], quote: str) -> Block | None:
    """The block of ``blocks`` one of whose lines is ``quote`` or holds it (compared under the
    citation check's whitespace normal form), or ``None``."""
    q = normalise_ws(quote)
    if not q:
        return None
    for b in blocks:
        if any(q == (n := normalise_ws(ln)) or q in n for ln in b.lines):
            return b
    return None


def render_block(block: Block) -> str:
    """The block as the model sees it: a header (file, section, page), the table's header row
    when the block shows rows without it, ``id| text`` lines, and whether text continues."""
    c = block.chunk
    pages = f"p.{c.page_start}" + (f"-{c.page_end}" if c.page_end > c.page_start else "")
    head = " | ".join(p for p in (c.path, c.section, pages) if p)
    out = [f"Block ({head}):"]
    header = c.table_header()
    if header and header not in block.lines and any(ln.startswith("|") for ln in block.lines):
        out.append(f"(table columns: {header[:LINE_CHARS]})")
    # the lines are data, delimited (a tag written in the document is defused)
    out += ["<document>", *(f"{i}| {_TAG.sub('‹', ln[:LINE_CHARS])}"
                            for i, ln in enumerate(block.lines, 1)), "</document>"]
    before = block.index > 0 or bool(c.prev_id)
    after = block.index < block.count - 1 or bool(c.next_id)
    out.append("(" + ", ".join([("text before this block" if before else "start of document"),
                                ("text after it" if after else "end of document")]) + ")")
    return "\n".join(out)
