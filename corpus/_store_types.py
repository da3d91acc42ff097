"""What the store speaks (``corpus.types``): keyword vectors, search filters and hits,
catalogue entries' document info, and the :class:`ChunkStore` / :class:`PassageEmbedder`
protocols."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from corpus._chunk import Chunk

__all__ = ["ChunkStore", "DocumentInfo", "PassageEmbedder", "SearchFilter", "SearchHit",
           "SparseVector"]


@dataclass(frozen=True, slots=True)
class SparseVector:
    """A sparse keyword vector: parallel ``indices`` (term hashes, uint32) and ``values``."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    def is_empty(self) -> bool:
        """True when the vector has no terms (Qdrant must never be sent one)."""
        return not self.indices


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Optional restriction of a search: to documents (by id or path) and/or a section prefix."""

    doc_ids: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    section_prefix: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """True when nothing is restricted."""
        return not (self.doc_ids or self.paths or self.section_prefix)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One chunk returned by a store query; ``score`` is the backend's (cosine, BM25 or RRF)."""

    chunk: Chunk
    score: float


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A catalogue entry: one document of a collection.

    ``text_key`` / ``loose_key``: sha256 hex of the document's normalised text
    (``corpus.text_identity.document_key`` / ``loose_key``; ``""`` for entries written before
    they existed): ingest refuses a second document with the same ``text_key`` as a duplicate
    and flags one with the same ``loose_key`` as a probable duplicate.
    """

    doc_id: str
    path: str
    title: str
    media_type: str
    page_count: int
    chunk_count: int
    ingested_at: float = 0.0
    has_dense: bool = False
    text_key: str = ""
    loose_key: str = ""


@runtime_checkable
class PassageEmbedder(Protocol):
    """What the ingest pipeline needs from a dense embedder (implemented in ``rag.embedder``;
    ``corpus`` never imports ``rag`` — the gateway passes the object in).

    :ivar model_name: model identifier stored with the collection (checked at start-up).
    :ivar dim: vector size.
    """

    model_name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages (the embedder adds any model prefix such as e5's ``"passage: "``)."""


@runtime_checkable
class ChunkStore(Protocol):
    """Chunk storage and search for one or more collections (Qdrant; DESIGN.md "Layers").

    Implementations: ``corpus.qdrant_store.QdrantChunkStore`` (qdrant-edge-py embedded engine or a
    Qdrant server through qdrant-client). All methods raise ``corpus.errors.StoreError`` on
    backend failures (original exception chained).
    """

    def ensure_collection(
        self, collection: str, *, dense_dim: int | None, embed_model: str | None
    ) -> None:
        """Create the collection if missing (named vectors ``dense`` and sparse ``bm25``)."""

    def collection_meta(self, collection: str) -> dict[str, Any]:
        """Stored metadata: ``embed_model``, ``dense_dim``, ``corpus_version`` …
        (``{}`` if none)."""

    def list_collections(self) -> list[str]:
        """Names of the collections that exist."""

    def upsert_chunks(self, collection: str, chunks: Sequence[Chunk],
                      sparse: Sequence[SparseVector],
                      dense: Sequence[Sequence[float]] | None = None) -> None:
        """Write chunks with their sparse (and optionally dense) vectors."""

    def delete_document(self, collection: str, doc_id: str) -> int:
        """Delete every chunk of ``doc_id``; returns how many were deleted."""

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks by id, in the order asked; unknown ids are skipped."""

    def neighbour(self, collection: str, chunk_id: str, step: int) -> Chunk | None:
        """The chunk ``step`` positions away in the same document (``+1`` next, ``-1`` previous)."""

    def document_chunks(self, collection: str, doc_id: str) -> list[Chunk]:
        """All chunks of a document in order."""

    def keyword_search(
        self, collection: str, query: SparseVector, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Sparse BM25 search (IDF applied by Qdrant)."""

    def dense_search(
        self, collection: str, vector: Sequence[float], top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Dense cosine search."""

    def hybrid_search(self, collection: str, vector: Sequence[float] | None, query: SparseVector,
                      top_k: int, *, prefetch_k: int = 50, flt: SearchFilter | None = None
                      ) -> list[SearchHit]:
        """Dense and ``bm25`` prefetches fused by reciprocal rank fusion in one Qdrant query."""

