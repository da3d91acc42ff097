"""HybridRetriever and RagPipeline on a real embedded Qdrant collection built from real documents
(a Chinese law PDF and a DRCD Markdown file from ../shared/eval), with the real model."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus.citations import find_quote
from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from rag.embedder import FastEmbedEmbedder, check_collection, startup_check
from rag.errors import CollectionMismatchError, RetrievalError
from rag.pipeline import RagPipeline
from rag.retriever import HybridRetriever, resolve_filter
from rag.types import FLAG_KEYWORD_ONLY, RetrievalConfig

pytestmark = [pytest.mark.integration, pytest.mark.eval]
COLL = "ragtest"


@pytest.fixture(scope="module")
def store(
    eval_dir: Path, embedder: FastEmbedEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[QdrantChunkStore]:
    root = eval_dir / "zh" / "docs"
    files = [
        root / "pdf/labor_contract_law.pdf",
        *sorted((root / "drcd").glob("*.md"))[:1],
    ]
    st = QdrantChunkStore.embedded(tmp_path_factory.mktemp("rag") / "qdrant")
    report = Ingestor(st, Tokenizer(), embedder, workers=1).ingest_paths(files, COLL, root=root)
    assert report.chunks > 20, report
    yield st
    st.close()


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    tok = Tokenizer()
    tok.warm_up()
    return tok


def test_hybrid_finds_the_clause_with_page_and_confidence(
    store: QdrantChunkStore, tokenizer: Tokenizer, embedder: FastEmbedEmbedder
) -> None:
    r = HybridRetriever(store, tokenizer, embedder).run(
        "劳动者在试用期内想辞职，需要提前几天通知用人单位？", COLL
    )
    assert r.mode == "hybrid" and not r.flags
    assert len(r.items) <= 5 and r.items
    top = [(it.chunk.path, it.pages) for it in r.items[:3]]
    assert any(p == "pdf/labor_contract_law.pdf" and a <= 10 <= b for p, (a, b) in top), top
    assert 0.0 <= r.confidence.value <= 1.0
    assert r.confidence.features.dense_top > 0.5 and r.confidence.features.keyword_top > 0
    assert {"embed", "dense_search", "keyword_search", "fuse", "total"} <= set(r.timings_ms)


def test_modes_and_keyword_only_flag(
    store: QdrantChunkStore, tokenizer: Tokenizer, embedder: FastEmbedEmbedder
) -> None:
    q = "用人单位未与劳动者订立书面劳动合同，应当每月支付几倍的工资？"
    dense = HybridRetriever(store, tokenizer, embedder).run(q, COLL, mode="dense")
    kw = HybridRetriever(store, tokenizer, embedder).run(q, COLL, mode="keyword")
    assert dense.mode == "dense" and all(it.keyword_rank is None for it in dense.items)
    assert kw.mode == "keyword" and all(it.dense_rank is None for it in kw.items)
    no_model = HybridRetriever(store, tokenizer, None).run(q, COLL)
    assert no_model.mode == "keyword" and FLAG_KEYWORD_ONLY in no_model.flags
    assert no_model.items[0].chunk.path == "pdf/labor_contract_law.pdf"
    # without dense hits the dense features are imputed, not read as "cosine 0" (which gave
    # confidence 0.000 and a "not found" for every keyword-only question: new-user trial)
    assert no_model.confidence.value > 0.5, no_model.confidence
    ans = RagPipeline(HybridRetriever(store, tokenizer, None), answer_floor=0.2).run(q, COLL)
    assert ans.found and "二倍" in ans.answer


class _SlowStore:
    """The real store with a delay in front of dense search (an index that stalls)."""

    def __init__(self, inner: QdrantChunkStore, delay: float) -> None:
        self.inner, self.delay = inner, delay

    def dense_search(self, *a: Any, **kw: Any) -> Any:
        time.sleep(self.delay)
        return self.inner.dense_search(*a, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_timeout_returns_what_it_has_flagged(
    store: QdrantChunkStore, tokenizer: Tokenizer, embedder: FastEmbedEmbedder
) -> None:
    cfg = RetrievalConfig(search_timeout_s=0.05)
    slow = HybridRetriever(_SlowStore(store, 0.5), tokenizer, embedder, config=cfg)  # type: ignore[arg-type]
    for r in (slow.run("试用期多久", COLL), await slow.run_async("试用期多久", COLL)):
        assert "dense_search_timeout" in r.flags and r.mode == "keyword"
        assert r.items and r.timings_ms["dense_search"] < 400


def test_filters_and_collection_check(
    store: QdrantChunkStore, tokenizer: Tokenizer, embedder: FastEmbedEmbedder
) -> None:
    flt = resolve_filter(store, COLL, documents=["labor_contract_law.pdf"])
    r = HybridRetriever(store, tokenizer, embedder).run("网络日志", COLL, flt=flt)
    assert r.items and {it.chunk.path for it in r.items} == {"pdf/labor_contract_law.pdf"}
    drcd = resolve_filter(store, COLL, path_prefix="drcd/")
    assert drcd is not None and len(drcd.doc_ids) == 1
    with pytest.raises(RetrievalError):
        resolve_filter(store, COLL, documents=["nope.pdf"])
    assert check_collection(store, COLL, embedder) == "ok"
    assert check_collection(store, "absent", embedder) == "missing"
    assert startup_check(store, embedder) == {COLL: "ok"}
    assert startup_check(store, None) == {COLL: "keyword_only"}
    other = FastEmbedEmbedder("intfloat/multilingual-e5-base")
    with pytest.raises(CollectionMismatchError, match="re-ingest"):
        check_collection(store, COLL, other)
    assert "re-ingest" in startup_check(store, other)[COLL]


async def test_pipeline_extractive_answer_with_verified_citations(
    store: QdrantChunkStore, tokenizer: Tokenizer, embedder: FastEmbedEmbedder
) -> None:
    rag = RagPipeline(HybridRetriever(store, tokenizer, embedder), answer_floor=0.0)
    ans = await rag.run_async("劳动者在试用期内提前几日通知用人单位可以解除劳动合同？", COLL)
    assert ans.found and ans.citations
    for ev in ans.evidence:
        chunk = next(c for c in ans.retrieval.chunks if c.chunk_id == ev.citation.chunk_id)
        assert find_quote(chunk.text, ev.citation.quote) is not None
        assert ev.citation.page >= 1 and ev.citation.lines[0] >= 1
    # the answer is the unit that answers, first and alone; other evidence is "related"
    assert len(ans.citations) == 1 and ans.answer == ans.citations[0].quote
    assert "三日" in ans.answer
    assert [c.quote for c in ans.related] == [e.citation.quote for e in ans.evidence[1:]]
    assert all(c.quote not in ans.answer for c in ans.related)
    # a product the collection does not hold: retrieval returns something, the answer does not
    absent = rag.run("ESP32-PICO-D4 的工作电压范围是多少？", COLL)
    assert not absent.found and not absent.citations and absent.missing == ("esp32-pico-d4",)
    strict = RagPipeline(HybridRetriever(store, tokenizer, embedder), answer_floor=1.0)
    refused = strict.run("劳动者在试用期内提前几日通知用人单位？", COLL)
    assert not refused.found and not refused.citations and refused.retrieval.items
