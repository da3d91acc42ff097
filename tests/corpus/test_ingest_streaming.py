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
