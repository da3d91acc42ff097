"""HTML parser (selectolax, Lexbor engine): headings, paragraphs, list items, tables.

Content blocks are taken in document order from ``h1``-``h6`` (``heading``), ``p``, ``li``,
``pre``, ``blockquote``, ``dt``/``dd``, ``figcaption`` (``text``) and ``table`` (Markdown with
the first row, or the ``thead`` row, as header). An element nested inside another content
element (a ``p`` in a ``li``, a ``table`` cell's ``p``) is read with its container, once.
``script``, ``style``, ``noscript``, ``template``, ``nav``, ``header``/``footer`` of the page
are dropped. A page with none of these elements (text in bare ``div`` s) falls back to the
body's text lines. The decoded bytes follow :func:`corpus.parsers.text.decode_text` (a
``<meta charset>`` is not consulted: UTF-8/GB18030/Big5 detection covers the usual cases).

HTML has no pages and the parser exposes no source positions: ``page`` is 1 and a "line"
is the 1-based position of the block (each table row counts as one line).
"""

from __future__ import annotations

from pathlib import Path

from selectolax.lexbor import LexborHTMLParser, LexborNode

from corpus.errors import ParseError
from corpus.parsers._common import (
    expand_ligatures,
    first_heading,
    line_block,
    render_table,
    text_document,
)
from corpus.parsers.text import decode_text
from corpus.types import Block, ParsedDocument

__all__ = ["parse_html"]

_CONTENT = "h1,h2,h3,h4,h5,h6,p,li,pre,blockquote,dt,dd,figcaption,table"
_CONTAINERS = {"li", "pre", "blockquote", "table", "dd", "dt", "figcaption", "p"}
_DROP = "script,style,noscript,template,nav,svg,iframe,form"


def _text(node: LexborNode) -> str:
    return expand_ligatures(" ".join((node.text(separator=" ") or "").split()))


def _nested(node: LexborNode) -> bool:
    parent = node.parent
    while parent is not None and parent.tag not in ("body", "html", None):
        if parent.tag in _CONTAINERS:
            return True
        parent = parent.parent
    return False


def _table(node: LexborNode, first_line: int) -> Block | None:
    rows = []
    for tr in node.css("tr"):
        cells = [_text(c) for c in tr.iter() if c.tag in ("td", "th")]
        if cells:
            rows.append(cells)
    pos = [(1, first_line + i) for i in range(len(rows))]
    return render_table(rows, pos)


def parse_html(path: Path, data: bytes) -> ParsedDocument:
    """Parse an HTML file.

    :raises ParseError: ``undecodable`` (binary data), ``no_text`` (no visible text).
    """
    text, _enc, warnings = decode_text(data, path)
    tree = LexborHTMLParser(text)
    for node in tree.css(_DROP):
        node.decompose()
    for node in tree.css("body > header, body > footer"):
        node.decompose()
    title_node = tree.css_first("title")
    blocks: list[Block] = []
    line = 0
    for node in tree.css(_CONTENT):
        if _nested(node):
            continue
        if node.tag == "table":
            table = _table(node, line + 1)
            if table is not None:
                blocks.append(table)
                line = table.line_end
            continue
        content = _text(node)
        if not content:
            continue
        line += 1
        if node.tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            blocks.append(line_block("heading", content, line, level=int(node.tag[1])))
        else:
            blocks.append(line_block("text", content, line))
    if not blocks and tree.body is not None:
        for raw in (tree.body.text(separator="\n") or "").split("\n"):
            content = " ".join(raw.split())
            if content:
                line += 1
                blocks.append(line_block("text", content, line))
    if not blocks:
        raise ParseError("no_text", f"{path}: the HTML page holds no visible text")
    title = ((_text(title_node) if title_node is not None else "") or first_heading(blocks)
             or path.stem)
    return text_document(path, data, "html", title, blocks, warnings)
