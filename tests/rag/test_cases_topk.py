"""Case 16 on the RAG path (../shared/cases, skipped when absent): two versions of a guide
that share most of their text, retrieved with the real model from a real embedded Qdrant store.
The top-5 never holds two chunks of the same normalised text, and the question whose answer
differs between the versions sees both (``14 天`` and ``30 天``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.text_identity import normalize_text
from corpus.tokenizer import Tokenizer
from rag.embedder import FastEmbedEmbedder
from rag.retriever import HybridRetriever

pytestmark = pytest.mark.integration
COLL = "case16"


@pytest.fixture(scope="module")
def case16(cases_dir: Path) -> tuple[Path, dict]:
    folder = next(cases_dir.glob("16-*"))
    return folder, json.loads((folder / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def store(
    case16: tuple[Path, dict], embedder: FastEmbedEmbedder, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[QdrantChunkStore]:
    folder, _ = case16
    st = QdrantChunkStore.embedded(tmp_path_factory.mktemp("case16") / "qdrant")
    # the whole folder: the byte copy and the CRLF copy are skipped, guide_v2.md and the PDF
    # print-out stay (the PDF and guide_v2.md share paragraphs with guide (1).md)
    Ingestor(st, Tokenizer(), embedder, workers=1).ingest_paths([folder], COLL)
    yield st
    st.close()


def _top5(store: QdrantChunkStore, embedder: FastEmbedEmbedder, question: str) -> list[str]:
    r = HybridRetriever(store, Tokenizer(), embedder).run(question, COLL, top_k=5)
    assert r.mode == "hybrid" and r.items
    texts = [normalize_text(c.text) for it in r.items for c in it.chunks]
    assert len(texts) == len(set(texts)), [it.chunk.path for it in r.items]
    return [f"{it.chunk.path}\t{it.chunk.text}" for it in r.items]


def test_case16_top5_has_no_two_identical_chunks(
    store: QdrantChunkStore, embedder: FastEmbedEmbedder, case16: tuple[Path, dict]
) -> None:
    _, exp = case16
    port, days = (q["q"] for q in exp["questions"])
    top = _top5(store, embedder, port)
    assert "8443" in top[0] or "8443" in top[1], top
    top = _top5(store, embedder, days)
    kept = "\n".join(top)
    assert "日志保留 14 天" in kept and "日志保留 30 天" in kept, top  # both versions are shown
