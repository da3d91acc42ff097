"""Qdrant server / cluster backend through qdrant-client (URL + optional API key), also usable in
qdrant-client's local mode (``location=":memory:"`` or ``path=…``), which is how the tests
exercise it (no Qdrant server binary can run on the development machines).

A server collection cannot gain a new named vector after creation, so a keyword-only collection
must be re-created to add dense vectors (the embedded backend can add them in place).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from corpus._store_common import (
    BM25,
    DENSE,
    INDEXED_FIELDS,
    Flt,
    PointData,
    named_queries,
    native_filter,
    point_vectors,
    required_filter,
    scroll_pages,
    translate_errors,
)
from corpus.errors import StoreError

__all__ = ["ClientBackend"]

_INDEX_TYPES = {
    "keyword": qm.PayloadSchemaType.KEYWORD,
    "integer": qm.PayloadSchemaType.INTEGER,
    "bool": qm.PayloadSchemaType.BOOL,
}


def _cond(key: str, value: Any) -> qm.FieldCondition:
    if isinstance(value, list | tuple):
        return qm.FieldCondition(key=key, match=qm.MatchAny(any=list(value)))
    return qm.FieldCondition(key=key, match=qm.MatchValue(value=value))


def _sparse(indices: list[int], values: list[float]) -> qm.SparseVector:
    return qm.SparseVector(indices=indices, values=values)


def _filter(flt: Flt | None) -> qm.Filter | None:
    return native_filter(flt, _cond, qm.Filter)


class ClientBackend:
    """Collections on a Qdrant server (or in qdrant-client local mode).

    :param client: a configured :class:`qdrant_client.QdrantClient`.
    :param local: ``True`` for local mode (payload indexes are skipped: they have no effect there).
    """

    def __init__(self, client: QdrantClient, *, local: bool = False) -> None:
        self.client = client
        self.local = local

    def _errors(self, what: str) -> AbstractContextManager[None]:
        # UnexpectedResponse, httpx / grpc errors, local-mode ValueError
        return translate_errors(lambda exc: f"Qdrant failed to {what}: {type(exc).__name__}: {exc}")

    def exists(self, collection: str) -> bool:
        with self._errors(f"look up {collection!r}"):
            return bool(self.client.collection_exists(collection))

    def create(self, collection: str, dense_dim: int | None) -> None:
        vectors = (
            {DENSE: qm.VectorParams(size=dense_dim, distance=qm.Distance.COSINE)}
            if dense_dim
            else {}
        )
        with self._errors(f"create collection {collection!r}"):
            self.client.create_collection(
                collection,
                vectors_config=vectors,
                sparse_vectors_config={BM25: qm.SparseVectorParams(modifier=qm.Modifier.IDF)},
            )
            if not self.local:
                for name, kind in INDEXED_FIELDS.items():
                    self.client.create_payload_index(collection, name, _INDEX_TYPES[kind])

    def dense_dim(self, collection: str) -> int | None:
        with self._errors(f"read the schema of {collection!r}"):
            vectors = self.client.get_collection(collection).config.params.vectors
        if isinstance(vectors, dict) and DENSE in vectors:
            return int(vectors[DENSE].size)
        return None

    def add_dense(self, collection: str, dim: int) -> None:
        raise StoreError(
            f"collection {collection!r} was created keyword-only; a Qdrant server cannot add the "
            "'dense' vector to it: re-create the collection (re-ingest) with the embedder set"
        )

    def names(self) -> list[str]:
        with self._errors("list collections"):
            return sorted(c.name for c in self.client.get_collections().collections)

    def drop(self, collection: str) -> None:
        with self._errors(f"drop collection {collection!r}"):
            self.client.delete_collection(collection)

    def upsert(self, collection: str, points: Sequence[PointData]) -> None:
        pts = [qm.PointStruct(id=p.id, vector=point_vectors(p, _sparse), payload=p.payload)
               for p in points]
        with self._errors(f"write to {collection!r}"):
            self.client.upsert(collection, pts, wait=True)

    def delete(self, collection: str, flt: Flt | None, ids: Sequence[str] = ()) -> None:
        with self._errors(f"delete from {collection!r}"):
            if ids:
                self.client.delete(collection, qm.PointIdsList(points=list(ids)), wait=True)
            if flt is not None and not flt.is_empty():
                selector = qm.FilterSelector(filter=required_filter(_filter(flt)))
                self.client.delete(collection, selector, wait=True)

    def delete_keys(
        self, collection: str, flt: Flt, keys: Sequence[str], ids: Sequence[str] = ()
    ) -> None:
        """Delete payload ``keys`` from the points ``ids`` when given, else from those matching
        ``flt``."""
        points = qm.PointIdsList(points=list(ids)) if ids else qm.FilterSelector(
            filter=required_filter(_filter(flt)))
        with self._errors(f"update {collection!r}"):
            self.client.delete_payload(collection, list(keys), points=points, wait=True)

    def retrieve(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._errors(f"read {collection!r}"):
            recs = self.client.retrieve(
                collection, list(ids), with_payload=True, with_vectors=False
            )
        return {str(r.id): dict(r.payload or {}) for r in recs}

    def scroll(
        self, collection: str, flt: Flt, *, order_by: str | None, limit: int
    ) -> list[dict[str, Any]]:
        def page(offset: Any, n: int) -> tuple[Sequence[Any], Any]:
            return self.client.scroll(
                collection,
                scroll_filter=_filter(flt),
                limit=n,
                offset=offset,
                with_payload=True,
                with_vectors=False,
                order_by=qm.OrderBy(key=order_by) if order_by else None,
            )

        with self._errors(f"read {collection!r}"):
            return scroll_pages(page, limit, bool(order_by))

    def count(self, collection: str, flt: Flt) -> int:
        with self._errors(f"count {collection!r}"):
            return int(self.client.count(collection, count_filter=_filter(flt), exact=True).count)

    def search(self, collection: str, *, dense: Sequence[float] | None,
               sparse: tuple[Sequence[int], Sequence[float]] | None, limit: int, flt: Flt,
               prefetch_k: int = 0, rrf_k: int = 60, weights: Sequence[float] | None = None
               ) -> list[tuple[dict[str, Any], float]]:
        queries = named_queries(dense, sparse, _sparse)
        if not queries:
            return []
        f = _filter(flt)
        with self._errors(f"search {collection!r}"):
            if len(queries) == 1:
                res = self.client.query_points(
                    collection,
                    query=queries[0][0],
                    using=queries[0][1],
                    limit=limit,
                    query_filter=f,
                    with_payload=True,
                )
            else:
                pre = [
                    qm.Prefetch(query=q, using=u, limit=max(prefetch_k, limit), filter=f)
                    for q, u in queries
                ]
                rrf = qm.RrfQuery(rrf=qm.Rrf(k=rrf_k, weights=list(weights) if weights else None))
                res = self.client.query_points(
                    collection,
                    prefetch=pre,
                    query=rrf,
                    limit=limit,
                    query_filter=f,
                    with_payload=True,
                )
        return [(dict(h.payload or {}), float(h.score)) for h in res.points]

    def flush(self) -> None:
        """Nothing to do: the server persists every acknowledged write."""

    def close(self) -> None:
        with self._errors("close the client"):
            self.client.close()
