"""The answer cache's logic over a store (:class:`AnswerCache`): keys, aliases, the
per-document index, tombstones, version sets and the near-cache — the design is described in
:mod:`gateway.cache` (the package docstring); the stores are in ``_backends`` (Redis) and
``_memory_store`` (in process), the two caches and their builder in :mod:`gateway.cache.build`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gateway.cache._near_cache import NearCache
from gateway.cache._types import CacheConfig, CacheCounters, CacheEntry, CacheWrite
from gateway.cache.normalize import normalize_question
from gateway.cache.question_guard import compare_questions
from gateway.redis_support import RedisUnavailableError

if TYPE_CHECKING:

    from gateway.cache._backends import CacheStore

__all__ = ["AnswerCache"]

_ANY_VERSION = "*"


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:40]


class AnswerCache:
    """Answer cache over a :class:`gateway.cache._backends.CacheStore` (shared logic).

    Usage example::

        cache = MemoryAnswerCache(CacheConfig(ttl_s=600))
        await cache.put("退货期限是几天？", {"answer": "7 天"}, collection="c", mode="auto",
                        corpus_version="v1", found=True, doc_ids=["<sha256>"])
        entry = await cache.get("退货期限是几天 ?", collection="c", mode="auto",
                                corpus_version="v1")

    Redis failures raise :class:`gateway.redis_support.RedisUnavailableError` (fast, through a
    circuit breaker); the caller serves without cache and flags the route record.
    """

    backend: str = "abstract"

    def __init__(self, store: CacheStore, config: CacheConfig) -> None:
        self.config = config
        self.counters = CacheCounters()
        self._pending: list[tuple[str, str, Any]] = []
        self._store = store
        self.near = NearCache(config.near_entries) if config.near_entries > 0 else None

    def _keep_near(self, question: str, entry: CacheEntry, collection: str, mode: str,
                   corpus_version: str) -> None:
        if self.near is not None:
            ttl = self.config.ttl_s if entry.found else self.config.negative_ttl_s
            self.near.put(collection, mode, question, entry, version=corpus_version,
                          expires_at=entry.created_at + ttl)

    # --- keys -----------------------------------------------------------------------------
    def _ns(self, collection: str) -> str:
        if not isinstance(collection, str) or not collection:
            raise ValueError("collection must be a non-empty string")
        return f"{self.config.key_prefix}cache:{{{_digest(collection)[:12]}}}:"

    def _tokens(self, corpus_version: str, found: bool | None) -> list[str]:
        """Version tokens a key may use: for put (``found`` given) one, for get all candidates."""
        if self.config.version_scope == "corpus":
            return [corpus_version]
        if found is None:
            return [_ANY_VERSION, corpus_version]
        return [_ANY_VERSION if found else corpus_version]

    def _entry_key(self, ns: str, mode: str, token: str, summary: str) -> str:
        return f"{ns}e:{_digest(*self._mode(mode), token, summary)}"

    def _alias_key(self, ns: str, mode: str, token: str, alias: str) -> str:
        return f"{ns}a:{_digest(*self._mode(mode), token, alias)}"

    def _mode(self, mode: str) -> tuple[str, ...]:
        """The key's mode part: with the answer configuration's tag when there is one
        (``CacheConfig.answer_tag``: an answer written with another LLM setup is another
        entry; the per-document sets stay shared, so a changed document retires both)."""
        tag = self.config.answer_tag
        return (mode, tag) if tag else (mode,)

    @staticmethod
    def _summary(question: str, what: str = "question") -> str:
        summary = normalize_question(question)
        if not summary:
            raise ValueError(f"{what} is empty after normalisation: {question!r}")
        return summary

    # --- public API -------------------------------------------------------------------------
    def peek(
        self, question: str, *, collection: str, mode: str, corpus_version: str
    ) -> CacheEntry | None:
        """The near-cache entry for exactly ``question`` at ``corpus_version``, or None (no I/O,
        never raises; a None says nothing about the store: call :meth:`get`)."""
        if self.near is None:
            return None
        entry = self.near.get(collection, mode, question, version=corpus_version)
        if entry is not None:
            self.counters.hits += 1
            self.counters.near_hits += 1
        return entry

    async def get(
        self,
        question: str,
        *,
        collection: str,
        mode: str,
        corpus_version: str,
        alias: str | None = None,
    ) -> CacheEntry | None:
        """The cached answer for ``question`` (or its ``alias`` summary), or None on a miss.

        :raises ValueError: empty question/collection.
        :raises RedisUnavailableError: Redis down (Redis backend only).
        """
        near = self.peek(question, collection=collection, mode=mode,
                         corpus_version=corpus_version)
        if near is not None:
            return near
        summary, ns = self._summary(question), self._ns(collection)
        await self._flush_pending()
        tokens = self._tokens(corpus_version, None)
        keys = [self._entry_key(ns, mode, t, summary) for t in tokens]
        for key, raw in zip(keys, await self._store.mget(keys), strict=True):
            if raw is not None:
                entry = CacheEntry.from_json(raw, key)
                if entry.normalized == summary:
                    self.counters.hits += 1
                    self._keep_near(question, entry, collection, mode, corpus_version)
                    return entry
        if alias:
            alias_summary = self._summary(alias, "alias")
            akeys = [self._alias_key(ns, mode, t, alias_summary) for t in tokens]
            for target in await self._store.mget(akeys):
                if target is None:
                    continue
                tkey = target.decode() if isinstance(target, bytes) else target
                (raw,) = await self._store.mget([tkey])
                if raw is None:
                    continue
                entry = CacheEntry.from_json(raw, tkey, via_alias=True)
                if not compare_questions(entry.question, question).compatible:
                    self.counters.guard_rejections += 1
                    continue
                self.counters.alias_hits += 1
                return entry
        self.counters.misses += 1
        return None

    async def put(
        self,
        question: str,
        answer: dict[str, Any],
        *,
        collection: str,
        mode: str,
        corpus_version: str,
        found: bool,
        doc_ids: Sequence[str] = (),
        alias: str | None = None,
        ttl_s: int | None = None,
    ) -> str | None:
        """Store ``answer`` for ``question``; returns the entry key, or None when refused
        because a cited document was retired meanwhile.

        :param answer: JSON-safe payload (``TypeError`` otherwise).
        :param doc_ids: documents the answer cites (each becomes a per-document index entry).
        :param ttl_s: lifetime override, seconds; default ``ttl_s`` / ``negative_ttl_s``.
        :raises ValueError: empty question/collection or a non-positive ``ttl_s``.
        :raises RedisUnavailableError: Redis down (Redis backend only).
        """
        summary, ns = self._summary(question), self._ns(collection)
        await self._flush_pending()
        ttl = (
            ttl_s
            if ttl_s is not None
            else (self.config.ttl_s if found else self.config.negative_ttl_s)
        )
        if ttl < 1:
            raise ValueError("ttl_s must be >= 1")
        docs = tuple(dict.fromkeys(d for d in doc_ids if d))
        (token,) = self._tokens(corpus_version, found)
        entry = CacheEntry(
            answer=answer,
            found=found,
            doc_ids=docs,
            question=question,
            normalized=summary,
            collection=collection,
            mode=mode,
            corpus_version=corpus_version,
            created_at=time.time(),
            alias=alias,
        )
        key = self._entry_key(ns, mode, token, summary)
        alias_key = None
        if alias:
            alias_key = self._alias_key(ns, mode, token, self._summary(alias, "alias"))
        version_key = None if token == _ANY_VERSION else f"{ns}v:{_digest(token)}"
        stored = await self._store.store(CacheWrite(
            key, entry.to_json(), ttl, alias_key=alias_key,
            doc_index_keys=[f"{ns}d:{d}" for d in docs],
            tombstone_keys=[f"{ns}x:{d}" for d in docs],
            version_key=version_key, versions_key=f"{ns}vs", version=token,
        ))
        if stored:
            self.counters.stores += 1
            self._keep_near(question, entry, collection, mode, corpus_version)
            return key
        self.counters.refused_stores += 1
        return None

    async def invalidate_documents(self, collection: str, doc_ids: Sequence[str]) -> int:
        """Retire every entry citing one of ``doc_ids`` (changed or deleted documents) and
        tombstone the ids; returns the number of entries deleted."""
        ns = self._ns(collection)
        docs = [d for d in dict.fromkeys(doc_ids) if d]
        if not docs:
            return 0
        if self.near is not None:
            self.near.drop_collection(collection)
        await self._flush_pending()
        try:
            n = await self._store.invalidate(
                [f"{ns}d:{d}" for d in docs], [f"{ns}x:{d}" for d in docs], self.config.ttl_s
            )
        except RedisUnavailableError:
            self._pending.append(("docs", collection, docs))
            raise
        self.counters.invalidated += n
        return n

    async def retire_versions(self, collection: str, keep_version: str) -> int:
        """Delete version-bound entries of ``collection`` from any version but ``keep_version``;
        returns the number of entries deleted."""
        ns = self._ns(collection)
        if self.near is not None:
            self.near.drop_collection(collection)
        await self._flush_pending()
        try:
            n = await self._store.retire(f"{ns}vs", keep_version)
        except RedisUnavailableError:
            self._pending.append(("retire", collection, keep_version))
            raise
        self.counters.invalidated += n
        return n

    async def _flush_pending(self) -> None:
        """Replay invalidations that failed while Redis was down, oldest first, before any
        other operation (so no entry citing a changed document is served once Redis is back).
        Pending invalidations live in this process only: they are lost if it restarts."""
        while self._pending:
            kind, collection, arg = self._pending[0]
            ns = self._ns(collection)
            if kind == "docs":
                docs = list(arg)
                n = await self._store.invalidate(
                    [f"{ns}d:{d}" for d in docs], [f"{ns}x:{d}" for d in docs], self.config.ttl_s
                )
            else:
                n = await self._store.retire(f"{ns}vs", str(arg))
            self._pending.pop(0)
            self.counters.invalidated += n

    async def on_corpus_change(
        self, collection: str, corpus_version: str, changed_doc_ids: Sequence[str] = ()
    ) -> int:
        """Call after an ingest/replace/delete: retires entries citing ``changed_doc_ids`` (old
        ids of replaced documents, ids of deleted ones) and those of other corpus versions."""
        try:
            n = await self.invalidate_documents(collection, changed_doc_ids)
        except RedisUnavailableError:
            self._pending.append(("retire", collection, corpus_version))
            raise
        return n + await self.retire_versions(collection, corpus_version)

    async def ping(self) -> bool:
        """True when the backend answers (``/readyz``); never raises."""
        return await self._store.ping()

    async def aclose(self) -> None:
        """Release the backend's connections."""
        await self._store.aclose()

    @property
    def available(self) -> bool:
        """False while Redis is considered down (breaker open)."""
        return self._store.available
