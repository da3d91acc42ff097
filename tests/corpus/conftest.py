"""Fixtures of the corpus tests: an empty real embedded Qdrant store per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.qdrant_store import QdrantChunkStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[QdrantChunkStore]:
    """A fresh embedded store under the test's temporary folder, closed afterwards."""
    s = QdrantChunkStore.embedded(tmp_path / "qdrant")
    yield s
    s.close()
