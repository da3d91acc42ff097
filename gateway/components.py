"""Component factories from :class:`gateway.settings.Settings` (composition root helpers).

- :func:`open_store` – the chunk store: a Qdrant server / cluster when ``qdrant_url`` is set,
  else the embedded engine under ``<data_dir>/qdrant/<collection>/``.
- :func:`get_tokenizer` – the process-wide keyword tokenizer (engines loaded once).

Engineer C adds ``get_embedder(settings)`` here.
"""

from __future__ import annotations

from functools import lru_cache

from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from gateway.settings import Settings

__all__ = ["get_tokenizer", "open_store"]


def open_store(settings: Settings) -> QdrantChunkStore:
    """The chunk store the settings name (``qdrant_url`` + ``qdrant_api_key``, else embedded).

    Opening is lazy: an embedded collection's shard is locked on first use, and a second
    process then gets a :class:`corpus.errors.StoreError` naming the held data directory.
    """
    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantChunkStore.server(settings.qdrant_url, key)
    return QdrantChunkStore.embedded(settings.data_dir / "qdrant")


@lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """The process-wide :class:`Tokenizer` (OpenCC, jieba dictionary and stemmer loaded once)."""
    tok = Tokenizer()
    tok.warm_up()
    return tok
