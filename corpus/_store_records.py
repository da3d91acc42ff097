"""Record points and collection metadata of :class:`corpus.qdrant_store.QdrantChunkStore`: the
vector-less points (``corpus._store_common``: the collection's metadata, catalogue entries,
directory and page records) that no search returns, kept apart to keep modules small."""

from __future__ import annotations

import time
from typing import Any

from corpus._store_common import KIND, Backend, Flt, PointData, check_collection_name, record_id

__all__ = ["StoreRecordsMixin"]


class StoreRecordsMixin:
    """Record points and metadata over ``self.backend`` (see ``QdrantChunkStore``)."""

    backend: Backend

    def collection_meta(self, collection: str) -> dict[str, Any]:
        """Stored metadata (``embed_model``, ``dense_dim``, ``corpus_version``, ``created_at``,
        ``updated_at``); ``{}`` when the collection does not exist."""
        if not self.backend.exists(check_collection_name(collection)):
            return {}
        rec = self.backend.retrieve(collection, [record_id("meta", "")])
        return dict(next(iter(rec.values()), {}).get("data") or {})

    def update_meta(self, collection: str, **fields: Any) -> dict[str, Any]:
        """Merge ``fields`` into the collection metadata; returns the new metadata."""
        meta = self.collection_meta(collection)
        meta.update(fields, updated_at=time.time())
        self._write_meta(collection, meta)
        return meta

    def bump_corpus_version(self, collection: str) -> int:
        """Move the corpus version on by one (after any change of content); returns it."""
        version = int(self.collection_meta(collection).get("corpus_version") or 0) + 1
        self.update_meta(collection, corpus_version=version)
        return version

    def _write_meta(self, collection: str, meta: dict[str, Any]) -> None:
        self.put_record(collection, "meta", "", meta)

    def put_record(self, collection: str, kind: str, key: str, data: dict[str, Any]) -> None:
        """Write a vector-less record point ``(kind, key)`` holding ``data`` (JSON-safe)."""
        payload = {KIND: kind, "key": key, "data": data}
        self.backend.upsert(collection, [PointData(record_id(kind, key), payload)])

    def delete_record(self, collection: str, kind: str, key: str) -> None:
        """Delete the record point ``(kind, key)`` (no-op when missing)."""
        self.backend.delete(collection, None, [record_id(kind, key)])

    def record(self, collection: str, kind: str, key: str) -> dict[str, Any] | None:
        """The data of record ``(kind, key)``, or ``None`` (also for a missing collection)."""
        if not self.backend.exists(check_collection_name(collection)):
            return None
        rid = record_id(kind, key)
        row = self.backend.retrieve(collection, [rid]).get(rid)
        return dict(row.get("data") or {}) if row and row.get(KIND) == kind else None

    def records(self, collection: str, kind: str,
                limit: int = 10_000_000) -> dict[str, dict[str, Any]]:
        """Records of ``kind`` as ``{key: data}``, at most ``limit`` (default: all; ``{}`` when
        the collection is missing)."""
        if not self.backend.exists(check_collection_name(collection)):
            return {}
        rows = self.backend.scroll(
            collection, Flt(must=((KIND, kind),)), order_by=None, limit=limit
        )
        return {r["key"]: dict(r.get("data") or {}) for r in rows}
