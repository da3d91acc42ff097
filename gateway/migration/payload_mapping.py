"""Where a foreign Qdrant collection keeps each chunk field: :class:`PayloadMapping` (dotted
payload keys, the syntax Qdrant filters use) and the helpers that read a payload and a point id
through it (``gateway.migration.existing_collection``)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from corpus.errors import StoreError

__all__ = ["PayloadMapping", "dig", "point_id", "to_int"]


@dataclass(frozen=True, slots=True)
class PayloadMapping:
    """Where a foreign collection keeps each chunk field (dotted payload keys; ``""`` = absent).

    :param qdrant_collection: the collection's name in Qdrant.
    :param text: payload key of the chunk text (required).
    :param page_base: 0 when the pipeline counts pages from 0 (LangChain ``PyPDFLoader``), else 1.
    :param dense_vector: name of the dense vector (``""`` = the unnamed default vector).
    :param sparse_vector: name of a LoopGate-compatible sparse vector (``""`` = none).
    :param embed_model: the model that made the dense vectors (reported in ``collection_meta``).
    """

    qdrant_collection: str
    text: str
    path: str = ""
    doc_id: str = ""
    title: str = ""
    page: str = ""
    page_end: str = ""
    section: str = ""
    ordinal: str = ""
    page_base: int = 1
    dense_vector: str = ""
    sparse_vector: str = ""
    embed_model: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PayloadMapping:
        """Build from settings JSON; unknown keys or a missing ``text`` raise StoreError."""
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise StoreError(
                f"unknown payload-mapping key(s) {sorted(unknown)}; allowed: {sorted(known)}"
            )
        if not data.get("qdrant_collection") or not data.get("text"):
            raise StoreError("a payload mapping needs at least qdrant_collection and text")
        kw = dict(data)
        kw["page_base"] = int(kw.get("page_base", 1))
        if kw["page_base"] not in (0, 1):
            raise StoreError("page_base must be 0 or 1")
        return cls(**kw)

    @property
    def doc_key(self) -> str:
        """Payload key identifying a document (``doc_id`` if mapped, else ``path``)."""
        return self.doc_id or self.path


def dig(payload: Mapping[str, Any], key: str) -> Any:
    """Value at a dotted key (``metadata.source``), or None."""
    if not key:
        return None
    cur: Any = payload
    for part in key.split("."):
        if not isinstance(cur, Mapping) or part not in cur:
            return None
        cur = cur[part]
    return cur


def to_int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def point_id(chunk_id: str) -> int | str | None:
    """Qdrant point id from a chunk id (unsigned int or UUID), or None if it is neither."""
    if chunk_id.isdigit():
        return int(chunk_id)
    try:
        return str(uuid.UUID(chunk_id))
    except ValueError:
        return None
