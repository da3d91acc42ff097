"""Structure-following chunker: sections, sizes, sentence splits, tables, offsets, ids."""

from __future__ import annotations

import pickle

import pytest

from corpus.chunker import chunk_document, document_text, is_junk_line
from corpus.parsers._common import lines_block, render_table
from corpus.types import Block, ParsedDocument


def _doc(blocks: list[Block], doc_id: str = "ab" * 32) -> ParsedDocument:
    return ParsedDocument("x.pdf", doc_id, "Doc", "pdf", 9, blocks)


def _h(text: str, level: int, page: int = 1, line: int = 1) -> Block:
    return Block("heading", text, page, line, line, page, level, line_map=((0, page, line),))


def _p(text: str, page: int = 1, line: int = 1) -> Block:
    return lines_block("text", [(t, line + i) for i, t in enumerate(text.split("\n"))], page=page)


def test_one_section_per_chunk_and_fields() -> None:
    blocks = [
        _h("Chapter 1", 1, 1, 1),
        _h("1.1 Scope", 2, 1, 2),
        _p("Scope text. " * 20, 1, 3),
        _h("1.2 Terms", 2, 2, 1),
        _p("Terms text. " * 20, 2, 2),
    ]
    chunks = chunk_document(_doc(blocks), rel_path="docs/x.pdf")
    assert [c.section_path for c in chunks] == [
        ("Chapter 1", "1.1 Scope"),
        ("Chapter 1", "1.2 Terms"),
    ]
    first, second = chunks
    # the heading-only chapter title is carried into the first sub-section's chunk
    assert first.text.startswith("Chapter 1\n\n1.1 Scope\n\nScope text.")
    assert (first.page_start, first.page_end, first.line_start, first.line_end) == (1, 1, 1, 3)
    assert (second.page_start, second.line_start) == (2, 1)
    assert first.chunk_id == "abababababababab-00000" and second.ordinal == 1
    assert (first.prev_id, first.next_id, second.prev_id, second.next_id) == (
        None,
        second.chunk_id,
        first.chunk_id,
        None,
    )
    text, _ = document_text(_doc(blocks))
    for c in chunks:
        assert text[c.char_start : c.char_end] == c.text
        assert c.path == "docs/x.pdf" and c.title == "Doc" and c.kind == "text"
    assert pickle.loads(pickle.dumps(chunks)) == chunks


def test_long_sections_split_at_sentences_within_limits() -> None:
    zh = "".join(f"第{i}句说明网关的容量规划与磁盘使用策略，需要仔细阅读。" for i in range(120))
    en = " ".join(
        f"Sentence number {i} explains the gateway capacity planning rules." for i in range(60)
    )
    doc = _doc([_h("长节", 1), _p(zh, 1, 2), _h("Long", 1, 3, 1), _p(en, 3, 2)])
    chunks = chunk_document(doc, rel_path="x")
    assert len(chunks) > 4
    for c in chunks:
        assert 80 <= len(c.text) <= 1500
        body = c.text.split("\n\n")[-1]
        assert body.endswith(("。", ".")), body[-20:]
    # sizes near target, and every sentence kept exactly once
    joined = "".join(c.text for c in chunks if c.section_path == ("长节",))
    assert joined.count("需要仔细阅读。") == 120


def test_fragments_merge_and_junk_is_dropped() -> None:
    doc = _doc(
        [
            _h("Sec", 1, 1, 1),
            _p("A real paragraph that is long enough to stand on its own as a chunk. " * 8, 1, 2),
            _p("Short tail note.", 1, 3),
            _p("12", 1, 4),
            _p("Contents ........ 7", 1, 5),
        ]
    )
    chunks = chunk_document(doc, rel_path="x")
    assert len(chunks) == 1
    assert chunks[0].text.endswith("Short tail note.")
    assert (
        is_junk_line("- 3 -") and is_junk_line("Page 3 of 9") and is_junk_line("第 2 页 / 共 9 页")
    )
    assert not is_junk_line("FW-301") and not is_junk_line("8443 is the port")


def test_short_whole_section_keeps_its_heading() -> None:
    doc = _doc(
        [_h("Main", 1), _p("x " * 300, 1, 2), _h("Notes", 2, 1, 3), _p("Only failover.", 1, 4)]
    )
    chunks = chunk_document(doc, rel_path="x")
    assert chunks[-1].section_path == ("Main", "Notes")
    assert chunks[-1].text == "Notes\n\nOnly failover."


@pytest.mark.parametrize("max_chars", [300, 500, 1000, 2000])
def test_long_table_row_groups_repeat_the_header(max_chars: int) -> None:
    rows = [["Node", "Rack", "IP"]] + [
        [f"node-{i:02d}", f"R{i:02d}", f"10.0.0.{i}"] for i in range(60)
    ]
    table = render_table(rows, [(1 + i // 30, 1 + i % 30) for i in range(len(rows))])
    assert table is not None
    doc = _doc([_h("Inventory", 1), _p("The table lists every node.", 1, 1), table])
    target = min(1000, max_chars)
    chunks = chunk_document(doc, rel_path="x", max_chars=max_chars, target_chars=target)
    seen: list[str] = []
    for c in chunks:
        lines = c.text.split("\n")
        rowlines = [ln for ln in lines if ln.startswith("| node-")]
        if not rowlines:
            continue
        first_pipe = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
        assert lines[first_pipe : first_pipe + 2] == ["| Node | Rack | IP |", "|---|---|---|"]
        assert c.kind == "table"
        seen.extend(rowlines)
        assert len(c.text) <= max_chars + 80
    assert seen == [f"| node-{i:02d} | R{i:02d} | 10.0.0.{i} |" for i in range(60)]
    # rows 29.. sit on page 2: a chunk of page-2 rows starts on page 2 (header from page 1)
    last = chunks[-1]
    assert last.page_end == 3 and last.page_start >= 2 or len(chunks) == 1


def test_bad_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        chunk_document(_doc([_p("x")]), rel_path="x", min_chars=500, target_chars=100)


def test_chunk_ids_are_stable_and_documents_never_mix() -> None:
    a = _doc([_p("alpha " * 100)], "11" * 32)
    b = _doc([_p("beta " * 100)], "22" * 32)
    ca, cb = chunk_document(a, rel_path="a"), chunk_document(b, rel_path="b")
    assert chunk_document(a, rel_path="a") == ca
    assert all(c.doc_id == "11" * 32 and "beta" not in c.text for c in ca)
    assert all(c.chunk_id.startswith("2222222222222222-") for c in cb)


def test_table_with_an_over_long_header_is_split_by_lines_not_repeated() -> None:
    rows = [["label " * 200, "x"]] + [[f"r{i}", str(i)] for i in range(200)]
    table = render_table(rows)
    assert table is not None
    chunks = chunk_document(_doc([table]), rel_path="x")
    assert sum("label label" in c.text for c in chunks) == 1
    assert all(len(c.text) <= 1500 for c in chunks)


def test_a_run_of_headings_is_still_bounded() -> None:
    """Body text mis-read as headings (a PDF exhibit in a larger font) must not pile up."""
    blocks = [
        _h(f"Line {i} of an exhibit set in a larger font than the body " * 2, 2, 1, i)
        for i in range(1, 120)
    ] + [_p("end.", 2, 1)]
    chunks = chunk_document(_doc(blocks), rel_path="x")
    assert len(chunks) > 5 and all(len(c.text) <= 1500 + 80 for c in chunks)


def test_one_huge_line_splits_without_recursion(tmp_path) -> None:
    """A 2 MB text on one line (no paragraph or sentence boundary) used to overflow the stack
    (RecursionError reported as ``corrupt``); it splits at spaces, every word kept once."""
    from pathlib import Path

    from corpus.parsers import parse_file

    f = Path(tmp_path) / "long.txt"
    f.write_text("word " * 400_000, encoding="utf-8")
    chunks = chunk_document(parse_file(f), rel_path="long.txt")
    assert all(len(c.text) <= 1500 for c in chunks)
    assert sum(c.text.count("word") for c in chunks) == 400_000
