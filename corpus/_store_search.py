"""Search side of :class:`corpus.qdrant_store.QdrantChunkStore` (keyword, dense, hybrid RRF),
kept apart to keep modules small. Every search hides staged chunks (documents being written)
and the documents being published batch by batch, never sends Qdrant an empty sparse vector,
and ranks equal scores by chunk id (:func:`_ranked`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from corpus._store_common import STAGED, Backend, Flt
from corpus._store_records import StoreRecordsMixin
from corpus.types import Chunk, SearchFilter, SearchHit, SparseVector

__all__ = ["StoreSearchMixin"]

_HIDE_STAGED = (("staged", STAGED),)


class StoreSearchMixin(StoreRecordsMixin):
    """Keyword / dense / hybrid search over ``self.backend`` (see ``QdrantChunkStore``)."""

    backend: Backend
    _dense_ready: set[str]

    def hidden_documents(self, collection: str) -> frozenset[str]:
        raise NotImplementedError

    def has_dense(self, collection: str) -> bool:
        """True when the collection holds dense vectors (remembered once seen: a collection
        never loses its ``dense`` vector, so only the "not yet" answer is asked again)."""
        if collection in self._dense_ready:
            return True
        if self.collection_meta(collection).get("dense_dim"):
            self._dense_ready.add(collection)
            return True
        return False

    def keyword_search(
        self, collection: str, query: SparseVector, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Sparse BM25 search (IDF applied by Qdrant); ``[]`` for an empty query vector."""
        if query.is_empty():
            return []
        return self._search(collection, None, query, top_k, flt)

    def dense_search(
        self, collection: str, vector: Sequence[float], top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Dense cosine search (``[]`` when the collection has no dense vectors)."""
        if not self.has_dense(collection):
            return []
        return self._search(collection, vector, None, top_k, flt)

    def hybrid_search(self, collection: str, vector: Sequence[float] | None, query: SparseVector,
                      top_k: int, *, prefetch_k: int = 50, flt: SearchFilter | None = None,
                      rrf_k: int = 60, weights: tuple[float, float] | None = None
                      ) -> list[SearchHit]:
        """Dense and ``bm25`` prefetches (``prefetch_k`` each) fused by reciprocal rank fusion
        in one Qdrant query; score = Σ weight/(rrf_k + rank). ``weights`` = (dense, bm25),
        default equal. Falls back to the one search that has a query when the other is
        missing (no vector, no dense index, or an empty sparse query)."""
        if vector is not None and not self.has_dense(collection):
            vector = None
        sparse = None if query.is_empty() else query
        if vector is None and sparse is None:
            return []
        return self._search(
            collection,
            vector,
            sparse,
            top_k,
            flt,
            prefetch_k=prefetch_k,
            rrf_k=rrf_k,
            weights=weights,
        )

    def prefetch_lists(
        self,
        collection: str,
        vector: Sequence[float] | None,
        query: SparseVector,
        prefetch_k: int = 50,
        flt: SearchFilter | None = None,
    ) -> tuple[list[SearchHit], list[SearchHit]]:
        """The raw ``(dense, bm25)`` candidate lists behind :meth:`hybrid_search`, for fusion
        done by the caller (each list ``[]`` when its query is missing)."""
        dense = self.dense_search(collection, vector, prefetch_k, flt) if vector is not None else []
        return dense, self.keyword_search(collection, query, prefetch_k, flt)

    def _search(
        self,
        collection: str,
        vector: Sequence[float] | None,
        sparse: SparseVector | None,
        top_k: int,
        flt: SearchFilter | None,
        **kw: Any,
    ) -> list[SearchHit]:
        if top_k <= 0:
            return []
        must: list[tuple[str, Any]] = []
        prefix: tuple[str, ...] = ()
        if flt is not None:
            if flt.doc_ids:
                must.append(("doc_id", list(flt.doc_ids)))
            if flt.paths:
                must.append(("path", list(flt.paths)))
            prefix = tuple(flt.section_prefix)
            must.extend(("section_path", p) for p in prefix)
        limit = top_k * 4 if prefix else top_k
        gone = self.hidden_documents(collection)  # being published batch by batch: not yet
        hidden: tuple[tuple[str, Any], ...] = (("doc_id", sorted(gone)),) if gone else ()
        query = Flt(must=tuple(must), must_not=_HIDE_STAGED + hidden)
        pair = None if sparse is None else (sparse.indices, sparse.values)
        rows = _ranked(
            lambda n: self.backend.search(
                collection, dense=vector, sparse=pair, limit=n, flt=query, **kw
            ),
            limit,
        )
        hits = [SearchHit(Chunk.from_payload(p), s) for p, s in rows]
        if prefix:
            hits = [h for h in hits if h.chunk.section_path[: len(prefix)] == prefix]
        return hits[:top_k]


Row = tuple[dict[str, Any], float]


def _ranked(search: Callable[[int], list[Row]], limit: int) -> list[Row]:
    """The best ``limit`` rows of ``search(n)`` (the engine's ``n`` best), ties in score broken
    by chunk id, so equal scores rank the same in every build of the same documents.

    Qdrant returns points of equal score in an order of its own: two builds of the same 489
    points, written in the same order, listed three chunks scoring 0.8820105791 (two of them
    the same text) in different orders, so their ranks in a candidate list — and which of them
    a top-k cut keeps — depended on the build. One row more than asked shows a tie across the
    cut; the search is then repeated deeper until the tie is whole."""
    n = limit + 1
    while True:
        rows = search(n)
        if len(rows) < n or rows[limit - 1][1] != rows[-1][1]:
            break
        n *= 2  # the last row asked ties with the last row kept: the tie may go on
    rows.sort(key=lambda r: (-r[1], str(r[0].get("chunk_id", ""))))
    return rows[:limit]
