"""Fixtures of the corpus tests: an empty real embedded Qdrant store per test; OCR off."""

from __future__ import annotations

import os
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


@pytest.fixture
def no_ocr() -> Iterator[None]:
    """OCR turned off the documented way (``LOOPGATE_OCR_LANGUAGES=""``), also where Tesseract
    is installed, so the no-OCR behaviour is tested on every machine."""
    from corpus.parsers._pdf_ocr import ocr_languages

    old = os.environ.get("LOOPGATE_OCR_LANGUAGES")
    os.environ["LOOPGATE_OCR_LANGUAGES"] = ""
    ocr_languages.cache_clear()
    yield
    if old is None:
        del os.environ["LOOPGATE_OCR_LANGUAGES"]
    else:
        os.environ["LOOPGATE_OCR_LANGUAGES"] = old
    ocr_languages.cache_clear()
