"""In-process near-cache in front of the answer cache's store (:mod:`gateway.cache`).

A cache hit read from Redis costs a round trip, a JSON decode and the question's normalisation
and hashing; the near-cache keeps the last ``max_entries`` entries this process served or stored,
decoded, under the question *as asked* (collection, mode, exact text), so a repeated question is
answered without any of that.

**Exactness.** Each near entry remembers the corpus version at which it was read from (or written
to) the store, and is served only while the caller's current corpus version is that same version.
Every ingest, replacement or deletion moves a collection's corpus version, and every store-side
invalidation (:meth:`gateway.cache.AnswerCache.on_corpus_change`) comes with such a move, so an
entry another replica retired is never served here once this process sees the new version (at
once with the embedded engine; within the gateway's one-second version refresh with a Qdrant
server). Invalidations made by this process also drop the collection's near entries at once. A
near entry also ends when its store entry's lifetime (``ttl_s`` / ``negative_ttl_s`` from its
``created_at``) ends.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from gateway.cache._types import CacheEntry

__all__ = ["NearCache"]


@dataclass(frozen=True, slots=True)
class _Near:
    entry: CacheEntry
    version: str  # the corpus version at which the store held this entry
    expires_at: float  # Unix time (the store entry's own lifetime)


class NearCache:
    """A bounded LRU of decoded answer-cache entries, valid for one corpus version each.

    Usage example::

        near = NearCache(2048)
        near.put("c", "auto", "退货期限是几天？", entry, version="v7",
                 expires_at=entry.created_at + 600)
        near.get("c", "auto", "退货期限是几天？", version="v7")   # the entry
        near.get("c", "auto", "退货期限是几天？", version="v8")   # None: the corpus moved on

    :param max_entries: entries kept (>= 1); the least recently used goes first.
    :param clock: Unix-time clock (tests pass their own).
    """

    def __init__(self, max_entries: int, clock: Callable[[], float] | None = None) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be >= 1")
        self.max_entries = max_entries
        self._clock = clock or time.time
        self._items: OrderedDict[tuple[str, str, str], _Near] = OrderedDict()
        self.hits = 0

    def __len__(self) -> int:
        return len(self._items)

    def get(self, collection: str, mode: str, question: str, *, version: str) -> CacheEntry | None:
        """The entry stored for exactly this question, or None when absent, expired or read
        at another corpus version than ``version`` (such an entry is dropped)."""
        key = (collection, mode, question)
        item = self._items.get(key)
        if item is None:
            return None
        if item.version != version or item.expires_at <= self._clock():
            del self._items[key]
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return item.entry

    def holds(self, collection: str, mode: str, question: str) -> bool:
        """True when an entry for exactly this question is kept, whatever its version or
        lifetime (no LRU move, no hit counted): a hint that :meth:`get` may answer it."""
        return (collection, mode, question) in self._items

    def put(self, collection: str, mode: str, question: str, entry: CacheEntry, *,
            version: str, expires_at: float) -> None:
        """Keep ``entry`` for this exact question while the corpus is at ``version``."""
        key = (collection, mode, question)
        self._items[key] = _Near(entry, version, expires_at)
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries:
            self._items.popitem(last=False)

    def drop_collection(self, collection: str) -> int:
        """Forget every entry of ``collection``; returns how many were dropped."""
        keys = [k for k in self._items if k[0] == collection]
        for k in keys:
            del self._items[k]
        return len(keys)

    def clear(self) -> None:
        """Forget everything."""
        self._items.clear()
