"""Markdown parser: heading hierarchy, tables with their header, front matter, real files."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.parsers import parse_file

MD = """---
title: "Ops handbook"
description: Things to know.
---
# Ops

Intro paragraph with **bold** text.

## Backups

- nightly at 02:00
- kept for 30 days

{{< youtube "abc" >}}

| Key | Value |
|-----|------:|
| port | 8443 |
| a\\|b | 2 |

### Restore
Restore takes one hour.
"""


def test_blocks_headings_and_lines(tmp_path: Path) -> None:
    f = tmp_path / "ops.md"
    f.write_text(MD, encoding="utf-8")
    doc = parse_file(f)
    assert doc.title == "Ops handbook" and doc.media_type == "markdown"
    kinds = [(b.kind, b.level, b.line_start, b.line_end) for b in doc.blocks]
    assert kinds == [
        ("heading", 1, 5, 5),
        ("text", 0, 7, 7),
        ("heading", 2, 9, 9),
        ("text", 0, 11, 12),
        ("table", 0, 16, 19),
        ("heading", 3, 21, 21),
        ("text", 0, 22, 22),
    ]
    table = doc.blocks[4]
    assert table.text.split("\n") == [
        "| Key | Value |",
        "|---|---|",
        "| port | 8443 |",
        "| a\\|b | 2 |",
    ]
    assert [ln for _o, _p, ln in table.line_map] == [16, 16, 18, 19]
    assert [e.section_path for e in doc.outline] == [
        ("Ops",),
        ("Ops", "Backups"),
        ("Ops", "Backups", "Restore"),
    ]
    assert "youtube" not in "".join(b.text for b in doc.blocks)


def test_front_matter_only_page_is_not_empty(tmp_path: Path) -> None:
    f = tmp_path / "_index.md"
    f.write_text("---\ntitle: Entity info\ndescription: A list of entities.\n---\n", "utf-8")
    doc = parse_file(f)
    assert [(b.kind, b.text, b.line_start) for b in doc.blocks] == [
        ("heading", "Entity info", 2),
        ("text", "A list of entities.", 3),
    ]


def test_real_drcd_file_chunks_by_paragraph_id(eval_dir: Path) -> None:
    files = sorted((eval_dir / "zh" / "docs" / "drcd").glob("*.md"))
    assert files, "DRCD markdown files expected"
    doc = parse_file(files[0])
    chunks = chunk_document(doc, rel_path=files[0].name)
    h2 = [b.text for b in doc.blocks if b.kind == "heading" and b.level == 2]
    assert h2 and all(c.section_path[-1] in h2 for c in chunks)
    for c in chunks:
        lines = c.text.split("\n")
        # one DRCD paragraph id (H2 section) per chunk, its heading shown in the chunk
        assert c.section_path[-1] in lines
        assert sum(line in h2 for line in lines) == 1
        assert len(c.text) <= 1500
        assert c.page_start == c.page_end == 1


def test_real_gitlab_handbook_pages_parse(eval_dir: Path) -> None:
    files = sorted((eval_dir / "en" / "docs" / "gitlab-handbook").rglob("*.md"))[:8]
    for f in files:
        doc = parse_file(f)
        chunks = chunk_document(doc, rel_path=f.name)
        assert chunks, f
        assert all(len(c.text) <= 1500 + 80 for c in chunks)


def _long_md(sections: int) -> str:
    parts = ["---\ntitle: Long\n---\n# Long manual\n"]
    for i in range(sections):
        parts.append(
            f"## Part {i}\n\nThe unit U-{i} runs {i % 9 + 1} hours.\n\n"
            "```bash\n# not a heading: a comment in a fenced block\necho ok\n```\n\n"
            f"| Key | Value |\n|-----|------|\n| port | {8000 + i} |\n\n"
            f"- item {i}\n- second item\n\nSetext {i}\n--------\n\ntext under it\n")
    return "".join(parts)


def test_a_long_file_is_parsed_in_segments_with_the_same_blocks(monkeypatch) -> None:
    """Issue 20 item 4: segments cut before ATX headings outside fences give exactly the blocks
    (kinds, texts, line numbers) of a one-piece parse."""
    from corpus.parsers import markdown

    text = _long_md(120)  # ~2,500 lines
    monkeypatch.setattr(markdown, "SEGMENT_LINES", 10**9)
    whole, title = markdown.markdown_blocks(text)
    monkeypatch.setattr(markdown, "SEGMENT_LINES", 40)
    assert len(markdown._segments(text.split("\n"), 3)) > 20
    parts, title2 = markdown.markdown_blocks(text)
    assert (parts, title2) == (whole, title)
    heads = [b for b in parts if b.kind == "heading"]
    assert not any("not a heading" in b.text for b in heads) and len(heads) == 1 + 2 * 120


def test_parsing_a_large_file_holds_no_whole_token_list(tmp_path: Path) -> None:
    """The parse of a ~0.9 MB file of many small blocks: parsed in one piece, markdown-it's
    tokens of the whole file peaked at 110x its source (the blocks kept: 14x); in segments 25x."""
    import tracemalloc

    path = tmp_path / "big.md"
    path.write_text(_long_md(4000), encoding="utf-8")
    size = path.stat().st_size
    tracemalloc.start()
    try:
        doc = parse_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len([b for b in doc.blocks if b.kind == "table"]) == 4000
    assert peak < 40 * size, (peak / size, size)
