"""HTML parser: headings, paragraphs, lists, tables; scripts and navigation dropped."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.errors import ParseError
from corpus.parsers import parse_file

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>网关说明 Gateway</title>
<style>p { color: red }</style></head><body>
<header><a href="/">Home</a></header><nav><a>Menu item</a></nav>
<h1>概述 Overview</h1>
<p>LoopGate 默认监听端口为 <b>8443</b>。</p>
<ul><li><p>first item</p></li><li>second item</li></ul>
<h2>Limits</h2>
<table><thead><tr><th>Key</th><th>Value</th></tr></thead>
<tbody><tr><td>max <i>chunks</i></td><td>500,000</td></tr></tbody></table>
<script>document.write("tracking")</script>
<footer>© footer</footer></body></html>"""


def test_blocks_in_document_order(tmp_path: Path) -> None:
    f = tmp_path / "page.htm"
    f.write_text(PAGE, encoding="utf-8")
    doc = parse_file(f)
    assert doc.title == "网关说明 Gateway" and doc.media_type == "html"
    assert [(b.kind, b.level, b.line_start, b.text) for b in doc.blocks] == [
        ("heading", 1, 1, "概述 Overview"),
        ("text", 0, 2, "LoopGate 默认监听端口为 8443 。"),
        ("text", 0, 3, "first item"),
        ("text", 0, 4, "second item"),
        ("heading", 2, 5, "Limits"),
        ("table", 0, 6, "| Key | Value |\n|---|---|\n| max chunks | 500,000 |"),
    ]
    text = " ".join(c.text for c in chunk_document(doc, rel_path="page.htm"))
    for junk in ("tracking", "Menu item", "footer", "color: red"):
        assert junk not in text


def test_div_only_page_falls_back_to_text_lines(tmp_path: Path) -> None:
    f = tmp_path / "divs.html"
    f.write_text("<html><body><div>first line</div><div>second line</div></body></html>", "utf-8")
    assert [b.text for b in parse_file(f).blocks] == ["first line", "second line"]


def test_no_visible_text(tmp_path: Path) -> None:
    f = tmp_path / "empty.html"
    f.write_text("<html><head><script>x()</script></head><body> </body></html>", "utf-8")
    with pytest.raises(ParseError) as err:
        parse_file(f)
    assert err.value.code == "no_text"
