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
