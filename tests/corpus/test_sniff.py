"""Type from the bytes, name second (corpus.parsers._sniff), on inputs built here: what the
content decides, what the name still decides, and what is refused with which code."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from docx import Document

from corpus.errors import ParseError
from corpus.parsers import parse_file
from corpus.parsers._pymupdf import pymupdf


def _pdf(text: str) -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text, fontsize=11)
    data = doc.tobytes()
    doc.close()
    return data


def _docx(text: str) -> bytes:
    d = Document()
    d.add_paragraph(text)
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "media_type", "mismatch"),
    [
        ("a.docx", _pdf("Duty phone 8866."), "pdf", True),
        ("a.txt", _pdf("Duty phone 8866."), "pdf", True),
        ("a.pdf", b"junk\n" + _pdf("Duty phone 8866."), "pdf", False),  # junk before %PDF-
        ("a.pdf", _docx("Duty phone 8866."), "docx", True),
        ("a.docx", "\ufeff\n  <!DOCTYPE html><p>Duty phone 8866.</p>".encode(), "html", True),
        ("a.pdf", "值班电话 8866。\n".encode("gb18030"), "text", True),
        ("a.md", b"# Notes\n\nA PDF starts with %PDF-1.7; duty phone 8866.\n", "markdown", False),
        ("a.txt", b"<html><body>Duty phone 8866.</body></html>\n", "text", False),
        ("a.html", b"Duty phone 8866.\n", "html", False),
    ],
)
def test_content_first_name_second(
    tmp_path: Path, name: str, data: bytes, media_type: str, mismatch: bool
) -> None:
    (tmp_path / name).write_bytes(data)
    doc = parse_file(tmp_path / name)
    assert doc.media_type == media_type
    assert "8866" in " ".join(b.text for b in doc.blocks)
    flagged = [w for w in doc.warnings if w.startswith("extension_mismatch:")]
    assert bool(flagged) == mismatch, doc.warnings


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        ("a.docx", bytes.fromhex("D0CF11E0A1B11AE1") + bytes(504), "unsupported_legacy_doc"),
        ("a.pdf", bytes.fromhex("D0CF11E0A1B11AE1") + bytes(504), "unsupported_legacy_doc"),
        ("a.pdf", b"\x89PNG\r\n\x1a\n" + bytes(64), "unsupported_type"),
        ("a.docx", b"\x1f\x8b\x08\x00" + bytes(range(256)), "unsupported_type"),
        ("a.docx", _docx("Paragraph. " * 200)[:3000], "corrupt_archive"),
        ("a.txt", b" \n\t\n\u3000\n".decode("unicode_escape").encode("utf-8"), "no_text"),
    ],
)
def test_refused_with_a_clear_code(tmp_path: Path, name: str, data: bytes, code: str) -> None:
    (tmp_path / name).write_bytes(data)
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / name)
    assert err.value.code == code
    assert err.value.message.startswith(str(tmp_path / name))
