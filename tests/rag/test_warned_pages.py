"""Evidence from a warned page lowers confidence (issue 17 item 1): a born-digital page whose
key paragraph is a picture, ingested with OCR off (``mixed_scan``), then searched with the real
retriever over a real embedded Qdrant store (keyword-only: no model needed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.fidelity_set import build
from corpus.chunker import chunk_document
from corpus.ingest import Ingestor
from corpus.parsers import parse_file
from corpus.parsers._pdf_ocr import ocr_languages
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk
from rag.retriever import FLAG_WARNED_PAGE, WARNED_PAGE_FACTOR, HybridRetriever

pytestmark = pytest.mark.integration


@pytest.fixture
def no_ocr(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LOOPGATE_OCR_LANGUAGES", "")
    ocr_languages.cache_clear()
    yield
    monkeypatch.undo()
    ocr_languages.cache_clear()


def test_evidence_on_a_page_with_an_unread_picture_is_less_sure(
    tmp_path: Path, no_ocr: None
) -> None:
    sample = build(tmp_path / "docs", ("mixed_scan",))[0]  # mixed_scan_en.pdf
    doc = parse_file(sample.path)
    assert doc.page_warnings == {1: "mixed_scan"}
    chunks = chunk_document(doc, rel_path=sample.path.name)
    assert chunks and all(c.page_warning == "mixed_scan" for c in chunks)
    assert Chunk.from_payload(chunks[0].to_payload()).page_warning == "mixed_scan"

    store = QdrantChunkStore.embedded(tmp_path / "qdrant")
    try:
        Ingestor(store, Tokenizer(), workers=1).ingest_paths([sample.path], "c",
                                                              root=sample.path.parent)
        question = " ".join(sample.pages[0].split("\n")[0].split()[:6])
        retriever = HybridRetriever(store, Tokenizer())
        r = retriever.run(question, "c", top_k=3)
        assert r.items and FLAG_WARNED_PAGE in r.flags
        assert r.confidence.value == pytest.approx(
            retriever.scorer.score(r.confidence.features) * WARNED_PAGE_FACTOR)
    finally:
        store.close()


def test_a_plain_page_keeps_its_confidence(tmp_path: Path) -> None:
    sample = build(tmp_path / "docs", ("control",))[0]
    assert parse_file(sample.path).page_warnings == {}
    store = QdrantChunkStore.embedded(tmp_path / "qdrant")
    try:
        Ingestor(store, Tokenizer(), workers=1).ingest_paths([sample.path], "c",
                                                              root=sample.path.parent)
        retriever = HybridRetriever(store, Tokenizer())
        r = retriever.run("Consolidated balance sheet total assets", "c", top_k=3)
        assert r.items and FLAG_WARNED_PAGE not in r.flags
        assert r.confidence.value == pytest.approx(retriever.scorer.score(r.confidence.features))
    finally:
        store.close()
