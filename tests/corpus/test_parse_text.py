"""Text decoding and the TXT parser: case 19 encodings, bad input errors, line numbers."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from corpus.errors import ParseError
from corpus.parsers import parse_file
from corpus.parsers.text import decode_text

TXT = (
    "设备巡检记录\n"
    "巡检人（虚构）：林喆、周堃、吴镕（姓名含 GB2312 之外的 GBK 字）。\n"
    "结论：主变压器油温 65℃，正常。下次巡检日期：2024年3月15日。\n"
    "备注：“引号”、——破折号、…省略号都要保留。\n"
)


@pytest.mark.parametrize(
    ("encoding", "suffix"),
    [
        ("gbk", ".txt"),
        ("gb18030", ".txt"),
        ("utf-8-sig", ".txt"),
        ("utf-16", ".txt"),
        ("utf-16-be", ".text"),
        ("utf-8", ".txt"),
    ],
)
def test_every_encoding_decodes_exactly(tmp_path: Path, encoding: str, suffix: str) -> None:
    data = TXT.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    f = tmp_path / f"inspection{suffix}"
    f.write_bytes(data)
    doc = parse_file(f)
    assert doc.warnings == []
    assert "\n".join(b.text for b in doc.blocks) + "\n" == TXT
    # citations count lines of the decoded text: 油温 is on line 3 whatever the encoding
    (block,) = doc.blocks
    starts = {block.text[o : o + 2]: line for o, _page, line in block.line_map}
    assert starts == {"设备": 1, "巡检": 2, "结论": 3, "备注": 4}


def test_big5_is_not_read_as_gb18030_mojibake(tmp_path: Path) -> None:
    tw = "設備巡檢記錄\n結論：主變壓器油溫 65℃，正常。\n"
    f = tmp_path / "big5.txt"
    f.write_bytes(tw.encode("big5"))
    text, enc, warnings = decode_text(f.read_bytes(), f)
    assert (text, enc, warnings) == (tw, "big5", [])


def test_one_bad_byte_gives_one_replacement_and_a_warning(tmp_path: Path) -> None:
    raw = TXT.encode("utf-8")
    f = tmp_path / "bad.txt"
    f.write_bytes(raw[:40] + b"\xff" + raw[40:])
    doc = parse_file(f)
    text = "\n".join(b.text for b in doc.blocks)
    assert text.count("\ufffd") == 1
    assert text.replace("\ufffd", "") + "\n" == TXT
    assert doc.warnings and "replacement" in doc.warnings[0]


WESTERN = (
    "Le café de M. Müller est naïf : il paie £3 le croissant.\n"
    "Die Größe der Tür ist für Müller gemäß der Übersicht zu prüfen.\n"
    "The total is £250 for the year.\n"
)


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
@pytest.mark.parametrize("text", [WESTERN, "A naïve café.\n", "Price: £5\n"])
def test_western_latin1_text_decodes_exactly_with_a_warning(
    tmp_path: Path, encoding: str, text: str
) -> None:
    """Latin-1 / cp1252 text comes out as written, flagged as a guess (found by a new-user
    trial: decoded as cp1250 without a word, ``naďf``, ``Ł3``; German as GB18030 ``Gr鲞e``)."""
    f = tmp_path / "notes.txt"
    f.write_bytes(text.encode(encoding))
    decoded, enc, warnings = decode_text(f.read_bytes(), f)
    assert (decoded, enc) == (text, "windows-1252")
    assert len(warnings) == 1 and warnings[0].startswith("encoding_guessed: ")
    assert "windows-1252" in warnings[0]
    doc = parse_file(f)  # the document carries the warning to the ingest report
    assert [w.split(":")[0] for w in doc.warnings] == ["encoding_guessed"]


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
@pytest.mark.parametrize(
    "text",
    [
        "Le naïve garçon a payé 5 £ au café.\n",
        "café naïve Müller £\n",
        "Ça coûte 10 £.\n",
        "Er kostet ½ £ oder ¼ £.\n",
    ],
)
def test_lone_symbol_does_not_turn_western_text_central_european(text: str, encoding: str) -> None:
    """A symbol standing alone (``£`` is ``Ł`` in windows-1250) no longer makes the detector read
    a whole Western sentence as windows-1250 (tester: ``naïve`` → ``naďve``, ``£`` → ``Ł``,
    ``coûte`` → ``coűte``, with only an ``encoding_guessed … windows-1250`` warning)."""
    decoded, enc, warnings = decode_text(text.encode(encoding), Path("fr.txt"))
    assert (decoded, enc) == (text, "windows-1252")
    assert len(warnings) == 1 and warnings[0].startswith("encoding_guessed: ")


@pytest.mark.parametrize(
    ("text", "encoding"),
    [
        ("Zażółć gęślą jaźń. Książka leży na stole w małym pokoju.\n", "cp1250"),
        # Central European letters inside words outweigh a lone symbol
        ("Pan Łukasz płaci 20 zł za kawę w Łodzi.\n", "cp1250"),
        ("Příliš žluťoučký kůň úpěl ďábelské ódy za 5 €.\n", "cp1250"),
        ("Zażółć gęślą jaźń, pchnąć w tę łódź jeża ± 2 °C.\n", "cp1250"),
        ("Zażółć gęślą jaźń, pchnąć w tę łódź jeża.\n", "iso-8859-2"),
        ("Příliš žluťoučký kůň úpěl ďábelské ódy.\n", "cp1250"),
        ("Москва — столица России, город федерального значения.\n", "cp1251"),
    ],
)
def test_other_single_byte_encodings_still_decode(text: str, encoding: str) -> None:
    decoded, enc, warnings = decode_text(text.encode(encoding), Path("x.txt"))
    assert decoded == text and enc == encoding.replace("cp", "windows-") and warnings


def test_case19_files_decode_to_true_text(cases_dir: Path) -> None:
    case = cases_dir / "19-malformed-text-encodings"
    exp = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    true = exp["true_text"]
    for name in exp["inputs"]:
        doc = parse_file(case / name)
        text = "\n".join(b.text if b.kind != "heading" else "# " + b.text for b in doc.blocks)
        if "big5" in name:
            assert text + "\n" == true["big5"]
        elif "gb18030" in name:
            assert text + "\n" == "# " + true["gbk/utf-8/utf-16 files"] + true["gb18030 extra line"]
        elif "bad_byte" in name:
            assert text.count("\ufffd") == 1 and doc.warnings
        else:
            assert text + "\n" == true["gbk/utf-8/utf-16 files"], name
            assert doc.warnings == []


def test_paragraphs_and_line_numbers(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("first para line 1\nline 2\n\n\nsecond para\r\nends here\n", encoding="utf-8")
    doc = parse_file(f)
    assert [(b.line_start, b.line_end) for b in doc.blocks] == [(1, 2), (5, 6)]
    assert doc.blocks[1].line_map == ((0, 1, 5), (12, 1, 6))
    assert doc.title == "notes" and doc.media_type == "text" and doc.page_count == 1


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        ("empty.txt", b"", "empty_file"),
        ("blank.txt", b"  \n\n \t\n", "no_text"),
        ("binary.txt", bytes(range(256)) * 4 + b"\x00" * 512, "undecodable"),
        # random bytes without NULs decode as GB18030: rejected by their control characters
        ("random.txt", bytes(b for b in random.Random(7).randbytes(8192) if b), "undecodable"),
        ("random.md", bytes(b for b in random.Random(8).randbytes(8192) if b), "undecodable"),
        ("random.html", bytes(b for b in random.Random(9).randbytes(8192) if b), "undecodable"),
        ("table.xlsx", b"PK\x03\x04", "unsupported_type"),
    ],
)
def test_bad_input_gives_one_clear_error(tmp_path: Path, name: str, data: bytes, code: str) -> None:
    f = tmp_path / name
    f.write_bytes(data)
    with pytest.raises(ParseError) as err:
        parse_file(f)
    assert err.value.code == code
    assert name in err.value.message


def test_vanished_file(tmp_path: Path) -> None:
    with pytest.raises(ParseError) as err:
        parse_file(tmp_path / "gone.md")
    assert err.value.code == "vanished"


def test_real_cmrc2018_passage(eval_dir: Path) -> None:
    from corpus.chunker import chunk_document
    from corpus.citations import make_citation

    f = sorted((eval_dir / "zh" / "docs" / "cmrc2018").glob("*.txt"))[0]
    doc = parse_file(f)
    chunks = chunk_document(doc, rel_path=f.name)
    assert doc.warnings == [] and chunks
    assert all(len(c.text) <= 1500 for c in chunks)
    # any sentence of the file is citable at its own line
    lines = f.read_text(encoding="utf-8").split("\n")
    n, line = next((i + 1, s) for i, s in enumerate(lines) if len(s.strip()) > 20)
    cit = next(c for c in (make_citation(ch, line.strip()[:20]) for ch in chunks) if c)
    assert cit.lines[0] == n and cit.page == 1


LAW_TXT = (
    "滨江科技园区管理办法\n"
    "\n"
    "第一章　总则\n"
    "第一条　为了规范园区管理，制定本办法。\n"
    "第二条　本办法适用于园区内的企业。\n"
    "\n"
    "第二章 入驻管理\n"
    "第三条　入驻企业应当遵守园区规定。\n"
    "第四条　违反第一章规定的，依照本办法处理。\n"
)


def test_a_plain_text_law_has_its_chapters_as_headings(tmp_path: Path) -> None:
    """A new-user trial: the articles of a .txt law all sat under "(top)"; a line naming a
    numbered division is a heading, a line citing one is not."""
    from corpus.chunker import chunk_document
    from corpus.parsers.text import division_level

    p = tmp_path / "law.txt"
    p.write_bytes(LAW_TXT.encode("utf-8"))
    doc = parse_file(p)
    heads = [(b.text, b.line_start) for b in doc.blocks if b.kind == "heading"]
    assert heads == [("第一章\u3000总则", 3), ("第二章 入驻管理", 7)]
    chunks = chunk_document(doc, rel_path="law.txt", min_chars=1, target_chars=40, max_chars=80)
    third = next(c for c in chunks if "第三条" in c.text)
    assert third.section_path[-1] == "第二章 入驻管理"
    assert division_level("第四条　违反第一章规定的，依照本办法处理。") == 0
    assert division_level("Chapter 3 Setup") == 2 and division_level("PART II") == 1
    assert division_level("Chapter 3 explains the setup.") == 0
