"""Markdown parser (``.md``, ``.markdown``) built on markdown-it-py (CommonMark + GFM tables).

Blocks follow the top-level token stream: ``heading`` (ATX/Setext, level 1-6, text = the
heading's inline source), ``text`` (paragraphs, lists, block quotes, code: the source lines
verbatim), ``table`` (re-rendered as ``| a | b |`` rows with the header row and a ``|---|``
row, each row mapped to its source line). Line numbers are 1-based lines of the decoded file;
YAML front matter is skipped (its ``title:`` becomes the document title). Decoding is shared
with the text parser (:func:`corpus.parsers.text.decode_text`).

A long file is parsed in segments of at least :data:`SEGMENT_LINES` lines, each cut right before
an ATX heading outside a fenced code block (where no block can continue across the cut), so
markdown-it's token list — about 20 times the source in memory — never holds the whole of a
large file (a 50 MB file had peaked at 1.5 GB). Link reference definitions then apply within
their segment only.
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from corpus.errors import ParseError
from corpus.parsers._common import (
    first_heading,
    line_block,
    lines_block,
    render_table,
    text_document,
)
from corpus.parsers.text import decode_text
from corpus.types import Block, ParsedDocument

__all__ = ["SEGMENT_LINES", "parse_markdown", "markdown_blocks"]

_MD = MarkdownIt("commonmark").enable("table")
_TAG_RE = re.compile(r"<[^>]+>")
# Hugo/Jekyll shortcodes on a line of their own ({{< youtube "…" >}}, {% include … %}): no text
_SHORTCODE_RE = re.compile(r"^\s*(\{\{[<%].*?[>%]\}\}|\{%.*?%\})\s*$")


def _front_matter(lines: list[str]) -> tuple[int, dict[str, tuple[str, int]]]:
    """Return (number of front-matter lines, ``{key: (value, line)}`` for title/description)."""
    if not lines or lines[0].strip() != "---":
        return 0, {}
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in {"---", "..."}:
            found: dict[str, tuple[str, int]] = {}
            for n, line in enumerate(lines[1:i], start=2):
                key, _, value = line.partition(":")
                if key.strip().lower() in {"title", "description"} and value.strip():
                    found[key.strip().lower()] = (value.strip().strip("\"'"), n)
            return i + 1, found
    return 0, {}


#: Lines per Markdown segment at least (a smaller file is parsed in one piece).
SEGMENT_LINES = 5000
_ATX_RE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


def _segments(lines: list[str], start: int) -> list[tuple[int, int]]:
    """``[a, b)`` line ranges covering ``lines[start:]``: a range is cut before an ATX heading
    outside a fenced code block once it holds :data:`SEGMENT_LINES` lines."""
    out: list[tuple[int, int]] = []
    a, fence = start, ""
    for n in range(start, len(lines)):
        line = lines[n]
        if m := _FENCE_RE.match(line):
            mark = m.group(1)
            if not fence and not (mark[0] == "`" and "`" in m.group(2)):
                fence = mark
            elif fence and mark[0] == fence[0] and len(mark) >= len(fence) \
                    and not m.group(2).strip():
                fence = ""
            continue
        if not fence and n - a >= SEGMENT_LINES and _ATX_RE.match(line):
            out.append((a, n))
            a = n
    out.append((a, len(lines)))
    return out


def _table(tokens: list[Token], start: int, off: int = 0) -> tuple[Block | None, int]:
    rows: list[list[str]] = []
    pos: list[tuple[int, int]] = []
    i = start + 1
    cur: list[str] | None = None
    while i < len(tokens) and tokens[i].type != "table_close":
        t = tokens[i]
        if t.type == "tr_open":
            cur = []
            pos.append((1, (t.map[0] + 1 + off) if t.map else 1))
        elif t.type == "inline" and cur is not None:
            cur.append(t.content)
        elif t.type == "tr_close" and cur is not None:
            rows.append(cur)
            cur = None
        i += 1
    return render_table(rows, pos), i


def markdown_blocks(text: str) -> tuple[list[Block], str]:
    """Parse Markdown source into blocks; returns ``(blocks, front_matter_title)``."""
    lines = text.split("\n")
    skip, fm = _front_matter(lines)
    blocks: list[Block] = []
    for a, b in _segments(lines, skip):
        blocks.extend(_blocks(_MD.parse("\n".join(lines[a:b])), lines, a))
    if not any(b.kind != "heading" for b in blocks) and fm:
        # a page that is only front matter (a Hugo section index): its title and description
        head = [line_block("heading", *fm["title"], level=1)] if "title" in fm else []
        desc = [lines_block("text", [fm["description"]])] if "description" in fm else []
        blocks = head + desc + blocks
    return blocks, fm.get("title", ("", 0))[0]


def _blocks(tokens: list[Token], lines: list[str], off: int) -> list[Block]:
    """The blocks of one segment's tokens (its line numbers start after ``off`` lines)."""
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.level != 0 or t.nesting == -1:
            i += 1
            continue
        if t.type == "heading_open":
            inline = tokens[i + 1]
            title = " ".join(inline.content.split())
            if title and t.map:
                blocks.append(line_block("heading", title, t.map[0] + 1 + off,
                                         level=int(t.tag[1])))
            i += 3
            continue
        if t.type == "table_open":
            block, i = _table(tokens, i, off)
            if block is not None:
                blocks.append(block)
            i += 1
            continue
        if t.map and t.type != "hr":
            a, b = t.map[0] + off, t.map[1] + off
            src = [(lines[n].rstrip(), n + 1) for n in range(a, b) if n < len(lines)]
            if t.type == "html_block":
                src = [(_TAG_RE.sub("", s).strip(), n) for s, n in src]
            src = [(s, n) for s, n in src if s.strip() and not _SHORTCODE_RE.match(s)]
            if src:
                blocks.append(lines_block("text", src))
        i += 1
    return blocks


def parse_markdown(path: Path, data: bytes) -> ParsedDocument:
    """Parse a Markdown file.

    :raises ParseError: ``undecodable`` (binary data), ``no_text`` (no text blocks).
    """
    text, _enc, warnings = decode_text(data, path)
    blocks, fm_title = markdown_blocks(text)
    if not any(b.text.strip() for b in blocks):
        raise ParseError("no_text", f"{path}: the Markdown file holds no text")
    return text_document(path, data, "markdown", fm_title or first_heading(blocks) or path.stem,
                         blocks, warnings)
