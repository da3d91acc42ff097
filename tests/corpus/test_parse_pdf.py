"""PDF parser on real pages (FinanceBench 10-K balance sheet, a Chinese manual with a parameter
table) and on PDFs built here: scanned page, damaged file, page labels, outline, TOC page."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.errors import ParseError
from corpus.parsers import parse_file
from corpus.parsers._pdf_ocr import ocr_languages
from corpus.parsers._pymupdf import pymupdf


def _pages(src: Path, first: int, last: int, out: Path) -> Path:
    """Copy 1-based pages first..last of a real PDF into ``out`` (the original stays shared)."""
    doc = pymupdf.open(src)
    new = pymupdf.open()
    new.insert_pdf(doc, from_page=first - 1, to_page=last - 1)
    new.save(out)
    return out


def test_financebench_balance_sheet_rows(eval_dir: Path, tmp_path: Path) -> None:
    pdf = _pages(eval_dir / "en/docs/financebench/3M_2018_10K.pdf", 58, 58, tmp_path / "bs.pdf")
    doc = parse_file(pdf)
    chunks = chunk_document(doc, rel_path="bs.pdf")
    text = "\n".join(c.text for c in chunks)
    # unruled table cells on one baseline are one visual line, in column order
    assert "Cash and cash equivalents $ 2,853 $ 3,053" in text
    assert "Property, plant and equipment — net 8,738 8,866" in text
    assert "Total liabilities and equity $ 36,500 $ 37,987" in text
    assert "\n58\n" not in text + "\n"  # the page number is page furniture
    cit = next(
        c
        for c in (make_citation(ch, "Property, plant and equipment — net 8,738") for ch in chunks)
        if c
    )
    assert cit.page == 1 and cit.lines[0] == cit.lines[1] > 10


def test_zh_manual_parameter_table_and_numbered_headings(eval_dir: Path, tmp_path: Path) -> None:
    src = eval_dir / "zh/docs/pdf/tonghui_th2817b_manual.pdf"
    pdf = _pages(src, 15, 16, tmp_path / "th.pdf")
    chunks = chunk_document(parse_file(pdf), rel_path="th.pdf")
    accuracy = next(c for c in chunks if c.section_path[-1] == "2.1.10 基本精度")
    assert "0.1%" in accuracy.text and accuracy.page_start == 1
    table = next(c for c in chunks if c.kind == "table")
    assert table.section_path == ("2.2 测试信号", "2.2.5 测量显示范围")
    lines = table.text.split("\n")
    first = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    assert lines[first : first + 2] == ["| 参数 | 测量显示范围 |", "|---|---|"]
    assert "| C | 0.001pF～9999.9μF |" in lines
    cit = make_citation(table, "| R、X、Z | 0.0001Ω～99.999MΩ |")
    assert cit is not None and cit.page == 2


def _scan(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    doc.save(path)
    return path


def test_scanned_pdf_needs_ocr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PDF of a picture without text: "OCR is needed" when OCR is not installed; when it is
    and found nothing, "no text" saying OCR ran (a break-it trial's 1-pixel image was told
    "OCR is needed" with Tesseract installed)."""
    if ocr_languages():
        with pytest.raises(ParseError) as err:
            parse_file(_scan(tmp_path / "scan.pdf"))
        assert err.value.code == "no_text" and "OCR" in str(err.value)
        assert "found no text" in str(err.value)
    monkeypatch.setenv("LOOPGATE_OCR_LANGUAGES", "")
    ocr_languages.cache_clear()
    try:
        with pytest.raises(ParseError) as err:
            parse_file(_scan(tmp_path / "scan2.pdf"))
    finally:
        monkeypatch.undo()
        ocr_languages.cache_clear()
    assert err.value.code == "needs_ocr"


def _text_scan(path: Path, lines: list[str]) -> Path:
    """A one-page PDF holding only a 200 dpi picture of ``lines`` (no text layer)."""
    src = pymupdf.open()
    page = src.new_page()
    for i, line in enumerate(lines):
        page.insert_text((72, 100 + 24 * i), line, fontsize=14)
    pix = page.get_pixmap(dpi=200)
    doc = pymupdf.open()
    doc.new_page().insert_image(page.rect, pixmap=pix)
    doc.save(path)
    return path


needs_tesseract = pytest.mark.skipif(
    not ocr_languages(), reason="Tesseract not installed (apt-get install tesseract-ocr)"
)


@needs_tesseract
def test_scanned_page_is_read_by_ocr(tmp_path: Path) -> None:
    pdf = _text_scan(tmp_path / "scan.pdf", ["Warranty period: 24 months.", "Model FW-301 only."])
    doc = parse_file(pdf)
    assert any("read by OCR" in w for w in doc.warnings)
    chunks = chunk_document(doc, rel_path="scan.pdf")
    text = " ".join(c.text for c in chunks)
    assert "Warranty period: 24 months." in text and "FW-301" in text
    cit = make_citation(chunks[0], "Warranty period: 24 months.")
    assert cit is not None and cit.page == 1 and cit.lines == (1, 1)


def test_scanned_page_without_ocr_needs_ocr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPGATE_OCR_LANGUAGES", "")
    ocr_languages.cache_clear()
    try:
        with pytest.raises(ParseError) as err:
            parse_file(_text_scan(tmp_path / "scan.pdf", ["Warranty period: 24 months."]))
    finally:
        monkeypatch.undo()
        ocr_languages.cache_clear()
    assert err.value.code == "needs_ocr"


@needs_tesseract
def test_stamped_court_filing_scan_is_read(eval_dir: Path, tmp_path: Path) -> None:
    """MMLongBench-Doc's complaint: each scanned page carries a one-line text stamp, which
    alone made the file a ``no_text`` failure; page 11 holds the gold amounts."""
    src = eval_dir / "en/docs/mmlongbench/3276a5b991c49cf5f9a4af0f7d6fce67.pdf"
    chunks = chunk_document(parse_file(_pages(src, 11, 11, tmp_path / "p11.pdf")), rel_path="p.pdf")
    text = " ".join(" ".join(c.text.split()) for c in chunks)
    assert "Mont Blanc in the amount of $35,000" in text
    chunk = next(c for c in chunks if "$40,684" in c.text)
    cit = make_citation(chunk, "$40,684")
    assert cit is not None and cit.page == 1 and cit.lines[0] > 5


def test_blank_pdf_has_no_text(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page()
    doc.save(tmp_path / "blank.pdf")
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "blank.pdf")
    assert err.value.code == "no_text"


@pytest.mark.parametrize(
    "data", [b"%PDF-1.7\n garbage \x00\x01", b"%PDF-1.7\n" + bytes(range(256))]
)
def test_damaged_pdf_is_corrupt_pdf(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "bad.pdf").write_bytes(data)
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "bad.pdf")
    assert err.value.code == "corrupt_pdf"


def _zero_page_pdf() -> bytes:
    """A well-formed PDF whose page tree is empty (PyMuPDF refuses to save one)."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, obj)
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n"
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def test_zero_page_pdf_is_no_pages_not_corrupt(tmp_path: Path) -> None:
    """A well-formed PDF with an empty page tree is ``no_pages`` (found by a new-user trial: it
    was reported ``corrupt_pdf``, "damaged"); one that MuPDF had to repair and found no page in
    stays ``corrupt_pdf``."""
    data = _zero_page_pdf()
    assert pymupdf.open(stream=data, filetype="pdf").page_count == 0
    (tmp_path / "zero.pdf").write_bytes(data)
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "zero.pdf")
    assert err.value.code == "no_pages" and "zero pages" in err.value.message
    (tmp_path / "cut.pdf").write_bytes(data[: data.index(b"xref")])  # needs MuPDF's repair
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "cut.pdf")
    assert err.value.code == "corrupt_pdf"


def test_truncated_pdf_is_corrupt_pdf_not_an_empty_document(tmp_path: Path) -> None:
    """MuPDF repairs a PDF cut short into one blank page; that is ``corrupt_pdf``, not
    ``no_text`` or an empty document (case 18); a repaired PDF with text keeps it, warned."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Duty phone 8866. " * 40, fontsize=11)
    whole = doc.tobytes(garbage=4, deflate=True)
    doc.close()
    (tmp_path / "cut.pdf").write_bytes(whole[: len(whole) * 2 // 5])
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "cut.pdf")
    assert err.value.code == "corrupt_pdf"
    xref = whole.rindex(b"startxref")
    (tmp_path / "no_xref.pdf").write_bytes(whole[:xref])  # body intact, trailer cut
    parsed = parse_file(tmp_path / "no_xref.pdf")
    assert "Duty phone 8866" in parsed.blocks[0].text
    assert parsed.warnings[0].startswith("repaired_pdf:")


def test_outline_labels_headings_and_toc_page(tmp_path: Path) -> None:
    doc = pymupdf.open()
    toc = doc.new_page()
    toc.insert_text((72, 72), "Contents", fontsize=16)
    for i, (title, pg) in enumerate(
        [
            ("Intro", 1),
            ("Setup", 2),
            ("Usage", 3),
            ("Limits", 4),
            ("Security", 5),
            ("Backups", 6),
            ("Glossary", 7),
        ]
    ):
        toc.insert_text((72, 110 + 18 * i), f"{title} ........ {pg}", fontsize=11)
    for n in range(1, 3):
        p = doc.new_page()
        p.insert_text((72, 72), f"Part {n} Heading", fontsize=18)
        p.insert_text(
            (72, 110), f"Body text of part {n} explains the gateway in some detail.", fontsize=10
        )
        p.insert_text(
            (72, 126), "More body text follows here, at the same body font size.", fontsize=10
        )
    doc.set_page_labels(
        [
            {"startpage": 0, "prefix": "", "style": "r", "firstpagenum": 1},
            {"startpage": 1, "prefix": "", "style": "D", "firstpagenum": 1},
        ]
    )
    doc.set_toc([[1, "Part 1 Heading", 2], [1, "Part 2 Heading", 3]])
    doc.save(tmp_path / "book.pdf")
    parsed = parse_file(tmp_path / "book.pdf")
    assert parsed.page_labels == {1: "i", 2: "1", 3: "2"}
    assert [(e.title, e.level, e.page) for e in parsed.outline] == [
        ("Part 1 Heading", 1, 2),
        ("Part 2 Heading", 1, 3),
    ]
    assert any("table-of-contents" in w for w in parsed.warnings)
    assert all(b.page != 1 for b in parsed.blocks)  # TOC page kept out of the chunks
    chunks = chunk_document(parsed, rel_path="book.pdf")
    assert [(c.section_path, c.page_start, c.page_label) for c in chunks] == [
        (("Part 1 Heading",), 2, "1"),
        (("Part 2 Heading",), 3, "2"),
    ]


@pytest.mark.parametrize(
    ("name", "page", "must"),
    [
        ("PFIZER_2021_10K.pdf", 57, "Revenues $ 81,288 $ 41,651 $ 40,905"),
        ("VERIZON_2022_10K.pdf", 23, "Capital Expenditures and Investments"),
    ],
)
def test_degenerate_grids_stay_text(
    eval_dir: Path, tmp_path: Path, name: str, page: int, must: str
) -> None:
    """find_tables on these pages returns a grid with giant or mostly empty cells: the page
    must keep its visual lines instead (no prose in table cells, no repeated mega-header)."""
    pdf = _pages(eval_dir / "en/docs/financebench" / name, page, page, tmp_path / "p.pdf")
    chunks = chunk_document(parse_file(pdf), rel_path="p.pdf")
    assert all(c.kind == "text" for c in chunks)
    text = "\n".join(c.text for c in chunks)
    assert must in text.split("\n")
    assert sum(len(c.text) for c in chunks) < 2 * len(pdf.read_bytes())  # nothing repeated


def test_mid_page_running_footer_is_removed(eval_dir: Path, tmp_path: Path) -> None:
    """Nike's 10-K prints ``2021 FORM 10-K 24`` right under the last paragraph, mid-page."""
    pdf = _pages(eval_dir / "en/docs/financebench/NIKE_2021_10K.pdf", 26, 28, tmp_path / "n.pdf")
    chunks = chunk_document(parse_file(pdf), rel_path="n.pdf")
    text = "\n".join(c.text for c in chunks)
    assert "FORM 10-K 2" not in text and "Table of Contents" not in text
    assert "ITEM 4. MINE SAFETY DISCLOSURES" in text


def test_running_header_that_names_its_chapter_is_removed(eval_dir: Path) -> None:
    """The TH2817B manual heads every page with ``TH2817B 系列使用说明书 第六章 性能测试``: the
    chapter part changes each chapter, so no one line was on 20 % of the pages and the header
    stayed in the chunks, where the RAG path quoted it as the answer to "TH2817B系列的基本测量
    精度是多少？" (zhpdf:03). Its part before the chapter repeats and drops it; the section
    headings and body lines stay."""
    doc = parse_file(eval_dir / "zh/docs/pdf/tonghui_th2817b_manual.pdf")
    lines = [ln.strip() for b in doc.blocks for ln in b.text.split("\n")]
    assert not [ln for ln in lines if ln.startswith("TH2817B 系列使用说明书 第")]
    assert "2.1.10 基本精度" in lines and "6.1.8 准确度因子" in lines
