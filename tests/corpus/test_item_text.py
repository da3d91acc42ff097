"""What a numbered item says (``corpus.item_text``, ``rag.cases``): new-user trials got one case
of 劳动合同法第三十九条 and the first clause of 第十九条 for "…规定了什么？"; and a line a PDF break
opened with a reference ("第三十九条和第四十条第一项…") was taken for 第三十九条 itself
(``corpus.labels.line_labels``)."""

from __future__ import annotations

from corpus.item_text import asks_whole_item, item_passages
from corpus.labels import asked_item, line_labels
from corpus.types import Chunk

LAW = """第三十八条 用人单位有下列情形之一的，劳动者可以解除劳动合同：
（一）未按照劳动合同约定提供劳动保护或者劳动条件的；
（二）未及时足额支付劳动报酬的。
第三十九条 劳动者有下列情形之一的，用人单位可以解除劳动合同：
（一）在试用期间被证明不符合录用条件的；
（二）严重违反用人单位的规章制度的；
（六）被依法追究刑事责任的。
第四十条 有下列情形之一的，用人单位提前三十日以书面形式通知劳动者本人后，可以解除劳动合同：
"""
REFERENCE = """（三）劳动者依照本法
第三十九条和第四十条第一项、第二项规定的情形，续订劳动合同的。
"""


def _chunk(text: str, ordinal: int = 0) -> Chunk:
    return Chunk(chunk_id=f"law-{ordinal:05d}", doc_id="law", path="law.pdf", ordinal=ordinal,
                 text=text, title="law", section_path=(), page_start=1, page_end=1,
                 line_start=1, line_end=len(text.splitlines()), char_start=0,
                 char_end=len(text))


def test_the_questions_that_ask_what_an_item_says() -> None:
    assert asks_whole_item("劳动合同法第三十九条规定了什么？") is not None
    assert asks_whole_item("第十九条的内容是什么？") is not None
    assert asks_whole_item("What does Clause 4 say?") is not None
    assert asks_whole_item("第三十九条的赔偿标准是多少？") is None  # a value in it
    assert asks_whole_item("试用期最长多久？") is None  # no item


def test_the_item_runs_from_its_label_to_the_next() -> None:
    asked = asked_item("第三十九条规定了什么？")
    assert asked is not None
    (got,) = item_passages(asked, _chunk(LAW))
    assert got[1].startswith("第三十九条 劳动者有下列情形之一的")
    assert got[1].endswith("（六）被依法追究刑事责任的。")
    # it goes on into the next chunk until the next label of its kind
    first, second = LAW.split("（二）严重违反")
    parts = item_passages(asked, _chunk(first), [_chunk("（二）严重违反" + second, 1)])
    assert [p for _, p in parts][1].endswith("（六）被依法追究刑事责任的。")


def test_a_reference_at_a_line_start_opens_no_item() -> None:
    assert line_labels(REFERENCE) == []
    asked = asked_item("第三十九条规定了什么？")
    assert asked is not None and item_passages(asked, _chunk(REFERENCE)) == []
    assert [lb.text for lb in line_labels(LAW)] == ["第三十八条", "第三十九条", "第四十条"]
