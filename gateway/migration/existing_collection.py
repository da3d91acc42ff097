"""Read an existing Qdrant collection built by another pipeline, before re-ingesting it.

:class:`QdrantExistingCollectionStore` implements the *read side* of ``corpus.types.ChunkStore``
over qdrant-client, so ``rag.retriever.HybridRetriever`` (and the LoopAgent's read/next/prev
tools) can answer from a team's current index. A :class:`PayloadMapping` says where each chunk
field is in the foreign payload (dotted keys, the same syntax Qdrant filters use), e.g. for a
LangChain-built collection::

    PayloadMapping(qdrant_collection="docs_v3", text="page_content",
                   path="metadata.source", page="metadata.page", page_base=0)

What it can and cannot do:

- dense search works when the gateway's embedding model is the one the pipeline used
  (``embed_model`` in the mapping is reported by :meth:`collection_meta`, and the vector size
  is read from the collection; name the vector with ``dense_vector`` if it is a named one);
- keyword (BM25) search works only with ``sparse_vector`` naming a sparse vector built with
  LoopGate's tokenizer — a foreign pipeline's sparse vectors hash terms differently — otherwise
  :meth:`keyword_search` returns ``[]`` and hybrid search is dense-only;
- chunk ids are the Qdrant point ids (``str``); ``doc_id`` is the mapped document field, or the
  path when none is mapped; chunk order within a document follows ``ordinal`` when mapped, else
  (page, point id) — good enough for paging when chunks were written in order;
- line numbers and character offsets are unknown (0); citations still name file and page;
- ``corpus_version`` is ``"ext-<points_count>"``: it moves when points are added or removed,
  not when a point is rewritten in place;
- every write method raises ``corpus.errors.StoreError`` (the collection is read-only here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from qdrant_client import QdrantClient
from qdrant_client import models as qm

from corpus.errors import StoreError
from corpus.types import Chunk, SearchFilter, SearchHit, SparseVector
from gateway.migration.payload_mapping import PayloadMapping, dig, point_id, to_int

__all__ = ["PayloadMapping", "QdrantExistingCollectionStore"]


class QdrantExistingCollectionStore:
    """Read-only ``ChunkStore`` over collections another pipeline built (see module docstring).

    Usage example::

        store = QdrantExistingCollectionStore(
            QdrantClient(url="http://qdrant:6333"),
            {"manuals": PayloadMapping("docs_v3", text="page_content", path="metadata.source",
                                       page="metadata.page", page_base=0,
                                       embed_model="intfloat/multilingual-e5-small")})
        hits = store.dense_search("manuals", embedder.embed_query("warranty?"), top_k=5)

    :param client: a qdrant-client (server URL, or local mode in tests).
    :param mappings: LoopGate collection name → mapping.
    """

    def __init__(self, client: QdrantClient, mappings: Mapping[str, PayloadMapping]) -> None:
        self.client = client
        self.mappings = dict(mappings)

    def _map(self, collection: str) -> PayloadMapping:
        try:
            return self.mappings[collection]
        except KeyError:
            raise StoreError(f"no payload mapping for collection {collection!r}") from None

    def _call(self, what: str, fn: Any, *args: Any, **kw: Any) -> Any:
        """Run a qdrant-client call, translating its errors to StoreError."""
        try:
            return fn(*args, **kw)
        except StoreError:
            raise
        except Exception as exc:  # UnexpectedResponse, httpx/grpc errors, local-mode ValueError
            raise StoreError(f"Qdrant failed to {what}: {type(exc).__name__}: {exc}") from exc

    def _chunk(self, m: PayloadMapping, point: Any) -> Chunk | None:
        """A Chunk from one point, or None when the point has no text under the mapping."""
        payload = point.payload or {}
        text = dig(payload, m.text)
        if not isinstance(text, str) or not text:
            return None
        path = str(dig(payload, m.path) or "")
        doc = dig(payload, m.doc_id) if m.doc_id else path
        shift = 1 - m.page_base  # 0-based page numbers become 1-based
        page = to_int(dig(payload, m.page), m.page_base) + shift if m.page else 1
        raw_end = dig(payload, m.page_end) if m.page_end else None
        page_end = to_int(raw_end) + shift if raw_end is not None else page
        section = dig(payload, m.section)
        if isinstance(section, list):
            section_path = tuple(str(s) for s in section)
        elif isinstance(section, str) and section:
            section_path = tuple(s.strip() for s in section.split(" > "))
        else:
            section_path = ()
        return Chunk(
            chunk_id=str(point.id),
            doc_id=str(doc or ""),
            path=path,
            title=str(dig(payload, m.title) or path.rsplit("/", 1)[-1]),
            section_path=section_path,
            page_start=page,
            page_end=max(page, page_end),
            line_start=0,
            line_end=0,
            char_start=0,
            char_end=len(text),
            text=text,
            ordinal=to_int(dig(payload, m.ordinal)),
        )

    def _filter(self, m: PayloadMapping, flt: SearchFilter | None) -> qm.Filter | None:
        if flt is None or flt.is_empty():
            return None
        must: list[qm.Condition] = []
        if flt.doc_ids:
            must.append(qm.FieldCondition(key=m.doc_key, match=qm.MatchAny(any=list(flt.doc_ids))))
        if flt.paths and m.path:
            must.append(qm.FieldCondition(key=m.path, match=qm.MatchAny(any=list(flt.paths))))
        return qm.Filter(must=must) if must else None

    def _hits(
        self, m: PayloadMapping, points: Sequence[Any], flt: SearchFilter | None, top_k: int
    ) -> list[SearchHit]:
        hits = []
        for p in points:
            chunk = self._chunk(m, p)
            if chunk is None:
                continue
            if (
                flt
                and flt.section_prefix
                and chunk.section_path[: len(flt.section_prefix)] != flt.section_prefix
            ):
                continue
            hits.append(SearchHit(chunk, float(p.score)))
        return hits[:top_k]

    # --- read side of ChunkStore ----------------------------------------------------------
    def list_collections(self) -> list[str]:
        """Mapped collection names whose Qdrant collection exists."""
        return [
            c
            for c, m in self.mappings.items()
            if self._call("check", self.client.collection_exists, m.qdrant_collection)
        ]

    def collection_meta(self, collection: str) -> dict[str, Any]:
        """``embed_model`` (from the mapping), ``dense_dim`` (from Qdrant), ``corpus_version``."""
        m = self._map(collection)
        info = self._call("read collection info", self.client.get_collection, m.qdrant_collection)
        vectors = info.config.params.vectors
        params = vectors.get(m.dense_vector) if isinstance(vectors, dict) else vectors
        return {
            "embed_model": m.embed_model or None,
            "dense_dim": getattr(params, "size", None),
            "corpus_version": f"ext-{info.points_count or 0}",
            "external": True,
            "qdrant_collection": m.qdrant_collection,
        }

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks by id in the order asked; unknown or malformed ids are skipped."""
        m = self._map(collection)
        ids = [pid for pid in (point_id(c) for c in chunk_ids) if pid is not None]
        if not ids:
            return []
        points = self._call(
            "retrieve points", self.client.retrieve, m.qdrant_collection, ids=ids, with_payload=True
        )
        by_id = {str(p.id): c for p in points if (c := self._chunk(m, p)) is not None}
        return [by_id[c] for c in chunk_ids if c in by_id]

    def document_chunks(self, collection: str, doc_id: str) -> list[Chunk]:
        """All chunks of a document, ordered by ``ordinal`` when mapped, else (page, point id)."""
        m = self._map(collection)
        if not m.doc_key:
            raise StoreError(f"collection {collection!r} maps neither doc_id nor path")
        flt = qm.Filter(must=[qm.FieldCondition(key=m.doc_key, match=qm.MatchValue(value=doc_id))])
        chunks: list[Chunk] = []
        offset = None
        while True:
            points, offset = self._call(
                "scroll a document",
                self.client.scroll,
                m.qdrant_collection,
                scroll_filter=flt,
                limit=256,
                offset=offset,
                with_payload=True,
            )
            chunks.extend(c for p in points if (c := self._chunk(m, p)) is not None)
            if offset is None:
                break
        key = (
            (lambda c: (c.ordinal, c.page_start))
            if m.ordinal
            else (lambda c: (c.page_start, to_int(c.chunk_id, 0), c.chunk_id))
        )
        return sorted(chunks, key=key)

    def neighbour(self, collection: str, chunk_id: str, step: int) -> Chunk | None:
        """The chunk ``step`` positions away in the same document, or None."""
        found = self.get_chunks(collection, [chunk_id])
        if not found:
            return None
        doc = self.document_chunks(collection, found[0].doc_id)
        ids = [c.chunk_id for c in doc]
        i = ids.index(chunk_id) + step if chunk_id in ids else -1
        return doc[i] if 0 <= i < len(doc) else None

    def dense_search(
        self, collection: str, vector: Sequence[float], top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Cosine (or the collection's metric) search on the dense vector."""
        m = self._map(collection)
        res = self._call(
            "run a dense query",
            self.client.query_points,
            m.qdrant_collection,
            query=list(vector),
            using=m.dense_vector or None,
            limit=top_k * (4 if flt and flt.section_prefix else 1),
            query_filter=self._filter(m, flt),
            with_payload=True,
        )
        return self._hits(m, res.points, flt, top_k)

    def keyword_search(
        self, collection: str, query: SparseVector, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """BM25 search on ``sparse_vector``; ``[]`` when the collection has no compatible one."""
        m = self._map(collection)
        if not m.sparse_vector or query.is_empty():
            return []
        res = self._call(
            "run a keyword query",
            self.client.query_points,
            m.qdrant_collection,
            query=qm.SparseVector(indices=list(query.indices), values=list(query.values)),
            using=m.sparse_vector,
            limit=top_k,
            query_filter=self._filter(m, flt),
            with_payload=True,
        )
        return self._hits(m, res.points, flt, top_k)

    def hybrid_search(
        self,
        collection: str,
        vector: Sequence[float] | None,
        query: SparseVector,
        top_k: int,
        *,
        prefetch_k: int = 50,
        flt: SearchFilter | None = None,
    ) -> list[SearchHit]:
        """RRF of dense and sparse when both exist; otherwise whichever one does."""
        m = self._map(collection)
        if not (m.sparse_vector and not query.is_empty()):
            return self.dense_search(collection, vector, top_k, flt) if vector is not None else []
        if vector is None:
            return self.keyword_search(collection, query, top_k, flt)
        qf = self._filter(m, flt)
        prefetch = [
            qm.Prefetch(
                query=list(vector), using=m.dense_vector or None, limit=prefetch_k, filter=qf
            ),
            qm.Prefetch(
                query=qm.SparseVector(indices=list(query.indices), values=list(query.values)),
                using=m.sparse_vector,
                limit=prefetch_k,
                filter=qf,
            ),
        ]
        res = self._call(
            "run a hybrid query",
            self.client.query_points,
            m.qdrant_collection,
            prefetch=prefetch,
            query=qm.FusionQuery(fusion=qm.Fusion.RRF),
            limit=top_k,
            with_payload=True,
        )
        return self._hits(m, res.points, flt, top_k)

    # --- write side: refused -------------------------------------------------------------------
    def _read_only(self, *_: Any, **__: Any) -> Any:
        raise StoreError("an existing collection is read-only in LoopGate; re-ingest to write")

    ensure_collection = upsert_chunks = delete_document = _read_only
