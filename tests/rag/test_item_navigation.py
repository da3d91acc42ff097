"""Item navigation (``rag.items``): the chunks holding the numbered item a question names join
the fusion (a new-user trial: "第五条规定了什么？" on a collection of three laws and a
regulation was "not found" — no retrieved chunk held a 第五条 — and "第5条" likewise).
A real embedded store, keyword-only ingest of generated regulations, the corpus tokenizer."""

from __future__ import annotations

from pathlib import Path

from corpus.labels import find_label
from corpus.qdrant_store import QdrantChunkStore
from gateway.wiring import get_tokenizer
from rag.items import holds_item, item_hits, label_forms
from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only


def _law(name: str, n: int) -> str:
    nums = "一二三四五六七八九"
    lines = [f"# {name}"]
    for k in range(1, n + 1):
        tens, ones = divmod(k, 10)
        num = (("" if tens == 1 else nums[tens - 1]) + "十" if tens else "") + \
            (nums[ones - 1] if ones else "")
        cite = "，违反本法第五条规定的，依法处理" if k > 50 else ""
        lines.append(f"第{num}条 {name}关于第{k}项事务的规定，有关部门应当依法履行职责{cite}。"
                     + "相关单位应当配合。" * 6)
    return "\n".join(lines) + "\n"


def test_the_chunks_opening_the_item_are_found_in_either_numeral_form(tmp_path: Path) -> None:
    docs = write_texts(tmp_path / "docs", {"a.md": _law("甲法", 60), "b.md": _law("乙法", 60)})
    ingest_keyword_only(tmp_path / "data", docs, "laws")
    store = QdrantChunkStore.embedded(tmp_path / "data" / "qdrant")
    try:
        for q in ("第五条规定了什么？", "第5条规定了什么？"):
            label = find_label(q)
            assert label is not None
            assert label_forms(label) == ["第五条", "第5条"]
            got = item_hits(store, get_tokenizer(), "laws", label, 20, None)
            assert {h.chunk.path for h in got} == {"a.md", "b.md"}, q  # each law's 第五条
            assert all(holds_item(h.chunk, label) for h in got)
            assert all("第五条 " in h.chunk.text for h in got)  # not 第五十五条, not a citation
    finally:
        store.close()


def test_an_english_label_and_a_heading_hold_the_item() -> None:
    from corpus.types import Chunk

    label = find_label("What does Clause 4 say?")
    assert label is not None and label_forms(label) == ["Clause 4"]
    head = Chunk("c-1", "d", "contract.md", "Contract", ("Contract", "Clause 4 Service Levels"),
                 1, 1, 1, 3, 0, 40, "Uptime is 99.9 % each month.", "text")
    cites = Chunk("c-2", "d", "contract.md", "Contract", ("Contract", "Clause 7 Disputes"),
                  1, 1, 4, 6, 41, 90, "A dispute under Clause 4 is settled in 10 days.", "text")
    assert holds_item(head, label) and not holds_item(cites, label)
