"""Text-layer quality per page (issue 17 item 1), on PDFs generated here with PyMuPDF: a page
whose CJK font lost its ToUnicode map (MuPDF then returns glyph ids: rare CJK Extension A
characters and controls) or maps to private-use code points is garbled: OCR'd when Tesseract
is there, else reported (``garbled_text``, ``needs_ocr``) and kept out of the index."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from benchmarks.fidelity_set import break_font
from corpus.chunker import chunk_document
from corpus.errors import ParseError
from corpus.parsers import parse_file
from corpus.parsers._pdf_quality import garbled_reason
from corpus.parsers.pdf import warned_pages

ZH = "网络运营者应当按照网络安全等级保护制度的要求履行安全保护义务，网络日志留存不少于六个月。"
ZH_T = "網路經營者應當按照網路安全等級保護制度的要求履行安全保護義務，網路日誌留存不少於六個月。"
EN = "Network operators shall keep their network logs for no less than six months."


def _page(doc: pymupdf.Document, text: str, font: str) -> pymupdf.Page:
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname=font, fontbuffer=pymupdf.Font("cjk").buffer)
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 770), (text + "\n") * 6, fontname=font,
                        fontsize=11)
    return page


def _mixed_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    _page(doc, EN + " " + ZH, "F0")
    _page(doc, ZH_T, "F0")
    break_font(doc, _page(doc, ZH + EN, "F1"), "no_tounicode")
    break_font(doc, _page(doc, ZH, "F2"), "pua")
    doc.save(path)
    doc.close()
    return path


def test_garbled_reason_passes_real_text() -> None:
    assert garbled_reason(ZH * 3) is None and garbled_reason(ZH_T * 3) is None
    assert garbled_reason(EN * 3) is None
    assert garbled_reason("\ue000\ue001\ue002" * 10) == "unmapped glyphs"
    shifted = "/FUXPSL\x01MPHT\x01BSF\x01LFQU\x01TJY\x01NPOUIT"  # "Network logs are kept …"
    assert garbled_reason(shifted * 3) == "unmapped glyphs"
    glyph_ids = "㟏㝚䡎㲣㢃" * 4  # CIDs read as code points: CJK Extension A
    assert garbled_reason(glyph_ids) == "implausible CJK characters"
    assert garbled_reason("short \ufffd") is None  # too little text to judge


def test_garbled_pages_are_reported_and_kept_out(tmp_path: Path, no_ocr: None) -> None:
    doc = parse_file(_mixed_pdf(tmp_path / "mixed.pdf"))
    warn = next(w for w in doc.warnings if w.startswith("garbled_text"))
    assert "needs_ocr: [3, 4]" in warn
    assert warned_pages(doc.warnings) == {"garbled_text": [3, 4]}  # as /v1/documents lists
    assert {b.page for b in doc.blocks} == {1, 2}
    chunks = chunk_document(doc, rel_path="mixed.pdf")
    text = "".join(c.text for c in chunks).replace("\n", "")
    assert "网络日志留存不少于六个月" in text and "網路日誌" in text
    assert garbled_reason(text) is None and "\ue000" not in text and "㟏" not in text


def test_a_wholly_garbled_pdf_needs_ocr(tmp_path: Path, no_ocr: None) -> None:
    doc = pymupdf.open()
    break_font(doc, _page(doc, ZH, "F1"), "no_tounicode")
    doc.save(tmp_path / "bad.pdf")
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "bad.pdf")
    assert err.value.code == "needs_ocr" and "garbled" in str(err.value)
