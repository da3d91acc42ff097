"""Wrapped text (issue 17 item 6): a hard-wrapped text file (every ~40 characters, inside
Chinese and English sentences) and the same text unwrapped give the same chunks, and
citations still name the wrapped file's own line numbers. Inputs are generated here."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.parsers._unwrap import wrap_width

ZH = [
    "网络运营者应当按照网络安全等级保护制度的要求，履行安全保护义务，保障网络免受干扰、破坏"
    "或者未经授权的访问，防止网络数据泄露或者被窃取、篡改。网络日志留存不少于六个月。",
    "设备的保修期为自购买之日起二十四个月，电池的保修期为十二个月；人为损坏、进水和私自拆机"
    "不在保修范围之内。保修服务须凭有效购买凭证办理，维修周期一般为七个工作日。",
    "产品的额定输入电压为交流二百二十伏，额定频率为五十赫兹，额定功率为八千瓦，"
    "峰值功率为十千瓦。长期在高温高湿环境中使用会缩短产品寿命。",
]
EN = [
    "The operator shall keep network logs for no less than six months. Access to the logs is "
    "restricted to the security team, and every access is recorded with the user, the time and "
    "the purpose of the access, so that a later audit can reconstruct who read what.",
    "Warranty covers manufacturing defects for twenty-four months from the date of purchase; "
    "batteries are covered for twelve months. Damage caused by water, drops or unauthorised "
    "repair is not covered, and a proof of purchase is required for every claim.",
]


def _write(tmp: Path, name: str, paras: list[str], width: int, sep: str) -> Path:
    body = sep.join("\n".join(textwrap.wrap(p, width)) if width else p for p in paras)
    f = tmp / name
    f.write_text("产品说明\n\n" + body + "\n", encoding="utf-8")
    return f


def _chunk_texts(path: Path) -> list[str]:
    return [c.text for c in chunk_document(parse_file(path), rel_path="doc.txt", min_chars=40,
                                           max_chars=300, target_chars=200)]


def test_wrapped_and_unwrapped_give_the_same_chunks(tmp_path: Path) -> None:
    for paras, width in ((ZH, 40), (EN, 60), (ZH + EN + ZH, 44)):
        for sep in ("\n\n", "\n"):
            wrapped = _write(tmp_path, "w.txt", paras, width, sep)
            flat = _write(tmp_path, "f.txt", paras, 0, sep)
            assert wrap_width(wrapped.read_text(encoding="utf-8").split("\n"))
            assert not wrap_width(flat.read_text(encoding="utf-8").split("\n"))
            got, want = _chunk_texts(wrapped), _chunk_texts(flat)
            if sep == "\n":
                # paragraphs only one line break apart: a paragraph whose last line is full
                # width and ends a sentence cannot be told from a wrap (the rule joins it)
                got, want = ([re.sub(r"(?<=\.)\s+", " ", re.sub(r"(?<=[。；])\s+", "", t))
                              for t in ts] for ts in (got, want))
            assert got == want, (width, repr(sep))


def test_citations_keep_the_wrapped_files_line_numbers(tmp_path: Path) -> None:
    wrapped = _write(tmp_path, "w.txt", ZH + EN, 40, "\n\n")
    lines = wrapped.read_text(encoding="utf-8").split("\n")
    chunks = chunk_document(parse_file(wrapped), rel_path="w.txt")
    for quote in ("网络日志留存不少于六个月。", "维修周期一般为七个工作日。",
                  "batteries are covered for twelve months."):
        chunk = next(c for c in chunks if quote in c.text)
        cit = make_citation(chunk, quote)
        assert cit is not None
        first, last = cit.lines
        span = "".join(lines[first - 1 : last]).replace(" ", "")
        assert quote.replace(" ", "") in span, (quote, cit.lines)
        assert quote[:3] in lines[first - 1]


def test_short_lines_are_not_joined(tmp_path: Path) -> None:
    """A list, an address block or a poem (short lines) keeps its line breaks."""
    f = tmp_path / "list.txt"
    f.write_text("联系方式\n\n电话：400-800-1234\n邮箱：help@example.com\n地址：上海市浦东新区\n"
                 "- first item of the list\n- second item of the list\n", encoding="utf-8")
    texts = [b.text for b in parse_file(f).blocks]
    assert "电话：400-800-1234\n邮箱：help@example.com" in texts[1]
