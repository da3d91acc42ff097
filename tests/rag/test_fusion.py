"""Weighted RRF, the document-level step and adjacent-chunk merging (pure functions)."""

from __future__ import annotations

import pytest

from corpus.types import Chunk, SearchHit
from rag.fusion import document_priors, fuse, merge_adjacent, title_match


def _chunk(
    doc: str, ordinal: int, section: tuple[str, ...] = ("S",), title: str = "", path: str = ""
) -> Chunk:
    cid = f"{doc}-{ordinal:05d}"
    return Chunk(
        chunk_id=cid,
        doc_id=doc,
        path=path or f"{doc}.md",
        title=title or doc,
        section_path=section,
        page_start=1,
        page_end=1,
        line_start=1,
        line_end=2,
        char_start=0,
        char_end=10,
        text=f"text of {cid}",
        ordinal=ordinal,
        prev_id=f"{doc}-{ordinal - 1:05d}" if ordinal else None,
        next_id=f"{doc}-{ordinal + 1:05d}",
    )


def _hits(*chunks: Chunk) -> list[SearchHit]:
    return [SearchHit(c, 1.0 - i / 10) for i, c in enumerate(chunks)]


def test_weighted_rrf_scores_and_order() -> None:
    a, b, c = _chunk("a", 0), _chunk("b", 0), _chunk("c", 0)
    items = fuse(_hits(a, b), _hits(b, c), top_k=5, rrf_k=60, merge=False)
    assert [i.chunk.chunk_id for i in items] == [b.chunk_id, a.chunk_id, c.chunk_id]
    assert items[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert (items[0].dense_rank, items[0].keyword_rank) == (2, 1)
    assert items[1].keyword_score is None and items[2].dense_score is None
    weighted = fuse(_hits(a, b), _hits(c, b), top_k=5, rrf_k=60, keyword_weight=3.0, merge=False)
    assert [i.chunk for i in weighted] == [b, c, a]  # 4/62 > 3/61 > 1/61
    assert weighted[1].score == pytest.approx(3 / 61)


def test_dense_only_and_keyword_only_keep_source_order() -> None:
    a, b = _chunk("a", 0), _chunk("b", 0)
    assert [i.chunk for i in fuse(_hits(a, b), [], top_k=5)] == [a, b]
    assert [i.chunk for i in fuse([], _hits(b, a), top_k=5)] == [b, a]
    assert fuse([], [], top_k=5) == []


def test_adjacent_chunks_of_one_section_merge_and_free_a_slot() -> None:
    a0, a1, a3, b0, c0 = (
        _chunk("a", 0),
        _chunk("a", 1),
        _chunk("a", 3),
        _chunk("b", 0),
        _chunk("c", 0),
    )
    items = fuse(_hits(a1, b0, a0, a3, c0), [], top_k=3)
    assert [i.chunk_ids for i in items] == [
        (a0.chunk_id, a1.chunk_id),
        (b0.chunk_id,),
        (a3.chunk_id,),
    ]
    assert items[0].dense_rank == 1 and "text of a-00000\ntext of a-00001" == items[0].text
    other_section = _chunk("a", 2, section=("T",))
    assert len(merge_adjacent(fuse(_hits(a1, other_section), [], top_k=5, merge=False), 5)) == 2


def test_title_match_and_document_step() -> None:
    assert title_match(
        ["3m", "2018", "capex"], "", "financebench/3M_2018_10K.pdf"
    ) == pytest.approx(2 / 3)
    assert title_match(["公司法"], "中华人民共和国公司法", "zh/pdf/law.pdf") == 1.0
    assert title_match([], "x", "y") == 0.0
    right = _chunk("r", 0, title="3M 2018 10-K", path="financebench/3M_2018_10K.pdf")
    wrong = _chunk("w", 0, title="Pepsico 2022 10-K", path="financebench/PEPSICO_2022_10K.pdf")
    priors = document_priors(
        {wrong.chunk_id: 0.02, right.chunk_id: 0.01},
        {wrong.chunk_id: wrong, right.chunk_id: right},
        ["3m", "2018"],
    )
    assert priors["r"] == pytest.approx(1.5) and priors["w"] == pytest.approx(1.0)
    plain = fuse(_hits(wrong, right), [], top_k=2, key_terms=["3m", "2018"])
    boosted = fuse(_hits(wrong, right), [], top_k=2, key_terms=["3m", "2018"], doc_weight=2.0)
    assert plain[0].chunk is wrong and boosted[0].chunk is right


def test_evidence_units_keep_wrapped_sentences_whole() -> None:
    from corpus.evidence import quote_sentences as _sentences
    from rag.extractive import display_text

    text = (
        "第三十七条 劳动者提前三十日以书面形式通知用人单位，\n\n可以解除劳动合同。"
        "劳动者在试用期内提前三日通知用人单位，\n可以解除劳动合同。\n第三十八条 用人单位有下列情形"
    )
    units = _sentences(text)
    assert units[1] == "劳动者在试用期内提前三日通知用人单位，\n可以解除劳动合同。"
    assert all(u in text for u in units) and units[2].startswith("第三十八条")
    assert display_text(units[1]) == "劳动者在试用期内提前三日通知用人单位，可以解除劳动合同。"
    assert display_text("five\nyears.") == "five years."


def test_markdown_headings_are_boundaries_not_evidence() -> None:
    from corpus.evidence import quote_sentences as _sentences

    text = (
        "# 退货政策 Return policy\n\n## 期限\n购买后 7 天内可无理由退货。"
        "Returns are accepted within 7 days."
    )
    assert _sentences(text) == [
        "购买后 7 天内可无理由退货。",
        "Returns are accepted within 7 days.",
    ]


def test_heading_lines_of_the_section_path_are_not_glued_to_sentences() -> None:
    from rag.extractive import evidence_units

    text = "退货政策 Return policy\n\n期限\n\n购买后 7 天内可无理由退货。Returns within 7 days."
    c = _chunk("p", 0, section=("退货政策 Return policy", "期限"))
    chunk = Chunk(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "text": text})
    assert evidence_units(chunk) == ["购买后 7 天内可无理由退货。", "Returns within 7 days."]


@pytest.mark.parametrize("merge", [True, False])
def test_identical_text_takes_one_top_k_place(merge: bool) -> None:
    """Case 16: a copy of a chunk (another document, CRLF line endings, trailing blanks,
    decomposed accents) is dropped and the next candidate moves up."""
    from dataclasses import replace

    a = replace(_chunk("a", 0), text="Port 8443.\nLogs: 14 days. Café")
    copy = replace(_chunk("b", 0), text="Port 8443.  \r\nLogs: 14 days. Cafe\u0301\r\n")
    other = replace(_chunk("c", 0), text="Port 8443.\nLogs: 30 days. Café")
    last = _chunk("d", 0)
    items = fuse(_hits(a, copy, other, last), [], top_k=3, merge=merge)
    assert [it.chunk.doc_id for it in items] == ["a", "c", "d"]
    assert [it.chunk.doc_id for it in fuse(_hits(a, other), [], top_k=3, merge=merge)] == [
        "a",
        "c",
    ]
