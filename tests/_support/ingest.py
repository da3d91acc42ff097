"""A small real collection for a test: files ingested into an embedded Qdrant, keyword-only;
what an ingest run said of each file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from corpus.ingest import IngestReport


def file_statuses(report: IngestReport) -> dict[str, tuple[str, str]]:
    """``{path: (status, error_code)}`` of every file of ``report`` (``error_code`` ``""`` when
    none)."""
    return {f.path: (f.status, f.error_code) for f in report.files}


def ingest_keyword_only(data_dir: Path, docs: Path, collection: str) -> None:
    """Ingest the folder ``docs`` (paths stored relative to it) into ``collection`` of the
    embedded store under ``data_dir / "qdrant"``, one process, no embedding model; the store
    is closed afterwards, so a gateway or CLI built on ``data_dir`` can open it.

    :raises AssertionError: a file failed to ingest (the report is in the message).
    """
    from corpus.ingest import Ingestor
    from corpus.qdrant_store import QdrantChunkStore
    from gateway.wiring import get_tokenizer

    store = QdrantChunkStore.embedded(data_dir / "qdrant")
    try:
        report = Ingestor(store, get_tokenizer(), None, workers=1).ingest_paths(
            [docs], collection, root=docs
        )
    finally:
        store.close()
    assert report.counts["failed"] == 0, report.to_dict()


def keyword_rag_answer(tmp_path: Path, files: dict[str, str], question: str) -> Any:
    """The RAG path's answer (``rag.pipeline.RagPipeline``, answer floor 0) to ``question``
    over ``files`` (``{name: text}``) ingested keyword-only into a fresh embedded store under
    ``tmp_path``; the store is closed afterwards."""
    from corpus.ingest import Ingestor
    from corpus.qdrant_store import QdrantChunkStore
    from corpus.tokenizer import Tokenizer
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in files.items():
        (docs / name).write_text(text, encoding="utf-8")
    tok = Tokenizer()
    store = QdrantChunkStore.embedded(tmp_path / "qdrant")
    try:
        Ingestor(store, tok, None, workers=1).ingest_paths([docs], "docs", root=docs)
        return RagPipeline(HybridRetriever(store, tok, None), answer_floor=0.0).run(question,
                                                                                    "docs")
    finally:
        store.close()
