"""ExistingCollectionsOverlay: LoopGate's own store (qdrant-client local mode) and a mapped
existing collection behind one ChunkStore."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from corpus.errors import StoreError
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk, ChunkStore
from gateway.migration.existing_collection import PayloadMapping, QdrantExistingCollectionStore
from gateway.migration.store_overlay import ExistingCollectionsOverlay, with_existing_collections
from gateway.settings import Settings

pytestmark = pytest.mark.integration


@pytest.fixture
def overlay() -> Iterator[ExistingCollectionsOverlay]:
    main = QdrantChunkStore.local()
    tok = Tokenizer()
    chunk = Chunk(
        "d1-00000",
        "d1" * 32,
        "own.md",
        "Own",
        ("Intro",),
        1,
        1,
        1,
        2,
        0,
        30,
        "LoopGate's own pump manual text.",
    )
    main.ensure_collection("own", dense_dim=None, embed_model=None)
    main.upsert_chunks("own", [chunk], [tok.sparse(chunk.text)])
    client = QdrantClient(location=":memory:")
    client.create_collection(
        "docs_v3", vectors_config=qm.VectorParams(size=3, distance=qm.Distance.COSINE)
    )
    client.upsert(
        "docs_v3",
        [qm.PointStruct(id=1, vector=[1, 0, 0], payload={"t": "legacy chunk", "src": "a.pdf"})],
    )
    existing = QdrantExistingCollectionStore(
        client, {"legacy": PayloadMapping("docs_v3", text="t", path="src")}
    )
    store = ExistingCollectionsOverlay(main, existing)
    yield store
    store.close()


def test_routes_by_collection(overlay: ExistingCollectionsOverlay) -> None:
    assert isinstance(overlay, ChunkStore)
    assert sorted(overlay.list_collections()) == ["legacy", "own"]
    assert overlay.get_chunks("legacy", ["1"])[0].text == "legacy chunk"
    assert overlay.get_chunks("own", ["d1-00000"])[0].path == "own.md"
    assert overlay.dense_search("legacy", [1, 0, 0], 1)[0].chunk.path == "a.pdf"
    assert (
        overlay.keyword_search("own", Tokenizer().sparse_query("pump manual"), 1)[0].chunk.chunk_id
        == "d1-00000"
    )
    assert overlay.collection_meta("legacy")["corpus_version"] == "ext-1"
    assert overlay.records("legacy", "document") == {}


def test_writes_to_an_existing_collection_are_refused(overlay: ExistingCollectionsOverlay) -> None:
    with pytest.raises(StoreError, match="existing collection mapped read-only"):
        overlay.delete_document("legacy", "x")
    with pytest.raises(StoreError, match="read-only"):
        overlay.upsert_chunks("legacy", [], [])
    assert overlay.delete_document("own", "nothing") == 0  # LoopGate's own store still writes


def test_nothing_mapped_returns_the_store_itself() -> None:
    sentinel = object()
    assert with_existing_collections(Settings(), sentinel) is sentinel
