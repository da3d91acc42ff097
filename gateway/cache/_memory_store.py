"""The answer cache's in-process store (:class:`MemoryCacheStore`): the same five operations as
the Redis store in :mod:`gateway.cache._backends`, in one process's memory."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from gateway.cache._types import CacheWrite

__all__ = ["MemoryCacheStore"]


class MemoryCacheStore:
    """:class:`CacheStore` in process memory: an LRU of ``max_keys`` entry and alias keys, with
    lazy expiry; index sets and tombstones expire like their Redis twins."""

    available = True

    def __init__(self, max_keys: int, clock: Callable[[], float] | None = None) -> None:
        self.max_keys = max_keys
        self._clock = clock or time.monotonic
        self._values: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._sets: dict[str, tuple[float, set[str]]] = {}
        self._hashes: dict[str, dict[str, str]] = {}
        self._tombstones: dict[str, float] = {}

    def _get(self, key: str) -> str | None:
        item = self._values.get(key)
        if item is None:
            return None
        if item[0] <= self._clock():
            del self._values[key]
            return None
        self._values.move_to_end(key)
        return item[1]

    def _members(self, key: str) -> set[str]:
        item = self._sets.get(key)
        if item is None or item[0] <= self._clock():
            self._sets.pop(key, None)
            return set()
        return item[1]

    def _add(self, key: str, members: list[str], ttl: int) -> None:
        expiry = max(self._clock() + ttl, self._sets.get(key, (0.0, set()))[0])
        self._sets[key] = (expiry, self._members(key) | set(members))

    def _delete(self, keys: set[str]) -> int:
        removed = 0
        for k in keys:
            if self._values.pop(k, None) is not None and ":e:" in k:
                removed += 1
        return removed

    async def mget(self, keys: Sequence[str]) -> list[str | bytes | None]:
        """Values (LRU-touched) or None."""
        return [self._get(k) for k in keys]

    async def store(self, w: CacheWrite) -> bool:
        """Same steps as ``_STORE_LUA``; then evicts least-recently-used keys over capacity."""
        now = self._clock()
        if any(self._tombstones.get(t, 0.0) > now for t in w.tombstone_keys):
            return False
        members = [w.key]
        self._values[w.key] = (now + w.ttl, w.value)
        self._values.move_to_end(w.key)
        if w.alias_key:
            self._values[w.alias_key] = (now + w.ttl, w.key)
            self._values.move_to_end(w.alias_key)
            members.append(w.alias_key)
        for d in w.doc_index_keys:
            self._add(d, members, w.ttl)
        if w.version_key:
            self._add(w.version_key, members, w.ttl)
            self._hashes.setdefault(w.versions_key, {})[w.version] = w.version_key
        while len(self._values) > self.max_keys:
            self._values.popitem(last=False)
        if len(self._sets) > 4 * self.max_keys:
            for k in [k for k, (exp, _) in self._sets.items() if exp <= now]:
                del self._sets[k]
        return True

    async def invalidate(
        self, doc_index_keys: Sequence[str], tombstone_keys: Sequence[str], ttl: int
    ) -> int:
        """Same steps as ``_INVALIDATE_LUA``."""
        removed = 0
        for d, t in zip(doc_index_keys, tombstone_keys, strict=True):
            removed += self._delete(self._members(d))
            self._sets.pop(d, None)
            self._tombstones[t] = self._clock() + ttl
        now = self._clock()
        for t in [t for t, exp in self._tombstones.items() if exp <= now]:
            del self._tombstones[t]
        return removed

    async def retire(self, versions_key: str, keep: str) -> int:
        """Same steps as ``_RETIRE_LUA``."""
        versions = self._hashes.get(versions_key, {})
        removed = 0
        for version, set_key in list(versions.items()):
            if version != keep:
                removed += self._delete(self._members(set_key))
                self._sets.pop(set_key, None)
                del versions[version]
        return removed

    async def ping(self) -> bool:
        """Always True (in-process)."""
        return True

    async def aclose(self) -> None:
        """Nothing to release."""
