"""Embedded Qdrant backend: qdrant-edge-py (the Qdrant engine in-process), one on-disk shard
per collection under ``<root>/<collection>/``.

The engine locks a shard's write-ahead log: a second process opening the same shard fails
("failed to open WAL … WouldBlock"), but only after it has opened the shard's segments, which
truncates the BM25 store's tracker journal under the holder (whose next flush then fails:
"Tracker journal … is shorter than expected"). So each shard is first claimed with an advisory
lock, ``<root>/.locks/<collection>.lock`` (``filelock``, flock on POSIX), held while the shard
is open; a shard held elsewhere — another process, or another backend in this one — is reported
as a :class:`StoreError` saying which process probably holds it, without touching its files.
Several processes need the Qdrant server backend.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from filelock import FileLock, Timeout

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

__all__ = ["EdgeBackend"]

_LOCKED = (
    "the data directory {path} is held by another LoopGate process (e.g. `loopgate serve` or `loopgate ingest`); "
    "use its HTTP API, stop it, or configure a Qdrant server (LOOPGATE_QDRANT_URL)"
)
_INDEX_TYPES = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "integer": qe.PayloadSchemaType.Integer,
    "bool": qe.PayloadSchemaType.Bool,
}


def _cond(key: str, value: Any) -> qe.FieldCondition:
    match = qe.MatchAny(list(value)) if isinstance(value, list | tuple) else qe.MatchValue(value)
    return qe.FieldCondition(key=key, match=match)


def _filter(flt: Flt | None) -> qe.Filter | None:
    return native_filter(flt, _cond, qe.Filter)


class EdgeBackend:
    """qdrant-edge-py shards under ``root`` (thread-safe; shards open lazily and stay open).

    :param root: directory holding one sub-directory per collection (created if missing).
    """

    #: the engine runs in this process (holding the interpreter lock for a whole operation)
    in_process = True

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._shards: dict[str, qe.EdgeShard] = {}
        self._claims: dict[str, FileLock] = {}
        self._lock = threading.RLock()

    def _claim(self, collection: str) -> None:
        """Take this process's advisory lock on ``collection`` before the engine opens any of
        its files; :class:`StoreError` (the "held by another" message) when it is held."""
        if collection in self._claims:
            return
        path = self.root / ".locks" / f"{collection}.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        claim = FileLock(path, timeout=0, thread_local=False)
        try:
            claim.acquire()
        except Timeout as exc:
            raise StoreError(_LOCKED.format(path=self.root)) from exc
        self._claims[collection] = claim

    def _unclaim(self, collection: str) -> None:
        claim = self._claims.pop(collection, None)
        if claim is not None:
            claim.release()

    def _errors(self, what: str) -> AbstractContextManager[None]:
        # the binding raises plain Exception / ValueError
        return translate_errors(lambda exc: _LOCKED.format(path=self.root)
                                if "WouldBlock" in str(exc)
                                else f"embedded Qdrant failed to {what}: {exc}")

    def _dir(self, collection: str) -> Path:
        return self.root / collection

    def _shard(self, collection: str) -> qe.EdgeShard:
        with self._lock:
            shard = self._shards.get(collection)
            if shard is None:
                if not self.exists(collection):
                    raise StoreError(f"collection {collection!r} does not exist")
                self._claim(collection)
                try:
                    with self._errors(f"open collection {collection!r}"):
                        shard = qe.EdgeShard.load(str(self._dir(collection)))
                except StoreError:
                    self._unclaim(collection)
                    raise
                self._shards[collection] = shard
            return shard

    def exists(self, collection: str) -> bool:
        return (self._dir(collection) / "edge_config.json").exists()

    def create(self, collection: str, dense_dim: int | None) -> None:
        vectors = {DENSE: qe.EdgeVectorParams(dense_dim, qe.Distance.Cosine)} if dense_dim else {}
        cfg = qe.EdgeConfig(
            vectors=vectors,
            sparse_vectors={BM25: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        with self._lock, self._errors(f"create collection {collection!r}"):
            self.root.mkdir(parents=True, exist_ok=True)
            self._claim(collection)
            try:
                shard = qe.EdgeShard.create(str(self._dir(collection)), cfg)
            except Exception:
                self._unclaim(collection)
                raise
            for name, kind in INDEXED_FIELDS.items():
                shard.update(qe.UpdateOperation.create_field_index(name, _INDEX_TYPES[kind]))
            self._shards[collection] = shard

    def dense_dim(self, collection: str) -> int | None:
        import json

        cfg = json.loads((self._dir(collection) / "edge_config.json").read_text())
        vec = (cfg.get("vectors") or {}).get(DENSE) or (cfg.get("vector_data") or {}).get(DENSE)
        return int(vec["size"]) if vec else None

    def add_dense(self, collection: str, dim: int) -> None:
        with self._errors(f"add dense vectors to {collection!r}"):
            self._shard(collection).update(
                qe.UpdateOperation.create_dense_vector(DENSE, dim, qe.Distance.Cosine)
            )

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.name for p in self.root.iterdir() if (p / "edge_config.json").exists())

    def drop(self, collection: str) -> None:
        with self._lock:
            shard = self._shards.pop(collection, None)
            with self._errors(f"drop collection {collection!r}"):
                if shard is not None:
                    shard.close()
                shutil.rmtree(self._dir(collection), ignore_errors=True)
                self._unclaim(collection)

    def upsert(self, collection: str, points: Sequence[PointData]) -> None:
        pts = [qe.Point(p.id, point_vectors(p, qe.SparseVector), p.payload) for p in points]
        with self._errors(f"write to {collection!r}"):
            self._shard(collection).update(qe.UpdateOperation.upsert_points(pts))

    def delete(self, collection: str, flt: Flt | None, ids: Sequence[str] = ()) -> None:
        with self._errors(f"delete from {collection!r}"):
            shard = self._shard(collection)
            if ids:
                shard.update(qe.UpdateOperation.delete_points(list(ids)))
            if flt is not None and not flt.is_empty():
                shard.update(qe.UpdateOperation.delete_points_by_filter(required_filter(_filter(flt))))

    def delete_keys(
        self, collection: str, flt: Flt, keys: Sequence[str], ids: Sequence[str] = ()
    ) -> None:
        """Delete payload ``keys`` from the points ``ids`` when given, else from those matching
        ``flt``."""
        op = (qe.UpdateOperation.delete_payload(list(ids), list(keys)) if ids else
              qe.UpdateOperation.delete_payload_by_filter(required_filter(_filter(flt)),
                                                          list(keys)))
        with self._errors(f"update {collection!r}"):
            self._shard(collection).update(op)

    def retrieve(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        with self._errors(f"read {collection!r}"):
            recs = self._shard(collection).retrieve(list(ids), with_payload=True, with_vector=False)
        return {str(r.id): dict(r.payload or {}) for r in recs}

    def scroll(
        self, collection: str, flt: Flt, *, order_by: str | None, limit: int
    ) -> list[dict[str, Any]]:
        def page(offset: Any, n: int) -> tuple[Sequence[Any], Any]:
            return shard.scroll(qe.ScrollRequest(
                offset=offset,
                limit=n,
                filter=_filter(flt),
                with_payload=True,
                with_vector=False,
                order_by=qe.OrderBy(key=order_by) if order_by else None,
            ))

        with self._errors(f"read {collection!r}"):
            shard = self._shard(collection)
            return scroll_pages(page, limit, bool(order_by))

    def count(self, collection: str, flt: Flt) -> int:
        with self._errors(f"count {collection!r}"):
            return int(
                self._shard(collection).count(qe.CountRequest(filter=_filter(flt), exact=True))
            )

    def search(self, collection: str, *, dense: Sequence[float] | None,
               sparse: tuple[Sequence[int], Sequence[float]] | None, limit: int, flt: Flt,
               prefetch_k: int = 0, rrf_k: int = 60, weights: Sequence[float] | None = None
               ) -> list[tuple[dict[str, Any], float]]:
        queries = [qe.Query.Nearest(vector, using=name)
                   for vector, name in named_queries(dense, sparse, qe.SparseVector)]
        if not queries:
            return []
        f = _filter(flt)
        if len(queries) == 1:
            req = qe.QueryRequest(limit=limit, query=queries[0], filter=f, with_payload=True)
        else:
            pre = [qe.Prefetch(limit=max(prefetch_k, limit), query=q, filter=f) for q in queries]
            fusion = qe.Fusion.Rrf(k=rrf_k, weights=list(weights) if weights else None)
            req = qe.QueryRequest(
                limit=limit,
                prefetches=pre,
                query=fusion,  # type: ignore[arg-type]
                filter=f,
                with_payload=True,
            )
        with self._errors(f"search {collection!r}"):
            hits = self._shard(collection).query(req)
        return [(h.payload or {}, float(h.score)) for h in hits]  # a new dict per access

    def flush(self) -> None:
        with self._lock, self._errors("flush"):
            for shard in self._shards.values():
                shard.flush()

    def close(self) -> None:
        with self._lock:
            shards, self._shards = list(self._shards.values()), {}
            try:
                for shard in shards:
                    try:
                        shard.flush()
                    finally:
                        shard.close()
            finally:
                for collection in list(self._claims):
                    self._unclaim(collection)
