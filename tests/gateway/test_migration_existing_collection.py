"""Reading a Qdrant collection another pipeline built (LangChain-shaped payload) through a payload
mapping: qdrant-client local mode (the server backend's client API; no Qdrant server can run
here), real e5 embeddings, LoopGate's tokenizer and HybridRetriever on top."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from corpus.errors import StoreError
from corpus.tokenizer import Tokenizer
from corpus.types import ChunkStore, SearchFilter, SparseVector
from gateway.migration import build_existing_store
from gateway.migration.existing_collection import PayloadMapping, QdrantExistingCollectionStore
from gateway.settings import Settings
from rag.embedder import FastEmbedEmbedder

pytestmark = pytest.mark.integration

DOCS = {
    "manuals/pump-x200.pdf": [
        "Pump X200 installation. Mount the pump on a level concrete base and bolt it down.",
        "Warranty. The Pump X200 is covered by a warranty of 24 months from the date of delivery.",
        "Maintenance. Replace the mechanical seal every 8000 operating hours.",
    ],
    "制度/差旅管理办法.pdf": [
        "第一条 为规范公司差旅管理，制定本办法。",
        "第五条 员工出差住宿标准：一线城市每晚不超过600元，其他城市每晚不超过400元。",
        "第九条 出差结束后十个工作日内提交报销单据。",
    ],
}


@pytest.fixture(scope="module")
def embedder(embed_model_path: Path) -> FastEmbedEmbedder:
    emb = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=16)
    emb.warm_up()
    return emb


@pytest.fixture(scope="module")
def client(embedder: FastEmbedEmbedder) -> Iterator[QdrantClient]:
    """Two foreign collections: an unnamed dense vector only; a named dense vector plus a
    sparse vector built with LoopGate's tokenizer."""
    qc = QdrantClient(location=":memory:")
    texts = [(path, i, t) for path, chunks in DOCS.items() for i, t in enumerate(chunks)]
    vectors = embedder.embed_passages([t for _, _, t in texts])
    qc.create_collection(
        "docs_v3", vectors_config=qm.VectorParams(size=384, distance=qm.Distance.COSINE)
    )
    qc.upsert(
        "docs_v3",
        [
            qm.PointStruct(
                id=n + 1,
                vector=v,
                payload={"page_content": t, "metadata": {"source": p, "page": i}},
            )
            for n, ((p, i, t), v) in enumerate(zip(texts, vectors, strict=True))
        ],
    )
    tok = Tokenizer()
    qc.create_collection(
        "kb_hybrid",
        vectors_config={"text-dense": qm.VectorParams(size=384, distance=qm.Distance.COSINE)},
        sparse_vectors_config={"bm25": qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
    )
    points = []
    for n, ((p, i, t), v) in enumerate(zip(texts, vectors, strict=True)):
        sv = tok.sparse(t)
        points.append(
            qm.PointStruct(
                id=f"00000000-0000-0000-0000-{n + 1:012d}",
                vector={
                    "text-dense": v,
                    "bm25": qm.SparseVector(indices=list(sv.indices), values=list(sv.values)),
                },
                payload={
                    "body": t,
                    "file": p,
                    "pg": i + 1,
                    "seq": i,
                    "doc": f"doc-{p}",
                    "heading": ["Chapter 1", f"S{i}"],
                },
            )
        )
    qc.upsert("kb_hybrid", points)
    yield qc
    qc.close()


@pytest.fixture(scope="module")
def store(client: QdrantClient) -> QdrantExistingCollectionStore:
    return QdrantExistingCollectionStore(
        client,
        {
            "legacy": PayloadMapping(
                "docs_v3",
                text="page_content",
                path="metadata.source",
                page="metadata.page",
                page_base=0,
                embed_model="intfloat/multilingual-e5-small",
            ),
            "hybrid": PayloadMapping(
                "kb_hybrid",
                text="body",
                path="file",
                doc_id="doc",
                page="pg",
                section="heading",
                ordinal="seq",
                dense_vector="text-dense",
                sparse_vector="bm25",
            ),
            "missing": PayloadMapping("nope", text="t"),
        },
    )


def test_read_side_of_the_chunk_store(store: QdrantExistingCollectionStore) -> None:
    assert isinstance(store, ChunkStore)
    assert sorted(store.list_collections()) == ["hybrid", "legacy"]
    meta = store.collection_meta("legacy")
    assert meta["dense_dim"] == 384 and meta["embed_model"] == "intfloat/multilingual-e5-small"
    assert meta["corpus_version"] == "ext-6"
    assert store.collection_meta("hybrid")["dense_dim"] == 384
    chunks = store.get_chunks("legacy", ["2", "not-an-id", "999", "1"])
    assert [c.chunk_id for c in chunks] == ["2", "1"]
    assert chunks[0].path == "manuals/pump-x200.pdf" and chunks[0].page_start == 2  # 0-based page 1
    assert chunks[0].doc_id == "manuals/pump-x200.pdf" and chunks[0].title == "pump-x200.pdf"
    doc = store.document_chunks("legacy", "manuals/pump-x200.pdf")
    assert [c.chunk_id for c in doc] == ["1", "2", "3"]
    assert store.neighbour("legacy", "2", 1).chunk_id == "3"  # type: ignore[union-attr]
    assert store.neighbour("legacy", "1", -1) is None
    h = store.document_chunks("hybrid", "doc-制度/差旅管理办法.pdf")
    assert [c.ordinal for c in h] == [0, 1, 2] and h[1].section_path == ("Chapter 1", "S1")
    assert store.neighbour("hybrid", h[1].chunk_id, -1).chunk_id == h[0].chunk_id  # type: ignore[union-attr]


def test_dense_keyword_and_hybrid_search(
    store: QdrantExistingCollectionStore, embedder: FastEmbedEmbedder
) -> None:
    q = embedder.embed_query("How long is the warranty of the X200 pump?")
    top = store.dense_search("legacy", q, 3)
    assert "24 months" in top[0].chunk.text
    tok = Tokenizer()
    assert (
        store.keyword_search("legacy", tok.sparse_query("warranty"), 3) == []
    )  # no compatible sparse vector
    kw = store.keyword_search("hybrid", tok.sparse_query("住宿标准 一线城市"), 3)
    assert "600元" in kw[0].chunk.text
    hy = store.hybrid_search(
        "hybrid", embedder.embed_query("出差住宿每晚多少钱"), tok.sparse_query("出差住宿"), 3
    )
    assert "600元" in hy[0].chunk.text
    only = store.dense_search("legacy", q, 5, SearchFilter(paths=("制度/差旅管理办法.pdf",)))
    assert {h.chunk.path for h in only} == {"制度/差旅管理办法.pdf"}
    assert (
        store.hybrid_search("legacy", q, SparseVector((), ()), 2)[0].chunk.chunk_id
        == top[0].chunk.chunk_id
    )


def test_hybrid_retriever_answers_from_the_existing_index(
    store: QdrantExistingCollectionStore, embedder: FastEmbedEmbedder
) -> None:
    from rag.retriever import HybridRetriever

    retriever = HybridRetriever(store, Tokenizer(), embedder)
    result = retriever.run("Which seal must be replaced and how often?", "legacy")
    assert "8000 operating hours" in result.items[0].chunk.text
    assert result.items[0].chunk.path == "manuals/pump-x200.pdf"


def test_read_only_and_bad_input(
    store: QdrantExistingCollectionStore, client: QdrantClient
) -> None:
    with pytest.raises(StoreError, match="read-only"):
        store.upsert_chunks("legacy", [], [])
    with pytest.raises(StoreError, match="read-only"):
        store.delete_document("legacy", "x")
    with pytest.raises(StoreError, match="no payload mapping"):
        store.get_chunks("unknown", ["1"])
    with pytest.raises(StoreError, match="Qdrant failed"):
        store.collection_meta("missing")
    with pytest.raises(StoreError, match="unknown payload-mapping key"):
        PayloadMapping.from_dict({"qdrant_collection": "a", "text": "t", "pages": "p"})
    with pytest.raises(StoreError, match="at least qdrant_collection and text"):
        PayloadMapping.from_dict({"qdrant_collection": "a"})


def test_settings_build_the_store(monkeypatch: pytest.MonkeyPatch, client: QdrantClient) -> None:
    monkeypatch.setenv(
        "LOOPGATE_EXISTING_COLLECTIONS",
        '{"legacy": {"qdrant_collection": "docs_v3", "text": "page_content",'
        ' "path": "metadata.source", "page": "metadata.page", "page_base": 0}}',
    )
    built = build_existing_store(Settings(), client)
    assert built.get_chunks("legacy", ["4"])[0].page_start == 1
    with pytest.raises(StoreError, match="needs LOOPGATE_QDRANT_URL"):
        build_existing_store(Settings())
