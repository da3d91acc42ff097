"""Large files are written batch by batch (issue 20 item 4): the vectors of one batch at a time,
progress within the file (parsing → embedding n of m → switching), and a cancel between two
batches that rolls the file back (no staged chunk left, the previous version still served)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from corpus.catalogue import Catalogue
from corpus.errors import IngestCancelled
from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _stream_every_document(monkeypatch) -> None:
    """Every document here is chunked as a stream (by default only those over
    ``TUNING.ingest.stream_chars``)."""
    import corpus._ingest_prepare as prepare
    from corpus.tuning import TUNING

    ingest = TUNING.ingest.model_copy(update={"stream_chars": 0})
    monkeypatch.setattr(prepare, "TUNING", TUNING.model_copy(update={"ingest": ingest}))


def _doc(tag: str, sections: int) -> str:
    return f"# Manual {tag}\n\n" + "\n\n".join(
        f"## Section {i}\n\n" + (f"Model {tag.upper()}-{i} runs for {i + 3} hours on one charge "
                                 f"and weighs {i + 1} kilograms in version {tag}. ") * 12
        for i in range(sections)
    ) + "\n"


def _staged(store: QdrantChunkStore, collection: str) -> int:
    return store.purge_staged(collection)  # counts (and deletes) what a run left staged


def test_a_file_is_written_batch_by_batch_with_progress(store, tmp_path: Path) -> None:
    path = tmp_path / "big.md"
    path.write_text(_doc("a", 40), encoding="utf-8")
    steps: list[tuple[str, int, int]] = []
    ing = Ingestor(store, Tokenizer(), workers=1, write_batch=8)
    rep = ing.ingest_paths([path], "c", step=lambda ph, _p, d, t: steps.append((ph, d, t)))
    n = rep.files[0].chunks
    assert rep.files[0].status == "ingested" and n > 16, rep.files
    assert steps[0] == ("parsing", 0, 0) and steps[-1] == ("switching", n, n)
    written = [d for ph, d, t in steps if ph == "embedding"]
    assert written == sorted(written) and written[0] == 8 and written[-1] == n
    assert len(written) == -(-n // 8)  # one step per batch of 8
    assert store.count_chunks("c") == n and _staged(store, "c") == 0
    hits = store.keyword_search("c", Tokenizer().sparse_query("A-17"), 3)
    assert hits and "A-17" in hits[0].chunk.text


def test_cancel_between_batches_rolls_the_file_back(store, tmp_path: Path) -> None:
    path = tmp_path / "manual.md"
    path.write_text(_doc("v1", 3), encoding="utf-8")
    ing = Ingestor(store, Tokenizer(), workers=1, write_batch=4)
    first = ing.ingest_paths([path], "c").files[0]
    path.write_text(_doc("v2", 40), encoding="utf-8")  # a new, large version of the file
    cancel = threading.Event()

    def step(phase: str, _p: str, done: int, _t: int) -> None:
        if phase == "embedding" and done >= 12:
            cancel.set()  # as a SIGTERM would, from another thread

    with pytest.raises(IngestCancelled):
        ing.ingest_paths([path], "c", step=step, cancel=cancel)
    assert _staged(store, "c") == 0  # the batches written staged were deleted again
    entry = Catalogue(store).entries("c")["manual.md"]
    assert entry.info.doc_id == first.doc_id  # the previous version is still the one served
    assert store.count_chunks("c") == first.chunks
    again = ing.ingest_paths([path], "c").files[0]  # the next run writes it whole
    assert again.status == "replaced" and store.count_chunks("c") == again.chunks > first.chunks


def test_dense_vectors_are_computed_one_batch_at_a_time(store, tmp_path: Path,
                                                        embed_model_path: Path) -> None:
    from rag.embedder import FastEmbedEmbedder

    real = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=8)
    sizes: list[int] = []

    class Counting:  # the real embedder, counting the texts of each call
        dim, model_name = real.dim, real.model_name

        def embed_passages(self, texts: list[str]) -> Any:
            sizes.append(len(texts))
            return real.embed_passages(texts)

    path = tmp_path / "big.md"
    path.write_text(_doc("d", 12), encoding="utf-8")
    rep = Ingestor(store, Tokenizer(), Counting(), workers=1, write_batch=5).ingest_paths(
        [path], "c")
    n = rep.files[0].chunks
    assert n > 5 and sum(sizes) == n and max(sizes) <= 5, (n, sizes)
    entry = Catalogue(store).entries("c")["big.md"]
    assert entry.info.has_dense and store.count_chunks("c") == n


def test_a_large_document_is_published_in_batches(store, tmp_path: Path, monkeypatch) -> None:
    """More than PUBLISH_BATCH chunks: made visible one batch of point ids per store operation
    (the embedded engine holds the interpreter lock for a whole operation, so one operation over
    a 105k-chunk file kept every HTTP request of the server waiting ~5 s); every chunk visible
    after, none left staged."""
    import corpus.qdrant_store as qs

    monkeypatch.setattr(qs, "PUBLISH_BATCH", 5)
    calls: list[int] = []
    orig = store.backend.delete_keys

    def counting(collection, flt, keys, ids=()):
        calls.append(len(ids))
        return orig(collection, flt, keys, ids)

    monkeypatch.setattr(store.backend, "delete_keys", counting)
    path = tmp_path / "big.md"
    path.write_text(_doc("p", 30), encoding="utf-8")
    rep = Ingestor(store, Tokenizer(), workers=1).ingest_paths([path], "c")
    n = rep.files[0].chunks
    assert n > 10 and calls == [5] * (n // 5) + ([n % 5] if n % 5 else [])
    assert store.count_chunks("c") == n and _staged(store, "c") == 0
    hits = store.keyword_search("c", Tokenizer().sparse_query("P-29"), 3)
    assert hits and "P-29" in hits[0].chunk.text


def test_a_large_document_becomes_searchable_at_once(store, tmp_path: Path, monkeypatch) -> None:
    """Published in batches, yet a search after any batch but the last finds none of the new
    document (issue 20: searchable atomically, never partly), and every chunk after."""
    import corpus.qdrant_store as qs

    monkeypatch.setattr(qs, "PUBLISH_BATCH", 5)
    seen: list[int] = []
    orig = store.backend.delete_keys
    query = Tokenizer().sparse_query("manual q")

    def publish_batch(collection, flt, keys, ids=()):
        orig(collection, flt, keys, ids)
        if ids:  # a search between two batches, as a request would
            seen.append(len(store.keyword_search("c", query, 500)))

    monkeypatch.setattr(store.backend, "delete_keys", publish_batch)
    path = tmp_path / "big.md"
    path.write_text(_doc("q", 30), encoding="utf-8")
    rep = Ingestor(store, Tokenizer(), workers=1).ingest_paths([path], "c")
    n = rep.files[0].chunks
    assert n > 10 and len(seen) == -(-n // 5) and seen == [0] * len(seen), seen
    assert len(store.keyword_search("c", query, 500)) == n
    assert store.hidden_documents("c") == frozenset()


def test_a_crash_mid_publish_leaves_the_part_hidden_until_purged(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """The process dies after two of the batches: a new process (a restart) still hides the
    published part from search, and the next run's purge deletes it."""
    import corpus.qdrant_store as qs

    monkeypatch.setattr(qs, "PUBLISH_BATCH", 5)
    root = tmp_path / "qdrant"
    store = QdrantChunkStore.embedded(root)
    orig = store.backend.delete_keys
    calls = [0]

    def dying(collection, flt, keys, ids=()):
        orig(collection, flt, keys, ids)
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt  # not an Exception: nothing is cleaned up, as on kill -9

    monkeypatch.setattr(store.backend, "delete_keys", dying)
    path = tmp_path / "big.md"
    path.write_text(_doc("k", 30), encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        Ingestor(store, Tokenizer(), workers=1).ingest_paths([path], "c")
    store.flush()
    store.close()
    again = QdrantChunkStore.embedded(root)
    try:
        assert again.count_chunks("c") == 10  # two batches were made visible ...
        assert again.keyword_search("c", Tokenizer().sparse_query("K-1 manual"), 50) == []
        assert len(again.hidden_documents("c")) == 1  # ... yet a search finds none of them
        assert again.purge_staged("c") > 10 and again.count_chunks("c") == 0
        assert again.hidden_documents("c") == frozenset()
    finally:
        again.close()


def test_a_large_text_file_is_streamed_here_not_in_a_worker(store, tmp_path: Path,
                                                           monkeypatch) -> None:
    """With enough files for the worker pool, a text file above STREAM_TEXT_BYTES is prepared
    in this process as a chunk stream (a worker would return its whole chunk list), after the
    others; every file is ingested."""
    import corpus._ingest_run as run_mod
    from corpus.chunker import DocumentChunks

    monkeypatch.setattr(run_mod, "STREAM_TEXT_BYTES", 20_000)
    monkeypatch.setattr(run_mod, "POOL_MIN_BYTES", 0)  # small files, but through the pool
    calls: list[tuple[list[str], int]] = []
    kinds: dict[str, str] = {}
    orig = run_mod.run_prepare

    def spy(jobs, *, workers, **kw):
        calls.append(([rel for _, rel in jobs], workers))
        kw.pop("embed", None)
        for i, res in orig(jobs, workers=1, **kw):  # one process: the test needs no pool
            kinds[jobs[i][1]] = type(getattr(res, "chunks", None)).__name__
            yield i, res

    monkeypatch.setattr(run_mod, "run_prepare", spy)
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(4):
        (folder / f"small{i}.md").write_text(_doc(f"s{i}", 2), encoding="utf-8")
    (folder / "big.md").write_text(_doc("b", 40), encoding="utf-8")
    assert (folder / "big.md").stat().st_size > 20_000
    rep = Ingestor(store, Tokenizer(), workers=2).ingest_paths([folder], "c")
    assert calls == [([f"small{i}.md" for i in range(4)], 2), (["big.md"], 1)], calls
    assert kinds["big.md"] == DocumentChunks.__name__
    assert sorted(f.status for f in rep.files) == ["ingested"] * 5
