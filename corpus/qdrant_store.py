"""The chunk store: :class:`QdrantChunkStore`, one Qdrant collection per document collection
(schema in ``corpus._store_common``), on the embedded engine (qdrant-edge-py, default) or a Qdrant
server / cluster (qdrant-client). Implements :class:`corpus.types.ChunkStore` plus the record
and staging operations the catalogue and ingest need.

Usage example::

    store = QdrantChunkStore.embedded(data_dir / "qdrant")
    store.ensure_collection("manuals", dense_dim=None, embed_model=None)   # keyword-only
    store.upsert_chunks("manuals", chunks, [tok.sparse(c.context_text()) for c in chunks])
    hits = store.keyword_search("manuals", tok.sparse_query("FW-301"), top_k=5)
    store.close()
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from corpus._store_common import (
    KIND,
    STAGED,
    Backend,
    Flt,
    PointData,
    check_collection_name,
    point_id,
)
from corpus._store_search import StoreSearchMixin
from corpus.errors import StoreError
from corpus.types import Chunk, SparseVector

__all__ = ["PUBLISH_BATCH", "QdrantChunkStore"]

_BATCH = 256
#: kinds of the vector-less record points (never counted as chunks)
_RECORD_KINDS = ("meta", "document", "directory", "directory_part", "pages", "publishing")
#: record kind marking a document being published batch by batch (hidden from search until whole)
_PUBLISHING = "publishing"
#: chunks made visible per update operation when a large document is published
PUBLISH_BATCH = 512
_MAX_DOC_CHUNKS = 100_000


class QdrantChunkStore(StoreSearchMixin):
    """Chunk storage and dense / keyword / hybrid search on Qdrant (``ChunkStore`` protocol).

    Build one with :meth:`embedded`, :meth:`server` or :meth:`local`. Search never returns
    chunks of a document that is still being written (``staged``), and never sends Qdrant an
    empty sparse vector (an empty keyword query returns ``[]``). Every backend failure is a
    :class:`~corpus.errors.StoreError` with the cause chained.

    :param backend: an ``EdgeBackend`` or ``ClientBackend``.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._dense_ready: set[str] = set()
        self._hidden: dict[str, set[str]] = {}  # collection -> doc_ids being published

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def embedded(cls, root: str | Path) -> QdrantChunkStore:
        """Embedded engine, one shard per collection under ``root`` (``<data_dir>/qdrant``)."""
        from corpus._edge_backend import EdgeBackend

        return cls(EdgeBackend(Path(root)))

    @classmethod
    def server(
        cls, url: str, api_key: str | None = None, *, timeout: float = 10.0
    ) -> QdrantChunkStore:
        """Qdrant server or cluster at ``url`` (``http(s)://host:6333``), optional API key."""
        from qdrant_client import QdrantClient

        from corpus._client_backend import ClientBackend

        try:
            client = QdrantClient(url=url, api_key=api_key, timeout=int(timeout))
        except Exception as exc:
            raise StoreError(f"cannot configure a Qdrant client for {url!r}: {exc}") from exc
        return cls(ClientBackend(client))

    @classmethod
    def local(cls, path: str | Path | None = None) -> QdrantChunkStore:
        """qdrant-client local mode (in memory, or on disk at ``path``): the server API without
        a server; slow, for tests of the server backend."""
        from qdrant_client import QdrantClient

        from corpus._client_backend import ClientBackend

        client = QdrantClient(path=str(path)) if path else QdrantClient(location=":memory:")
        return cls(ClientBackend(client, local=True))

    def close(self) -> None:
        """Flush and release the backend (the embedded engine's shard locks)."""
        self.backend.close()

    def flush(self) -> None:
        """Make every write durable (embedded engine; a no-op on a server)."""
        self.backend.flush()

    def __enter__(self) -> QdrantChunkStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- collections and metadata ---------------------------------------------------------
    def ensure_collection(
        self, collection: str, *, dense_dim: int | None, embed_model: str | None
    ) -> None:
        """Create the collection if missing (``bm25`` always, ``dense`` when ``dense_dim``).

        An existing keyword-only collection gains the ``dense`` vector when a dimension is given
        (embedded engine only). :raises StoreError: the collection was built with another
        embedding model or dimension, or the backend failed.
        """
        check_collection_name(collection)
        if not self.backend.exists(collection):
            self.backend.create(collection, dense_dim)
            now = time.time()
            self._write_meta(
                collection,
                {
                    "embed_model": embed_model if dense_dim else None,
                    "dense_dim": dense_dim,
                    "corpus_version": 0,
                    "created_at": now,
                    "updated_at": now,
                },
            )
            return
        meta = self.collection_meta(collection)
        if dense_dim is None:
            return
        have_dim, have_model = meta.get("dense_dim"), meta.get("embed_model")
        if have_dim is None:
            if self.backend.dense_dim(collection) is None:
                self.backend.add_dense(collection, dense_dim)
            self.update_meta(collection, dense_dim=dense_dim, embed_model=embed_model)
        elif have_dim != dense_dim or (embed_model and have_model and have_model != embed_model):
            raise StoreError(
                f"collection {collection!r} holds {have_dim}-d vectors of {have_model!r}, not "
                f"{dense_dim}-d vectors of {embed_model!r}: use that model or re-create it"
            )

    def list_collections(self) -> list[str]:
        """Names of the collections that exist."""
        return self.backend.names()

    def drop_collection(self, collection: str) -> None:
        """Delete a collection with everything in it (no-op when missing)."""
        if self.backend.exists(check_collection_name(collection)):
            self.backend.drop(collection)
        self._dense_ready.discard(collection)

    # --- writing chunks ---------------------------------------------------------------------
    def upsert_chunks(self, collection: str, chunks: Sequence[Chunk],
                      sparse: Sequence[SparseVector],
                      dense: Sequence[Sequence[float]] | None = None, *,
                      staged: bool = False) -> None:
        """Write chunks with their sparse (and optionally dense) vectors, in batches of 256.

        An empty sparse vector is left out of its point (never sent to Qdrant). ``staged=True``
        hides the chunks from search until :meth:`publish_document`.
        :raises ValueError: when the vector lists do not match ``chunks`` in length.
        """
        if len(sparse) != len(chunks) or (dense is not None and len(dense) != len(chunks)):
            raise ValueError("need one sparse (and one dense, if any) vector per chunk")
        points = []
        for i, c in enumerate(chunks):
            payload = c.to_payload()
            if staged:
                payload["staged"] = STAGED
            sv = sparse[i]
            points.append(
                PointData(
                    point_id(c.chunk_id),
                    payload,
                    None if sv.is_empty() else (sv.indices, sv.values),
                    None if dense is None else dense[i],
                )
            )
        for start in range(0, len(points), _BATCH):
            self.backend.upsert(collection, points[start : start + _BATCH])

    def publish_document(
        self, collection: str, doc_id: str, chunk_ids: Sequence[str] = ()
    ) -> None:
        """Make a staged document's chunks visible to search, all at once for every reader.

        One update operation when ``chunk_ids`` (the document's chunks) number at most
        :data:`PUBLISH_BATCH`, or the backend is a Qdrant server (the work is the server's).
        In this process's embedded engine, which holds the interpreter lock for a whole
        operation (0.54 s for 10,808 chunks, so ~5 s for a 105k-chunk file, while no HTTP request
        of the process is answered), a larger document is published :data:`PUBLISH_BATCH` chunks
        per operation instead, and hidden from search meanwhile: a ``publishing`` record marks it
        first, every search excludes the marked documents (:meth:`hidden_documents`), and the
        mark goes when the last batch is done — so a reader sees none of the document, then all
        of it (issue 20: atomic, never partial). A crash between two batches leaves the mark:
        the published part stays hidden, and :meth:`purge_staged` deletes it with the staged
        rest.

        :raises StoreError: on backend failure (the mark is then left for :meth:`purge_staged`
            and the caller deletes the document's chunks).
        """
        flt = Flt(must=(("doc_id", doc_id), ("staged", STAGED)))
        if len(chunk_ids) <= PUBLISH_BATCH or not getattr(self.backend, "in_process", False):
            self.backend.delete_keys(collection, flt, ["staged"])
            return
        self.put_record(collection, _PUBLISHING, doc_id, {})
        hidden = self._hidden_set(collection)
        hidden.add(doc_id)
        for start in range(0, len(chunk_ids), PUBLISH_BATCH):
            ids = [point_id(c) for c in chunk_ids[start : start + PUBLISH_BATCH]]
            self.backend.delete_keys(collection, flt, ["staged"], ids)
        hidden.discard(doc_id)  # visible from here on, whole
        self.delete_record(collection, _PUBLISHING, doc_id)

    def hidden_documents(self, collection: str) -> frozenset[str]:
        """``doc_id`` s every search leaves out: documents being published batch by batch, or
        left half-published by a crash (:meth:`publish_document`); usually empty."""
        return frozenset(self._hidden_set(collection))

    def _hidden_set(self, collection: str) -> set[str]:
        got = self._hidden.get(collection)
        if got is None:  # once per collection and process: marks a crash left behind
            got = self._hidden[collection] = set(self.records(collection, _PUBLISHING))
        return got

    def purge_staged(self, collection: str) -> int:
        """Delete chunks left staged, or half-published, by an interrupted write; returns how
        many."""
        flt = Flt(must=(("staged", STAGED),))
        n = self.backend.count(collection, flt)
        if n:
            self.backend.delete(collection, flt)
        for doc_id in sorted(self._hidden_set(collection)):
            n += self.delete_document(collection, doc_id)
            self.delete_record(collection, _PUBLISHING, doc_id)
            self._hidden_set(collection).discard(doc_id)
        return n

    def delete_document(self, collection: str, doc_id: str) -> int:
        """Delete every chunk of ``doc_id``; returns how many were deleted."""
        flt = Flt(must=(("doc_id", doc_id),))
        n = self.backend.count(collection, flt)
        if n:
            self.backend.delete(collection, flt)
        return n

    # --- reading chunks ---------------------------------------------------------------------
    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks by id, in the order asked; unknown ids are skipped."""
        ids = [point_id(c) for c in chunk_ids]
        found = self.backend.retrieve(collection, ids) if ids else {}
        return [Chunk.from_payload(found[i]) for i in ids if i in found and "chunk_id" in found[i]]

    def count_chunks(self, collection: str, doc_id: str | None = None) -> int:
        """Number of visible chunks (of one document when ``doc_id`` is given)."""
        must = (("doc_id", doc_id),) if doc_id else ()
        flt = Flt(must=must, must_not=((KIND, list(_RECORD_KINDS)),
                                        ("staged", STAGED)))
        return self.backend.count(collection, flt)

    def document_chunks(self, collection: str, doc_id: str) -> list[Chunk]:
        """All chunks of a document in order (by ``ordinal``)."""
        rows = self.backend.scroll(
            collection, Flt(must=(("doc_id", doc_id),)), order_by="ordinal", limit=_MAX_DOC_CHUNKS
        )
        return sorted((Chunk.from_payload(r) for r in rows), key=lambda c: c.ordinal)

    def neighbour(self, collection: str, chunk_id: str, step: int) -> Chunk | None:
        """The chunk ``step`` positions away in the same document (``+1`` next, ``-1``
        previous); ``None`` past either end or for an unknown chunk."""
        base = self.get_chunks(collection, [chunk_id])
        if not base:
            return None
        if step == 0:
            return base[0]
        target = base[0].ordinal + step
        if target < 0:
            return None
        rows = self.backend.scroll(
            collection,
            Flt(must=(("doc_id", base[0].doc_id), ("ordinal", target))),
            order_by=None,
            limit=1,
        )
        return Chunk.from_payload(rows[0]) if rows else None
