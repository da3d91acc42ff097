"""DOCX parser (python-docx) with a zip-bomb check before anything is inflated (case 20).

1. :func:`corpus.parsers._safety.check_zip` reads only the ZIP central directory and refuses
   a declared total above 50 MB or an entry inflating more than 100x (``decompression_limit``).
2. Declared sizes can lie, so every member is then inflated through a capped stream into a
   fresh in-memory archive (the cap is the 50 MB budget left), and only that archive is
   handed to python-docx.
3. The body is read in order: paragraphs whose style is ``Title``/``Heading N`` (also
   ``标题 N``) or that carry an outline level become ``heading`` blocks; other non-empty
   paragraphs ``text``; tables become Markdown ``table`` blocks (first row = header).

DOCX has no fixed pages: ``page`` is 1 and a "line" is the 1-based position of the paragraph
or table row in the body (each paragraph and each table row counts as one line).
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from corpus.errors import ParseError
from corpus.parsers._common import (
    expand_ligatures,
    first_heading,
    line_block,
    render_table,
    text_document,
)
from corpus.parsers._safety import MAX_TOTAL_UNCOMPRESSED, check_zip, read_member_capped
from corpus.types import Block, ParsedDocument

__all__ = ["parse_docx"]

_HEADING = re.compile(r"^(?:heading|标题)\s*(\d)$", re.IGNORECASE)
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _safe_copy(data: bytes, path: Path) -> bytes:
    """Re-pack the archive after inflating each member under the remaining byte budget."""
    zf = check_zip(data, path)
    out = io.BytesIO()
    budget = MAX_TOTAL_UNCOMPRESSED
    with zf, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as dst:
        for info in zf.infolist():
            if info.is_dir():
                continue
            body = read_member_capped(zf, info.filename, path, budget)
            budget -= len(body)
            dst.writestr(info.filename, body)
    return out.getvalue()


def _level(paragraph) -> int:  # type: ignore[no-untyped-def]
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    if name.lower() == "title":
        return 1
    m = _HEADING.match(name.strip())
    if m:
        return max(1, min(int(m.group(1)), 6))
    ppr = paragraph._p.pPr
    if ppr is not None:
        lvl = ppr.find(f"{_W}outlineLvl")
        if lvl is not None:
            val = lvl.get(f"{_W}val")
            if val is not None and val.isdigit() and int(val) < 9:
                return min(int(val) + 1, 6)
    return 0


def parse_docx(path: Path, data: bytes) -> ParsedDocument:
    """Parse a DOCX file.

    :raises ParseError: ``decompression_limit`` (zip bomb), ``corrupt_archive`` (a damaged or
        truncated archive: nothing of it is returned), ``corrupt`` (not a DOCX), ``no_text``
        (no paragraph or table text).
    """
    safe = _safe_copy(data, path)
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(safe))
    except Exception as exc:  # python-docx raises KeyError/ValueError/lxml errors on bad parts
        raise ParseError("corrupt", f"{path}: not a readable DOCX ({exc})") from exc
    blocks: list[Block] = []
    line = 0
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            line += 1
            text = expand_ligatures(" ".join(item.text.split()))
            if not text:
                continue
            level = _level(item)
            kind = "heading" if level else "text"
            blocks.append(line_block(kind, text, line, level=level))
        elif isinstance(item, Table):
            rows = [[expand_ligatures(c.text) for c in r.cells] for r in item.rows]
            pos = [(1, line + i + 1) for i in range(len(rows))]
            line += len(rows)
            table = render_table(rows, pos)
            if table is not None:
                blocks.append(table)
    if not any(b.kind != "heading" for b in blocks) and not blocks:
        raise ParseError("no_text", f"{path}: the DOCX holds no text")
    core_title = (document.core_properties.title or "").strip()
    return text_document(path, data, "docx", core_title or first_heading(blocks) or path.stem,
                         blocks)
