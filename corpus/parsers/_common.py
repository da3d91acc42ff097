"""Helpers shared by the parsers: reading a file safely, hashing, line maps, text clean-up.

Every parser takes the file's bytes (read once by :func:`read_bytes`) so that the document id
(sha256 of those bytes) and the parsed text always come from the same snapshot of the file.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

from corpus.errors import ParseError
from corpus.types import Block, OutlineEntry, ParsedDocument

__all__ = [
    "LIGATURES",
    "expand_ligatures",
    "first_heading",
    "line_block",
    "render_table",
    "lines_block",
    "outline_from_blocks",
    "read_bytes",
    "sha256_hex",
    "text_document",
]

# Latin presentation forms (U+FB00..U+FB06) and a few other compatibility characters PDFs emit.
# NFKC of the whole text would also fold full-width CJK punctuation, which must stay verbatim,
# so only these characters are expanded (source: Unicode block "Alphabetic Presentation Forms").
LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
_LIG_RE = re.compile("[" + "".join(LIGATURES) + "]")


def expand_ligatures(text: str) -> str:
    """Replace ligature characters (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ) by their letters; other text unchanged."""
    if not _LIG_RE.search(text):
        return text
    return _LIG_RE.sub(lambda m: LIGATURES[m.group(0)], text)


def sha256_hex(data: bytes) -> str:
    """sha256 hex digest (64 lowercase hex characters): the document id."""
    return hashlib.sha256(data).hexdigest()


def read_bytes(path: Path) -> bytes:
    """Read the whole file.

    :raises ParseError: ``vanished`` when the file is missing or unreadable, ``empty_file`` when
        it has zero bytes.
    """
    try:
        data = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise ParseError("vanished", f"{path}: the file disappeared before it was read") from exc
    except (PermissionError, IsADirectoryError, OSError) as exc:
        raise ParseError("vanished", f"{path}: the file could not be read ({exc})") from exc
    if not data:
        raise ParseError("empty_file", f"{path}: the file has zero bytes")
    return data


def lines_block(
    kind: str, lines: list[tuple[str, int]], *, page: int = 1, level: int = 0, page_label: str = ""
) -> Block:
    """Build a block from ``(line_text, line_number)`` pairs joined by ``\\n`` with a full line map.

    :param lines: non-empty list; line numbers 1-based on ``page``.
    """
    parts: list[str] = []
    lmap: list[tuple[int, int, int]] = []
    off = 0
    for text, num in lines:
        lmap.append((off, page, num))
        parts.append(text)
        off += len(text) + 1
    return Block(
        kind=kind,  # type: ignore[arg-type]
        text="\n".join(parts),
        page=page,
        page_end=page,
        line_start=lines[0][1],
        line_end=lines[-1][1],
        level=level,
        page_label=page_label,
        line_map=tuple(lmap),
    )


def line_block(kind: str, text: str, line: int, *, level: int = 0) -> Block:
    """A one-line block (headings) on page 1."""
    return Block(
        kind=kind,  # type: ignore[arg-type]
        text=text,
        page=1,
        page_end=1,
        line_start=line,
        line_end=line,
        level=level,
        line_map=((0, 1, line),),
    )


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def render_table(
    rows: list[list[str]], lines: list[tuple[int, int]] | None = None, *, page_label: str = ""
) -> Block | None:
    """Render rows (first row = header) as a Markdown table block with a ``|---|`` row.

    :param rows: cell texts; ragged rows are padded to the widest row.
    :param lines: ``(page, line)`` for each row (the delimiter row gets the header's position);
        defaults to page 1, lines 1..n.
    :returns: a ``table`` block, or ``None`` when every cell is empty.
    """
    rows = [[_cell(c or "") for c in r] for r in rows]
    rows = [r for r in rows if any(r)]
    if not rows:
        return None
    width = max(len(r) for r in rows)
    if lines is None:
        lines = [(1, i + 1) for i in range(len(rows))]
    out: list[tuple[str, int, int]] = []
    for i, r in enumerate(rows):
        r = r + [""] * (width - len(r))
        page, line = lines[min(i, len(lines) - 1)]
        out.append(("| " + " | ".join(r) + " |", page, line))
        if i == 0:
            out.append(("|" + "---|" * width, page, line))
    parts, lmap, off = [], [], 0
    for text, page, line in out:
        lmap.append((off, page, line))
        parts.append(text)
        off += len(text) + 1
    return Block(
        kind="table",
        text="\n".join(parts),
        page=out[0][1],
        page_end=out[-1][1],
        line_start=out[0][2],
        line_end=out[-1][2],
        page_label=page_label,
        line_map=tuple(lmap),
    )


def outline_from_blocks(blocks: list[Block]) -> list[OutlineEntry]:
    """Section tree from heading blocks (levels normalised through a stack)."""
    out: list[OutlineEntry] = []
    stack: list[tuple[int, str]] = []
    for b in blocks:
        if b.kind != "heading":
            continue
        while stack and stack[-1][0] >= b.level:
            stack.pop()
        stack.append((b.level, b.text))
        out.append(OutlineEntry(b.text, len(stack), b.page, tuple(s for _, s in stack)))
    return out


def first_heading(blocks: list[Block]) -> str:
    """The text of the first heading block, ``""`` when there is none (a title candidate)."""
    return next((b.text for b in blocks if b.kind == "heading"), "")


def text_document(path: Path, data: bytes, media_type: str, title: str, blocks: list[Block],
                  warnings: list[str] | None = None,
                  outline: list[OutlineEntry] | None = None) -> ParsedDocument:
    """The :class:`~corpus.types.ParsedDocument` of a format without pages (Markdown, text,
    DOCX, HTML: one page, lines counted in the whole file): ``doc_id`` the sha256 of ``data``,
    the outline from the heading blocks unless given."""
    return ParsedDocument(
        path=str(path),
        doc_id=sha256_hex(data),
        title=title,
        media_type=media_type,
        page_count=1,
        blocks=blocks,
        outline=outline_from_blocks(blocks) if outline is None else outline,
        warnings=warnings if warnings is not None else [],
    )
