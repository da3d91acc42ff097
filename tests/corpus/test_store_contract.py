"""ChunkStore contract suite (Haystack ``testing/document_store.py`` style): one class of tests
run against every backend — the embedded engine (qdrant-edge-py) and the server API through
qdrant-client's local mode — plus the backend-specific behaviour (locks, adding dense vectors)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.errors import StoreError
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk, ChunkStore, SearchFilter, SparseVector
from tests._support.chunks import make_document

pytestmark = pytest.mark.integration

TOK = Tokenizer()


def make_doc(doc_id: str, path: str, texts: list[tuple[tuple[str, ...], str]]) -> list[Chunk]:
    """Chunks of one document, linked and numbered like the chunker's output."""
    return make_document(doc_id, path, texts, linked=True, line_end=2)


def _other_process(tmp_path: Path, call: str) -> subprocess.CompletedProcess[str]:
    """Another Python process opening the embedded store in ``tmp_path`` and calling ``call``
    on it: exit code 3 and the error printed when the store refuses with a ``StoreError``."""
    code = (
        "import sys; from corpus.qdrant_store import QdrantChunkStore\n"
        "from corpus.errors import StoreError\n"
        f"s = QdrantChunkStore.embedded({str(tmp_path / 'qdrant')!r})\n"
        f"try:\n    s.{call}\nexcept StoreError as e:\n"
        "    print(e); sys.exit(3)\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])


def vec(seed: int) -> list[float]:
    """A deterministic 4-d vector (cosine distance)."""
    return [1.0 if j == seed % 4 else 0.1 for j in range(4)]


SPEC = make_doc(
    "a" * 64,
    "spec_zh.md",
    [
        (("产品参数表", "型号与功率"), "型号FW-301的额定功率为8kW，峰值功率10kW。"),
        (("产品参数表", "型号与功率"), "型号FW-3010的额定功率为10.5kW，峰值功率12 kW。"),
        (("产品参数表", "固件"), "当前固件版本v2.3.1，回滚版本v2.3.0。"),
    ],
)
FAQ = make_doc(
    "b" * 64,
    "faq_en.md",
    [
        (("FAQ", "Warranty"), "The warranty period is three years from acceptance."),
        (("FAQ", "Health check"), "Health checks run monthly; an alert fires below 60."),
    ],
)


class ChunkStoreContract:
    """Tests every ``ChunkStore`` backend must pass; subclasses provide ``make_store``."""

    def make_store(self, tmp_path: Path) -> QdrantChunkStore:
        raise NotImplementedError

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[QdrantChunkStore]:
        s = self.make_store(tmp_path)
        yield s
        s.close()

    @pytest.fixture
    def filled(self, store: QdrantChunkStore) -> QdrantChunkStore:
        store.ensure_collection("c", dense_dim=4, embed_model="test-model")
        for doc in (SPEC, FAQ):
            store.upsert_chunks(
                "c",
                doc,
                [TOK.sparse(c.context_text()) for c in doc],
                [vec(c.ordinal + (3 if c.path == "faq_en.md" else 0)) for c in doc],
            )
        return store

    def test_is_a_chunk_store(self, store: QdrantChunkStore) -> None:
        assert isinstance(store, ChunkStore)

    def test_ensure_collection_and_meta(self, store: QdrantChunkStore) -> None:
        assert store.collection_meta("c") == {}
        store.ensure_collection("c", dense_dim=None, embed_model=None)
        store.ensure_collection("c", dense_dim=None, embed_model=None)  # idempotent
        assert store.list_collections() == ["c"]
        meta = store.collection_meta("c")
        assert meta["corpus_version"] == 0 and meta["dense_dim"] is None
        assert store.bump_corpus_version("c") == 1
        assert store.collection_meta("c")["corpus_version"] == 1

    def test_invalid_collection_name(self, store: QdrantChunkStore) -> None:
        with pytest.raises(StoreError, match="invalid collection name"):
            store.ensure_collection("../x", dense_dim=None, embed_model=None)

    def test_model_mismatch_is_refused(self, filled: QdrantChunkStore) -> None:
        with pytest.raises(StoreError, match="test-model"):
            filled.ensure_collection("c", dense_dim=8, embed_model="other")

    def test_get_chunks_in_order_skipping_unknown(self, filled: QdrantChunkStore) -> None:
        got = filled.get_chunks("c", [FAQ[1].chunk_id, "nope-00000", SPEC[0].chunk_id])
        assert got == [FAQ[1], SPEC[0]]

    def test_document_chunks_and_neighbours(self, filled: QdrantChunkStore) -> None:
        assert filled.document_chunks("c", SPEC[0].doc_id) == SPEC
        assert filled.neighbour("c", SPEC[0].chunk_id, 1) == SPEC[1]
        assert filled.neighbour("c", SPEC[2].chunk_id, -2) == SPEC[0]
        assert filled.neighbour("c", SPEC[2].chunk_id, 1) is None
        assert filled.neighbour("c", SPEC[0].chunk_id, -1) is None
        assert filled.neighbour("c", "unknown-00000", 1) is None

    def test_keyword_search_whole_code(self, filled: QdrantChunkStore) -> None:
        hits = filled.keyword_search("c", TOK.sparse_query("FW-301"), 3)
        assert hits[0].chunk == SPEC[0] and hits[0].score > hits[1].score
        hits = filled.keyword_search("c", TOK.sparse_query("FW-3010"), 1)
        assert hits[0].chunk == SPEC[1]

    def test_keyword_search_english_and_empty(self, filled: QdrantChunkStore) -> None:
        assert filled.keyword_search("c", TOK.sparse_query("warranties"), 1)[0].chunk == FAQ[0]
        assert filled.keyword_search("c", SparseVector((), ()), 5) == []

    def test_filters(self, filled: QdrantChunkStore) -> None:
        q = TOK.sparse_query("FW-301 warranty health 固件")
        only_faq = filled.keyword_search("c", q, 10, SearchFilter(paths=("faq_en.md",)))
        assert {h.chunk.path for h in only_faq} == {"faq_en.md"}
        by_id = filled.keyword_search("c", q, 10, SearchFilter(doc_ids=(SPEC[0].doc_id,)))
        assert {h.chunk.doc_id for h in by_id} == {SPEC[0].doc_id}
        sec = filled.keyword_search("c", q, 10, SearchFilter(section_prefix=("产品参数表", "固件")))
        assert [h.chunk for h in sec] == [SPEC[2]]

    def test_dense_and_hybrid(self, filled: QdrantChunkStore) -> None:
        assert filled.dense_search("c", vec(1), 1)[0].chunk == SPEC[1]
        # the query leans towards dim 0 so SPEC[0] is second in the dense list, not in a tie
        # whose order the engine may break either way (that made this test flaky)
        near3 = [0.3, 0.1, 0.1, 1.0]
        hits = filled.hybrid_search("c", near3, TOK.sparse_query("FW-301"), 3, prefetch_k=10)
        assert hits[0].chunk == SPEC[0]  # top of both lists' fusion
        assert FAQ[0].chunk_id in {h.chunk.chunk_id for h in hits}  # dense-only hit fused in
        q = TOK.sparse_query("FW-301")
        assert filled.hybrid_search("c", vec(3), q, 1, weights=(1.0, 0.0))[0].chunk == FAQ[0]
        assert filled.hybrid_search("c", vec(3), q, 1, weights=(0.0, 1.0))[0].chunk == SPEC[0]
        # no vector / empty keyword query: the other search alone
        assert filled.hybrid_search("c", None, TOK.sparse_query("FW-301"), 1)[0].chunk == SPEC[0]
        assert filled.hybrid_search("c", vec(1), SparseVector((), ()), 1)[0].chunk == SPEC[1]
        dense, sparse = filled.prefetch_lists("c", vec(1), TOK.sparse_query("FW-301"), 5)
        assert dense[0].chunk == SPEC[1] and sparse[0].chunk == SPEC[0]

    def test_keyword_only_collection(self, store: QdrantChunkStore) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        store.upsert_chunks("k", FAQ, [TOK.sparse(c.context_text()) for c in FAQ])
        assert store.dense_search("k", vec(0), 3) == []
        assert store.hybrid_search("k", vec(0), TOK.sparse_query("warranty"), 1)[0].chunk == FAQ[0]

    def test_empty_sparse_vector_is_not_sent(self, store: QdrantChunkStore) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        odd = make_doc("c" * 64, "odd.txt", [((), "……")])
        store.upsert_chunks("k", odd, [TOK.sparse(odd[0].text)])
        assert store.get_chunks("k", [odd[0].chunk_id]) == odd

    def test_staged_chunks_are_invisible_until_published(self, store: QdrantChunkStore) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        store.upsert_chunks("k", FAQ, [TOK.sparse(c.context_text()) for c in FAQ], staged=True)
        q = TOK.sparse_query("warranty")
        assert store.keyword_search("k", q, 5) == []
        assert store.count_chunks("k") == 0
        store.publish_document("k", FAQ[0].doc_id)
        assert store.keyword_search("k", q, 5)[0].chunk == FAQ[0]
        assert store.count_chunks("k") == 2

    def test_staged_chunks_published_in_batches_of_ids(self, store: QdrantChunkStore,
                                                       monkeypatch) -> None:
        import corpus.qdrant_store as qs

        monkeypatch.setattr(qs, "PUBLISH_BATCH", 1)  # one id per operation
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        store.upsert_chunks("k", SPEC, [TOK.sparse(c.context_text()) for c in SPEC], staged=True)
        store.publish_document("k", SPEC[0].doc_id, [c.chunk_id for c in SPEC[:2]])
        # the embedded engine publishes the ids given, batch by batch; a Qdrant server does the
        # work outside this process: one operation, the whole document
        in_process = getattr(store.backend, "in_process", False)
        assert store.count_chunks("k") == (2 if in_process else 3)
        store.publish_document("k", SPEC[0].doc_id, [c.chunk_id for c in SPEC])
        assert store.count_chunks("k") == 3 and store.purge_staged("k") == 0
        assert store.keyword_search("k", TOK.sparse_query("FW-301"), 5)

    def test_purge_staged(self, store: QdrantChunkStore) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        store.upsert_chunks("k", FAQ, [TOK.sparse(c.context_text()) for c in FAQ], staged=True)
        assert store.purge_staged("k") == 2
        assert store.get_chunks("k", [FAQ[0].chunk_id]) == []

    def test_delete_document(self, filled: QdrantChunkStore) -> None:
        assert filled.delete_document("c", SPEC[0].doc_id) == 3
        assert filled.delete_document("c", SPEC[0].doc_id) == 0
        assert filled.document_chunks("c", SPEC[0].doc_id) == []
        assert filled.keyword_search("c", TOK.sparse_query("FW-301"), 5) == []
        assert filled.count_chunks("c") == 2

    def test_records(self, store: QdrantChunkStore) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        store.put_record("k", "document", "a.md", {"x": 1})
        store.put_record("k", "document", "b.md", {"x": 2})
        assert store.records("k", "document") == {"a.md": {"x": 1}, "b.md": {"x": 2}}
        store.delete_record("k", "document", "a.md")
        assert store.records("k", "document") == {"b.md": {"x": 2}}
        assert store.count_chunks("k") == 0  # records are not chunks

    def test_drop_collection(self, filled: QdrantChunkStore) -> None:
        filled.drop_collection("c")
        assert filled.list_collections() == [] and filled.collection_meta("c") == {}


class TestEdgeBackend(ChunkStoreContract):
    """The embedded engine (default backend)."""

    def make_store(self, tmp_path: Path) -> QdrantChunkStore:
        return QdrantChunkStore.embedded(tmp_path / "qdrant")

    def test_reopen_keeps_data(self, tmp_path: Path) -> None:
        s = self.make_store(tmp_path)
        s.ensure_collection("c", dense_dim=None, embed_model=None)
        s.upsert_chunks("c", FAQ, [TOK.sparse(c.context_text()) for c in FAQ])
        s.close()
        with self.make_store(tmp_path) as again:
            assert again.document_chunks("c", FAQ[0].doc_id) == FAQ

    def test_dense_vectors_can_be_added_later(self, store: QdrantChunkStore) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        store.upsert_chunks("k", FAQ, [TOK.sparse(c.context_text()) for c in FAQ])
        store.ensure_collection("k", dense_dim=4, embed_model="m")
        assert store.collection_meta("k")["dense_dim"] == 4
        store.upsert_chunks("k", FAQ, [TOK.sparse(c.context_text()) for c in FAQ], [vec(0), vec(1)])
        assert store.dense_search("k", vec(1), 1)[0].chunk == FAQ[1]

    def test_locked_by_another_process(self, tmp_path: Path) -> None:
        s = self.make_store(tmp_path)
        s.ensure_collection("c", dense_dim=None, embed_model=None)
        try:
            out = _other_process(tmp_path, "collection_meta('c')")
        finally:
            s.close()
        assert out.returncode == 3, out.stderr
        assert "held by another LoopGate process" in out.stdout

    def test_refused_second_process_leaves_the_holder_writable(self, tmp_path: Path) -> None:
        """A refused `loopgate ask` beside `loopgate serve` used to open the shard's segments
        before the WAL lock said no, truncating the BM25 tracker journal: the server's next
        flush failed ("Tracker journal … is shorter than expected") and every upload after."""
        s = self.make_store(tmp_path)
        s.ensure_collection("c", dense_dim=None, embed_model=None)
        s.upsert_chunks("c", FAQ[:1], [TOK.sparse(FAQ[0].context_text())])
        s.flush()
        try:
            out = _other_process(tmp_path, "count_chunks('c')")
            assert out.returncode == 3, out.stderr
            s.upsert_chunks("c", FAQ[1:], [TOK.sparse(c.context_text()) for c in FAQ[1:]])
        finally:
            s.close()
        with self.make_store(tmp_path) as again:
            assert again.document_chunks("c", FAQ[0].doc_id) == FAQ


class TestClientBackend(ChunkStoreContract):
    """The Qdrant server API, through qdrant-client's local mode."""

    def make_store(self, tmp_path: Path) -> QdrantChunkStore:
        return QdrantChunkStore.local()

    def test_on_disk_local_mode(self, tmp_path: Path) -> None:
        s = QdrantChunkStore.local(tmp_path / "local")
        s.ensure_collection("c", dense_dim=None, embed_model=None)
        s.upsert_chunks("c", FAQ, [TOK.sparse(c.context_text()) for c in FAQ])
        s.close()
        with QdrantChunkStore.local(tmp_path / "local") as again:
            assert again.document_chunks("c", FAQ[0].doc_id) == FAQ

    def test_adding_dense_to_keyword_only_collection_is_refused(
        self, store: QdrantChunkStore
    ) -> None:
        store.ensure_collection("k", dense_dim=None, embed_model=None)
        with pytest.raises(StoreError, match="re-create"):
            store.ensure_collection("k", dense_dim=4, embed_model="m")
