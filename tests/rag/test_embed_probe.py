"""The embedding runtime's fingerprint (corpus.embed_probe): stored with a new collection, checked
when the collection is opened and when more documents are ingested into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.embed_probe import PROBE_DIMS, probe_vector, vectors_differ
from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from rag.embedder import FastEmbedEmbedder, check_collection, runtime_note


def _docs(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture()
def store(tmp_path: Path) -> QdrantChunkStore:
    st = QdrantChunkStore.embedded(tmp_path / "qdrant")
    yield st
    st.close()


def test_a_new_collection_stores_the_runtime_fingerprint(
    store: QdrantChunkStore, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    docs = _docs(tmp_path / "a", "warranty.md", "# Warranty\n\nThe warranty period is 24 months.\n")
    report = Ingestor(store, Tokenizer(), embedder, workers=1).ingest_paths([docs], "probe")
    meta = store.collection_meta("probe")
    assert len(meta["embed_probe"]) == PROBE_DIMS
    assert meta["embed_probe"] == probe_vector(embedder) == embedder.fingerprint()
    assert meta["embed_runtime"].startswith("onnxruntime ")
    assert report.warnings == []
    assert check_collection(store, "probe", embedder) == "ok"


def test_vectors_of_another_runtime_are_told_not_refused(
    store: QdrantChunkStore, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    ingestor = Ingestor(store, Tokenizer(), embedder, workers=1)
    ingestor.ingest_paths([_docs(tmp_path / "a", "one.md", "# One\n\nFirst page text.\n")], "probe")
    other = list(store.collection_meta("probe")["embed_probe"])
    other[6] += 4.1e-3  # onnxruntime 1.24.4 vs 1.32.0 on the probe (corpus.embed_probe)
    store.update_meta("probe", embed_probe=other, embed_runtime="onnxruntime 1.24.4")

    assert check_collection(store, "probe", embedder) == "runtime_differs"
    note = runtime_note(store, "probe")
    assert "onnxruntime 1.24.4" in note and "install onnxruntime==1.24.4" in note
    assert embedder.fingerprint() == embedder.fingerprint()  # taken once, the same each time

    more = ingestor.ingest_paths([_docs(tmp_path / "b", "two.md", "# Two\n\nSecond text.\n")],
                                 "probe")
    assert [w.split(":")[0] for w in more.warnings] == ["embed_runtime_differs"]
    assert more.to_dict()["warnings"] == more.warnings
    assert more.counts["ingested"] == 1  # told, not refused: the documents are in
    # the stored fingerprint stays the collection's (the first vectors' runtime)
    assert store.collection_meta("probe")["embed_probe"] == other
    store.update_meta("probe", embed_runtime=None)  # a runtime that could not be named
    unnamed = runtime_note(store, "probe")
    assert "another runtime" in unnamed and "install" not in unnamed and "re-ingest" in unnamed


def test_a_collection_built_before_fingerprints_gets_none_afterwards(
    store: QdrantChunkStore, embedder: FastEmbedEmbedder, tmp_path: Path
) -> None:
    ingestor = Ingestor(store, Tokenizer(), embedder, workers=1)
    ingestor.ingest_paths([_docs(tmp_path / "a", "one.md", "# One\n\nFirst page text.\n")], "old")
    store.update_meta("old", embed_probe=None, embed_runtime=None)  # as written before
    ingestor.ingest_paths([_docs(tmp_path / "b", "two.md", "# Two\n\nSecond text.\n")], "old")
    # its vectors' runtime is unknown: no fingerprint is made up for it
    assert store.collection_meta("old").get("embed_probe") is None
    assert check_collection(store, "old", embedder) == "ok"


def test_vectors_differ_by_tolerance_and_length() -> None:
    base = [0.1] * PROBE_DIMS
    assert not vectors_differ(base, [v + 1e-5 for v in base])  # one runtime, batched or not
    assert vectors_differ(base, [*base[:-1], 0.1 + 3e-3])
    assert vectors_differ(base, base[:-1])
