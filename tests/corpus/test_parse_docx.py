"""DOCX parser: heading styles, tables as Markdown, zip-bomb limits (files built here)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import docx
import pytest

from corpus.chunker import chunk_document
from corpus.errors import ParseError
from corpus.parsers import parse_file
from corpus.parsers._safety import check_zip, read_member_capped


def _make(path: Path) -> Path:
    d = docx.Document()
    d.core_properties.title = "Maintenance guide"
    d.add_heading("维护手册 Maintenance", level=1)
    d.add_paragraph("本手册说明网关的日常维护。The gateway needs little care.")
    d.add_heading("Backups", level=2)
    d.add_paragraph("Backups are kept for 30 days.")
    t = d.add_table(rows=3, cols=2)
    for r, (k, v) in enumerate([("Item", "Value"), ("Port", "8443"), ("Retention", "30 天")]):
        t.cell(r, 0).text, t.cell(r, 1).text = k, v
    d.add_paragraph("")
    d.add_paragraph("After the table.")
    d.save(path)
    return path


def test_headings_paragraphs_and_tables(tmp_path: Path) -> None:
    doc = parse_file(_make(tmp_path / "guide.docx"))
    assert doc.title == "Maintenance guide" and doc.media_type == "docx"
    got = [(b.kind, b.level, b.line_start, b.text.split("\n")[0]) for b in doc.blocks]
    assert got == [
        ("heading", 1, 1, "维护手册 Maintenance"),
        ("text", 0, 2, "本手册说明网关的日常维护。The gateway needs little care."),
        ("heading", 2, 3, "Backups"),
        ("text", 0, 4, "Backups are kept for 30 days."),
        ("table", 0, 5, "| Item | Value |"),
        ("text", 0, 9, "After the table."),
    ]
    assert doc.blocks[4].text.split("\n")[1:] == [
        "|---|---|",
        "| Port | 8443 |",
        "| Retention | 30 天 |",
    ]
    chunks = chunk_document(doc, rel_path="guide.docx")
    assert chunks[-1].section_path == ("维护手册 Maintenance", "Backups")


def _zip(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_ratio_and_total_limits(tmp_path: Path) -> None:
    with pytest.raises(ParseError) as err:
        check_zip(_zip({"word/document.xml": b"A" * (5 * 1024 * 1024)}), tmp_path / "x.docx")
    assert err.value.code == "decompression_limit" and "100x" in err.value.message
    part = bytes(11 * 1024 * 1024)  # stored, ratio 1: only the 55 MB total is too much
    big = _zip({f"part{i}.bin": part for i in range(5)}, zipfile.ZIP_STORED)
    with pytest.raises(ParseError) as err:
        check_zip(big, tmp_path / "x.docx")
    assert err.value.code == "decompression_limit" and "declares" in err.value.message


def test_capped_stream_stops_at_the_limit(tmp_path: Path) -> None:
    zf = check_zip(_zip({"a.xml": b"<x/>" * 1000}), tmp_path / "x.docx")
    assert len(read_member_capped(zf, "a.xml", tmp_path / "x.docx", 4000)) == 4000
    with pytest.raises(ParseError) as err:
        read_member_capped(zf, "a.xml", tmp_path / "x.docx", 3999)
    assert err.value.code == "decompression_limit"


def test_not_a_docx_is_corrupt(tmp_path: Path) -> None:
    (tmp_path / "fake.docx").write_bytes(bytes(range(256)) * 4)  # binary of no known type
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "fake.docx")
    assert err.value.code == "corrupt"
    (tmp_path / "empty-zip.docx").write_bytes(_zip({"hello.txt": b"hi"}))
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "empty-zip.docx")
    assert err.value.code == "corrupt"
