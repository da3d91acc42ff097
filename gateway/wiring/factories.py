"""Component factories from :class:`gateway.settings.Settings`: the concrete ``corpus``,
``rag`` and ``loop`` classes are named here (and in :mod:`gateway.wiring.build`) only.

- :func:`open_store` – the chunk store: a Qdrant server / cluster when ``qdrant_url`` is set,
  else the embedded engine under ``<data_dir>/qdrant/<collection>/``;
- :func:`open_collection` – open a collection up front (fails clearly when it is held or missing);
- :func:`get_tokenizer` – the process-wide keyword tokenizer (engines loaded once);
- :func:`get_embedder` – the dense embedder (``rag.embedder.FastEmbedEmbedder``), loaded and
  warm, or ``None`` when no model is configured (keyword-only);
- :func:`llm_config`, :func:`retrieval_config`, :func:`build_retriever` – the LLM client's and
  the hybrid retriever's configuration, and the retriever itself;
- :func:`directory_builder` – the directory builder an ingest uses (issue 14 item 1;
  ``LOOPGATE_DIRECTORY``: ``off``, ``extractive`` (default), or ``llm``: written by the
  configured LLM in batches of ``LOOPGATE_DIRECTORY_LLM_BATCH`` chunks, cached by chunk content
  hash in ``<data_dir>/directory-cache.sqlite3``, extractive fallback and when no LLM is set);
- :func:`catalogue_directory` – the catalogue as the LoopAgent's document directory.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from corpus._store_common import check_collection_name
from corpus.errors import StoreError
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import ChunkStore
from gateway.settings import Settings

if TYPE_CHECKING:
    from corpus.catalogue import Catalogue
    from corpus.directory_build import DirectoryBuilder
    from corpus.types import DocumentInfo
    from loop.config import LLMConfig
    from rag.embedder import FastEmbedEmbedder
    from rag.retriever import HybridRetriever
    from rag.types import QueryEmbedder, RetrievalConfig

__all__ = [
    "build_retriever",
    "catalogue_directory",
    "directory_builder",
    "get_embedder",
    "get_tokenizer",
    "llm_config",
    "open_collection",
    "open_store",
    "store_location",
    "retrieval_config",
]


def open_store(settings: Settings) -> QdrantChunkStore:
    """The chunk store the settings name (``qdrant_url`` + ``qdrant_api_key``, else embedded).

    Opening is lazy: an embedded collection's shard is locked on first use, and a second
    process then gets a :class:`corpus.errors.StoreError` naming the held data directory.
    """
    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return QdrantChunkStore.server(settings.qdrant_url, key)
    return QdrantChunkStore.embedded(settings.data_dir / "qdrant")


def store_location(settings: Settings) -> str:
    """Where the settings' chunk store lives, for messages: the Qdrant URL, else the embedded
    engine's folder (``<data_dir>/qdrant``)."""
    return settings.qdrant_url or str(settings.data_dir / "qdrant")


def open_collection(store: QdrantChunkStore, collection: str, *, where: str = ""
                    ) -> dict[str, Any]:
    """Open ``collection`` now and return its metadata, so a command fails up front instead of
    answering "not found" from a store it cannot read. ``where``: the store's location
    (:func:`store_location`), named in the message when no collection exists there (a
    new-user trial asking from another folder could not tell which data directory was read).

    :raises corpus.errors.StoreError: the name is no valid collection name, the collection does
        not exist, or its embedded shard is held by another process (e.g. ``loopgate serve``: use
        its HTTP API), or the backend failed.
    """
    check_collection_name(collection)  # "../x": the name's rule, not "ingest into ../x"
    names = store.list_collections()
    if collection not in names:
        there = (f"the collections here: {', '.join(sorted(names))}; name one with --collection"
                 if names else f"no collection exists in {where or 'this data directory'} yet")
        raise StoreError(
            f"collection {collection!r} does not exist (loopgate ingest DIR --collection "
            f"{collection}); {there}"
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


def llm_config(settings: Settings) -> LLMConfig | None:
    """``loop.config.LLMConfig`` from settings, or ``None`` when no LLM is configured."""
    if not settings.llm_base_url:
        return None
    from loop.config import LLMConfig

    return LLMConfig(base_url=settings.llm_base_url, model=settings.llm_model or "local",
                     api_key=settings.llm_api_key, timeout_s=settings.llm_timeout_s,
                     protocol=settings.llm_protocol, temperature=settings.llm_temperature,
                     max_tokens=settings.llm_max_tokens)


def retrieval_config(settings: Settings) -> RetrievalConfig:
    """``rag.types.RetrievalConfig`` from settings."""
    from rag.types import RetrievalConfig

    return RetrievalConfig(
        top_k=settings.rag_top_k, prefetch_k=settings.rag_prefetch_k, rrf_k=settings.rag_rrf_k,
        dense_weight=settings.rag_dense_weight, keyword_weight=settings.rag_keyword_weight,
        doc_weight=settings.rag_doc_weight, fusion=settings.rag_fusion,
        page_weight=settings.rag_page_weight,
        embed_timeout_s=settings.timeout_embed_s, search_timeout_s=settings.timeout_search_s,
    )


def build_retriever(settings: Settings, store: ChunkStore, tokenizer: Tokenizer,
                    embedder: QueryEmbedder | None) -> HybridRetriever:
    """``rag.retriever.HybridRetriever`` from settings, with document resolution when enabled."""
    from rag.resolve import ProfileSource
    from rag.retriever import HybridRetriever

    resolver = (
        ProfileSource(store, tokenizer.terms, max_docs=settings.rag_resolve_max_docs)
        if settings.rag_resolve_documents else None
    )
    from rag.expand import QueryExpander

    expander = (QueryExpander(tokenizer.query_terms, tokenizer.normalize)
                if settings.rag_expand_queries else None)
    from rag.pages import PageNavigator

    pages = PageNavigator(store) if resolver is not None and settings.rag_page_weight > 0 else None
    return HybridRetriever(store, tokenizer, embedder, config=retrieval_config(settings),
                           resolver=resolver, expander=expander, pages=pages)


CACHE_FILE = "directory-cache.sqlite3"


def directory_builder(settings: Settings, tokenizer: Tokenizer) -> DirectoryBuilder | None:
    """A :class:`corpus.directory_build.DirectoryBuilder` for ``settings.directory``, or
    ``None`` when it is ``off``."""
    if settings.directory == "off":
        return None
    from corpus.directory_build import DirectoryBuilder, EntryCache

    cfg = llm_config(settings) if settings.directory == "llm" else None
    if cfg is None:
        return DirectoryBuilder(tokenizer)
    from dataclasses import replace

    from loop.entry_writer import LLMEntryWriter

    # one batch may take minutes on a small local model: its own HTTP timeout, one attempt
    cfg = replace(cfg, timeout_s=settings.directory_llm_timeout_s, max_retries=0)
    return DirectoryBuilder(tokenizer, writer=LLMEntryWriter(cfg),
                            cache=EntryCache(settings.data_dir / CACHE_FILE),
                            batch=settings.directory_llm_batch,
                            timeout_s=settings.directory_llm_timeout_s + 5)


class _CatalogueDirectory:
    """``loop.types.DocumentDirectory`` over ``corpus.catalogue.Catalogue``."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue

    def list_documents(self, collection: str) -> list[DocumentInfo]:
        """Every document of ``collection`` (catalogue order: by path)."""
        return list(self.catalogue.documents(collection))


def catalogue_directory(store: QdrantChunkStore) -> _CatalogueDirectory:
    """The catalogue as the LoopAgent's document directory."""
    from corpus.catalogue import Catalogue

    return _CatalogueDirectory(Catalogue(store))
