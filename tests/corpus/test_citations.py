"""Citation check: verbatim quotes after whitespace/NFKC normalisation, mapped to page and line."""

from __future__ import annotations

from corpus.chunker import chunk_document
from corpus.citations import find_quote, make_citation, normalise_ws
from corpus.parsers._common import lines_block, render_table
from corpus.types import Block, Chunk, ParsedDocument


def _chunk(text: str, line_map: tuple[tuple[int, int, int], ...]) -> Chunk:
    return Chunk(
        chunk_id="c-00000",
        doc_id="d" * 64,
        path="a.pdf",
        title="A",
        section_path=("S",),
        page_start=line_map[0][1],
        page_end=line_map[-1][1],
        line_start=line_map[0][2],
        line_end=line_map[-1][2],
        char_start=0,
        char_end=len(text),
        text=text,
        line_map=line_map,
    )


def test_normal_form() -> None:
    assert normalise_ws("Con\ufb01guration   ﬁles\n\tare") == "Configuration files are"
    assert (
        normalise_ws("磁盘使用率超过 85% 时，\n网关停止接收") == "磁盘使用率超过85%时,网关停止接收"
    )
    assert normalise_ws("ＦＷ－３０１　型号") == "FW-301型号"
    assert normalise_ws("  \n ") == ""
    # a full-width comma ends a CJK clause: the break after it is not a space
    assert normalise_ws("新文档，\n\nFact C") == normalise_ws("新文档，Fact C") == "新文档,Fact C"


def test_quote_across_lines_and_pages_cjk() -> None:
    text = (
        "事实C：当磁盘使用率超过 85% 时，网关停止接收新文档，\n\n"
        "并向管理员发送告警邮件。Fact C: alert."
    )
    chunk = _chunk(text, ((0, 3, 35), (text.index("并"), 4, 1)))
    cit = make_citation(chunk, "网关停止接收新文档，并向管理员发送告警邮件")
    assert cit is not None
    assert (cit.page, cit.page_end, cit.lines) == (3, 4, (35, 1))
    assert cit.quote == "网关停止接收新文档，并向管理员发送告警邮件"  # display form: no block break
    only_p4 = make_citation(chunk, "并向管理员发送告警邮件。")
    assert only_p4 is not None and (only_p4.page, only_p4.lines) == (4, (1, 1))
    assert cit.chunk_id == "c-00000" and cit.path == "a.pdf" and cit.section_path == ("S",)
    assert cit.doc_id == "d" * 64


def test_ligature_text_and_plain_quote_line_up() -> None:
    lines = [
        "Section 2.3 Conﬁguration ﬁles",
        "The oﬃce gateway reloads its conﬁguration every ﬁve minutes.",
        "Traﬃc shaping: the ﬂow limit is 200 requests per second.",
    ]
    block = lines_block("text", [(t, i + 1) for i, t in enumerate(lines)])
    chunk = _chunk(block.text, block.line_map)
    cit = make_citation(chunk, "reloads its configuration every five minutes")
    assert cit is not None and cit.lines == (2, 2)
    assert cit.quote == "reloads its conﬁguration every ﬁve minutes"
    cit = make_citation(chunk, "the flow limit is 200 requests per second")
    assert cit is not None and cit.lines == (3, 3)


def test_not_verbatim_is_refused() -> None:
    chunk = _chunk("The default port is 8443.", ((0, 1, 1),))
    assert make_citation(chunk, "The default port is 8444") is None
    assert make_citation(chunk, "default  port\nis") is not None
    assert make_citation(chunk, "") is None and make_citation(chunk, "   ") is None
    assert make_citation(chunk, "8") is None and make_citation(chunk, "84") is not None
    assert make_citation(chunk, "the default port") is None  # case is kept
    assert find_quote("a b", "ab") is None  # spaces between Latin words matter


def test_table_row_quote_in_a_continued_row_group() -> None:
    rows = [["型号 Model", "额定功率 Power", "保修 Warranty"]] + [
        [f"FW-{300 + i}", f"{i}kW", f"{i % 5 + 1}年"] for i in range(1, 80)
    ]
    pos = [(1, 5 + i) if i < 40 else (2, i - 38) for i in range(len(rows))]
    table = render_table(rows, pos)
    assert table is not None
    doc = ParsedDocument("t.pdf", "e" * 64, "T", "pdf", 2, [table])
    chunks = chunk_document(doc, rel_path="t.pdf")
    target = next(c for c in chunks if "| FW-370 |" in c.text)
    assert target.text.startswith(
        "| 型号 Model | 额定功率 Power | 保修 Warranty |\n|---|---|---|\n"
    )
    cit = make_citation(target, "| FW-370 | 70kW | 1年 |")
    assert cit is not None and (cit.page, cit.lines) == (2, (32, 32))
    head = make_citation(target, "额定功率 Power")
    assert head is not None and (head.page, head.lines) == (1, (5, 5))
    assert (target.page_start, target.page_end) == (2, 2)


def test_chunk_without_line_map_counts_newlines() -> None:
    chunk = Chunk("c", "d", "a.md", "A", (), 1, 1, 10, 12, 0, 5, "one\ntwo\nthree")
    cit = make_citation(chunk, "two three")
    assert cit is not None and cit.lines == (11, 12)


def test_block_defaults_are_mapped() -> None:
    block = Block("text", "a line\nsecond line", page=3, line_start=7, line_end=8)
    doc = ParsedDocument("p.pdf", "f" * 64, "P", "pdf", 3, [block])
    (chunk,) = chunk_document(doc, rel_path="p.pdf", min_chars=5, target_chars=50, max_chars=60)
    cit = make_citation(chunk, "second line")
    assert cit is not None and (cit.page, cit.lines) == (3, (8, 8))


def test_location_text_names_both_pages_of_a_quote_across_a_page_break():
    from corpus.citations import location_text

    # a fresh user read "p.8 | lines 132-2" as a backwards range
    assert location_text(8, 9, (132, 2)) == "p.8 line 132 – p.9 line 2"
    assert location_text(4, 4, (3, 7)) == "p.4 | lines 3-7"
    assert location_text(4, 0, [5, 5]) == "p.4 | line 5"
