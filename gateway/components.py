"""Component factories from :class:`gateway.settings.Settings` (composition root helpers).

- :func:`open_store` – the chunk store: a Qdrant server / cluster when ``qdrant_url`` is set,
  else the embedded engine under ``<data_dir>/qdrant/<collection>/``.
- :func:`open_collection` – open a collection up front (fails clearly when it is held or missing).
- :func:`get_tokenizer` – the process-wide keyword tokenizer (engines loaded once).

- :func:`get_embedder` – the dense embedder (``rag.embedder.FastEmbedEmbedder``), loaded and
  warm, or ``None`` when no model is configured (keyword-only).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from corpus.errors import StoreError
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from gateway.settings import Settings

if TYPE_CHECKING:
    from rag.embedder import FastEmbedEmbedder

__all__ = ["get_embedder", "get_tokenizer", "open_collection", "open_store"]


def open_store(settings: Settings) -> QdrantChunkStore:
    """The chunk store the settings name (``qdrant_url`` + ``qdrant_api_key``, else embedded).

    Opening is lazy: an embedded collection's shard is locked on first use, and a second
    process then gets a :class:`corpus.errors.StoreError` naming the held data directory.
    """
    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantChunkStore.server(settings.qdrant_url, key)
    return QdrantChunkStore.embedded(settings.data_dir / "qdrant")


def open_collection(store: QdrantChunkStore, collection: str) -> dict[str, Any]:
    """Open ``collection`` now and return its metadata, so a command fails up front instead of
    answering "not found" from a store it cannot read.

    :raises corpus.errors.StoreError: the collection does not exist, or its embedded shard is held
        by another process (e.g. ``loopgate serve``: use its HTTP API), or the backend failed.
    """
    if collection not in store.list_collections():
        raise StoreError(
            f"collection {collection!r} does not exist (loopgate ingest DIR --collection "
            f"{collection})"
        )
    return store.collection_meta(collection)


@lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """The process-wide :class:`Tokenizer` (OpenCC, jieba dictionary and stemmer loaded once)."""
    tok = Tokenizer()
    tok.warm_up()
    return tok


def get_embedder(settings: Settings, *, bulk: bool = False) -> FastEmbedEmbedder | None:
    """The dense embedder the settings name, loaded (shared per process) and warm — for a bulk
    ingest only checked (its model files), since the worker processes embed.

    ``embed_threads`` 0 (auto) gives ONNX the usable cores for a bulk ingest (``bulk=True``:
    ``loopgate ingest``, whose worker processes share them) and one thread in the gateway,
    where each question is one short text and requests run side by side.

    :returns: ``None`` when no model folder is configured and downloading is not allowed
        (``embed_model_path`` empty, ``embed_allow_download`` false): keyword-only.
    :raises rag.errors.EmbedderError: the configured model cannot be loaded (callers then go
        keyword-only and say so once).
    """
    from corpus.ingest import usable_cores
    from rag.embedder import FastEmbedEmbedder

    if settings.embed_model_path is None and not settings.embed_allow_download:
        return None
    emb = FastEmbedEmbedder(
        model=settings.embed_model,
        model_path=settings.embed_model_path,
        threads=settings.embed_threads or (usable_cores() if bulk else 1),
        batch_size=settings.embed_batch_size,
        max_length=settings.embed_max_tokens,
        query_cache=settings.embed_query_cache,
    )
    if bulk:  # the ingest's worker processes load their own; this one only when it embeds
        emb.check_files()
    else:
        emb.warm_up()
    return emb
