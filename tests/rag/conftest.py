"""Fixtures of the RAG tests: one embedding model per session (loaded once, ~2 s)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.embedder import FastEmbedEmbedder


@pytest.fixture(scope="session")
def embedder(embed_model_path: Path) -> FastEmbedEmbedder:
    """The local multilingual-e5-small, warm (shared by every RAG test); 128 tokens per passage
    keeps the test ingest fast."""
    emb = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=16, max_length=128)
    emb.warm_up()
    return emb
