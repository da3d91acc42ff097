"""Value types of the answer cache (:mod:`gateway.cache`): configuration, entries, counters."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["CacheConfig", "CacheCounters", "CacheEntry", "CacheWrite", "VersionScope"]

VersionScope = Literal["corpus", "document"]


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """Answer-cache configuration (built from settings by :func:`build_answer_cache`).

    :param ttl_s: lifetime of an entry whose answer was found, seconds (>= 1).
    :param negative_ttl_s: lifetime of a "not found" entry, seconds (>= 1).
    :param max_entries: LRU capacity of :class:`MemoryAnswerCache` (>= 1).
    :param version_scope: ``corpus`` or ``document`` (module docstring).
    :param key_prefix: prefix of every Redis key (``loopgate:``).
    :param near_entries: entries of the in-process near-cache in front of the store (0 = off;
        ``gateway.cache._near_cache``).
    :param answer_tag: what else than the corpus decides an answer — the LLM setup
        (:func:`gateway.cache.build.answer_tag`); part of every entry key, so answers cached
        without an LLM are not served once one is configured (a new-user trial got the
        extractive answers of before for 24 h), nor another model's. ``""``: none (no LLM).
    """

    ttl_s: int = 86400
    negative_ttl_s: int = 3600
    max_entries: int = 10000
    version_scope: VersionScope = "corpus"
    key_prefix: str = "loopgate:"
    near_entries: int = 0
    answer_tag: str = ""

    def __post_init__(self) -> None:
        if self.ttl_s < 1 or self.negative_ttl_s < 1 or self.max_entries < 1:
            raise ValueError("ttl_s, negative_ttl_s and max_entries must be >= 1")
        if self.near_entries < 0:
            raise ValueError("near_entries must be >= 0")
        if self.version_scope not in ("corpus", "document"):
            raise ValueError(
                f"version_scope must be 'corpus' or 'document', not {self.version_scope!r}"
            )


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One cached answer as returned by :meth:`AnswerCache.get`.

    :param answer: the JSON-safe answer payload the caller stored (answer text, citations, …).
    :param found: False for a cached "not found".
    :param doc_ids: documents the answer cites.
    :param question: the question as first asked; ``normalized`` its normalised form.
    :param corpus_version: corpus version the answer was computed on.
    :param created_at: Unix time of :meth:`AnswerCache.put`.
    :param key: the entry's storage key; ``via_alias`` True when found through an alias summary.
    """

    answer: dict[str, Any]
    found: bool
    doc_ids: tuple[str, ...]
    question: str
    normalized: str
    collection: str
    mode: str
    corpus_version: str
    created_at: float
    key: str = ""
    via_alias: bool = False
    alias: str | None = None

    def to_json(self) -> str:
        """Serialised form stored under the entry key."""
        data = {
            k: getattr(self, k)
            for k in (
                "answer",
                "found",
                "question",
                "normalized",
                "collection",
                "mode",
                "corpus_version",
                "created_at",
                "alias",
            )
        }
        data["doc_ids"] = list(self.doc_ids)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes, key: str, via_alias: bool = False) -> CacheEntry:
        """Rebuild an entry read from the store."""
        data = json.loads(raw)
        data["doc_ids"] = tuple(data.get("doc_ids") or ())
        return cls(**data, key=key, via_alias=via_alias)


@dataclass(slots=True)
class CacheCounters:
    """Per-instance counters (the route record carries the per-request facts)."""

    hits: int = 0
    misses: int = 0
    alias_hits: int = 0
    near_hits: int = 0
    guard_rejections: int = 0
    stores: int = 0
    refused_stores: int = 0
    invalidated: int = 0
    extra: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CacheWrite:
    """One entry written by a :class:`gateway.cache._backends.CacheStore` (Lua ``_STORE_LUA`` on
    Redis, the same steps in process): ``value`` under ``key`` for ``ttl`` seconds, the
    ``alias_key`` pointing at it, its membership in each per-document index
    (``doc_index_keys``) and in its corpus version's set (``version_key``, registered as
    ``version`` in the hash ``versions_key``); refused while one of ``tombstone_keys`` (a
    cited document retired) lives."""

    key: str
    value: str
    ttl: int
    alias_key: str | None
    doc_index_keys: Sequence[str]
    tombstone_keys: Sequence[str]
    version_key: str | None
    versions_key: str
    version: str
