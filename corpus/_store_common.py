"""Shared pieces of the two Qdrant backends of :class:`corpus.qdrant_store.QdrantChunkStore`:
point ids, the backend-neutral filter, the collection schema names, and the backend protocol.

Collection schema (identical on both backends, DESIGN.md "All retrieval state lives in Qdrant"):

- named dense vector ``dense`` (cosine; absent in a keyword-only collection) and sparse vector
  ``bm25`` (``Modifier.IDF``);
- chunk points: payload = :meth:`corpus.types.Chunk.to_payload` (plus ``staged: "yes"`` while a
  document is being written, see ``corpus.catalogue``); point id = :func:`point_id` of the
  chunk id;
- record points (no vectors, so no search ever returns them): the collection metadata
  (``_kind = "meta"``) and one catalogue entry per document (``_kind = "document"``). Keeping
  them in the collection lets every replica on a Qdrant cluster share them.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from corpus.errors import StoreError

__all__ = [
    "BM25",
    "DENSE",
    "KIND",
    "STAGED",
    "Backend",
    "Flt",
    "PointData",
    "check_collection_name",
    "native_filter",
    "named_queries",
    "point_id",
    "point_vectors",
    "record_id",
    "required_filter",
    "scroll_pages",
    "translate_errors",
]

F = TypeVar("F")
V = TypeVar("V")

DENSE = "dense"
BM25 = "bm25"
KIND = "_kind"
_NS = uuid.UUID("6f1f3a52-8a8e-4c55-9a43-2f0d0c4b7a10")  # LoopGate's uuid5 namespace
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$")

#: Payload fields that get an index (keyword, integer or bool) on both backends.
INDEXED_FIELDS = {
    "doc_id": "keyword",
    "path": "keyword",
    KIND: "keyword",
    "ordinal": "integer",
    "staged": "keyword",
}
#: Value of the ``staged`` payload field while a document is being written (a keyword, not a
#: bool: qdrant-edge-py's ``MatchValue(True)`` does not match a stored ``true``).
STAGED = "yes"


def point_id(chunk_id: str) -> str:
    """Deterministic Qdrant point id (UUID5 string) of a chunk id."""
    return str(uuid.uuid5(_NS, chunk_id))


def record_id(kind: str, key: str) -> str:
    """Point id of a record point (``kind`` = ``meta`` / ``document``, ``key`` its name)."""
    return str(uuid.uuid5(_NS, f"\x00{kind}\x00{key}"))


def check_collection_name(name: str) -> str:
    """Return ``name`` if it is a valid collection name (1–63 of ``A-Za-z0-9_-``, not starting
    with ``_``/``-``), else raise :class:`StoreError`."""
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise StoreError(
            f"invalid collection name {name!r}: use 1-63 letters, digits, '_' or '-', "
            "starting with a letter or digit"
        )
    return name


@dataclass(frozen=True, slots=True)
class Flt:
    """Backend-neutral filter: every ``must`` pair matches, no ``must_not`` pair matches.
    A list value means "any of" (``MatchAny``), a scalar means equality (``MatchValue``)."""

    must: tuple[tuple[str, Any], ...] = ()
    must_not: tuple[tuple[str, Any], ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    def is_empty(self) -> bool:
        """True when the filter restricts nothing."""
        return not (self.must or self.must_not)


@dataclass(frozen=True, slots=True)
class PointData:
    """One point to write: ``sparse`` as ``(indices, values)`` or ``None`` (omitted), ``dense``
    or ``None`` (omitted), and the payload."""

    id: str
    payload: dict[str, Any]
    sparse: tuple[Sequence[int], Sequence[float]] | None = None
    dense: Sequence[float] | None = None


class Backend(Protocol):
    """What :class:`~corpus.qdrant_store.QdrantChunkStore` needs from a Qdrant engine.
    Every method raises :class:`StoreError` on backend failure (cause chained)."""

    def exists(self, collection: str) -> bool: ...
    def create(self, collection: str, dense_dim: int | None) -> None: ...
    def dense_dim(self, collection: str) -> int | None: ...
    def add_dense(self, collection: str, dim: int) -> None: ...
    def names(self) -> list[str]: ...
    def drop(self, collection: str) -> None: ...
    def upsert(self, collection: str, points: Sequence[PointData]) -> None: ...
    def delete(self, collection: str, flt: Flt | None, ids: Sequence[str] = ()) -> None: ...
    def delete_keys(
        self, collection: str, flt: Flt, keys: Sequence[str], ids: Sequence[str] = ()
    ) -> None: ...
    def retrieve(self, collection: str, ids: Sequence[str]) -> dict[str, dict[str, Any]]: ...
    def scroll(
        self, collection: str, flt: Flt, *, order_by: str | None, limit: int
    ) -> list[dict[str, Any]]: ...
    def count(self, collection: str, flt: Flt) -> int: ...
    def search(self, collection: str, *, dense: Sequence[float] | None,
               sparse: tuple[Sequence[int], Sequence[float]] | None, limit: int, flt: Flt,
               prefetch_k: int = 0, rrf_k: int = 60, weights: Sequence[float] | None = None
               ) -> list[tuple[dict[str, Any], float]]: ...
    def flush(self) -> None: ...
    def close(self) -> None: ...


def native_filter(flt: Flt | None, cond: Callable[[str, Any], Any],
                  make: Callable[..., F]) -> F | None:
    """``flt`` in a backend's own types: ``make(must=[...], must_not=[...])`` of ``cond(key,
    value)`` conditions (``None`` for an empty list); ``None`` when ``flt`` restricts nothing."""
    if flt is None or flt.is_empty():
        return None
    return make(
        must=[cond(k, v) for k, v in flt.must] or None,
        must_not=[cond(k, v) for k, v in flt.must_not] or None,
    )


def required_filter(native: F | None) -> F:
    """The filter of a delete/update: an empty one is refused (it would touch every point).

    :raises StoreError: ``native`` is ``None``.
    """
    if native is None:
        raise StoreError("refusing a delete/update without a filter (it would touch every point)")
    return native


def point_vectors(point: PointData, sparse: Callable[[list[int], list[float]], Any]
                  ) -> dict[str, Any]:
    """The named vectors of ``point``: ``bm25`` as ``sparse(indices, values)`` (the engine's
    sparse vector type), ``dense`` as a list of floats; a missing one is left out."""
    vec: dict[str, Any] = {}
    if point.sparse is not None:
        vec[BM25] = sparse(list(point.sparse[0]), list(point.sparse[1]))
    if point.dense is not None:
        vec[DENSE] = [float(x) for x in point.dense]
    return vec


def named_queries(dense: Sequence[float] | None,
                  sparse: tuple[Sequence[int], Sequence[float]] | None,
                  make_sparse: Callable[[list[int], list[float]], V]
                  ) -> list[tuple[V | list[float], str]]:
    """``(query vector, vector name)`` of a search: the dense query, then the sparse one, each
    when given."""
    queries: list[tuple[V | list[float], str]] = []
    if dense is not None:
        queries.append(([float(x) for x in dense], DENSE))
    if sparse is not None:
        queries.append((make_sparse(list(sparse[0]), list(sparse[1])), BM25))
    return queries


def scroll_pages(page: Callable[[Any, int], tuple[Sequence[Any], Any]], limit: int,
                 ordered: bool) -> list[dict[str, Any]]:
    """The payloads of up to ``limit`` points read page by page: ``page(offset, n)`` returns up
    to ``n`` (≤ 1000) records and the next offset (``None`` at the end); an ordered scroll
    (``order_by``) is read in one page, as both engines page only unordered scrolls."""
    out: list[dict[str, Any]] = []
    offset = None
    while len(out) < limit:
        recs, offset = page(offset, min(1000, limit - len(out)))
        out.extend(dict(r.payload or {}) for r in recs)
        if offset is None or not recs or ordered:
            break
    return out


@contextmanager
def translate_errors(message: Callable[[Exception], str]) -> Iterator[None]:
    """Turn whatever a backend's library raises inside the block into a :class:`StoreError`
    (``message(exc)``, the cause chained); a :class:`StoreError` passes as it is."""
    try:
        yield
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(message(exc)) from exc
