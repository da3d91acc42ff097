"""Storage primitives behind :mod:`gateway.cache`: Redis (Lua scripts, atomic) here, in-process
in :mod:`gateway.cache._memory_store`.

Each backend implements the same five operations, so the cache logic above them is written once:

- ``mget(keys)`` → values or None;
- ``store(key, value, ttl, …)`` → refuses (False) when a cited document is tombstoned, else sets
  the entry (and alias) with ``ttl`` and adds them to the per-document and per-version sets;
- ``invalidate(doc_index_keys, tombstone_keys, ttl)`` → deletes every key listed in the document
  sets, the sets themselves, and writes the tombstones; returns the number of entries deleted;
- ``retire(versions_key, keep)`` → deletes the keys of every version set but ``keep``;
- ``ping()``.

Redis runs ``store``/``invalidate``/``retire`` as Lua scripts (one round trip, atomic with
respect to other clients). All keys of one call share a hash tag (``{…}``), so the scripts stay
on one slot of a Redis Cluster.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from gateway.cache._types import CacheWrite
from gateway.redis_support import CircuitBreaker, RedisUnavailableError, call_redis

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["CacheStore", "RedisCacheStore"]

_STORE_LUA = """
local n = tonumber(ARGV[3])
for i = 1, n do
  if redis.call('EXISTS', KEYS[4 + n + i]) == 1 then return 0 end
end
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'EX', ttl)
local members = {KEYS[1]}
if ARGV[4] == '1' then
  redis.call('SET', KEYS[2], KEYS[1], 'EX', ttl)
  table.insert(members, KEYS[2])
end
local function add(set)
  redis.call('SADD', set, unpack(members))
  if redis.call('TTL', set) < ttl then redis.call('EXPIRE', set, ttl) end
end
for i = 1, n do add(KEYS[4 + i]) end
if ARGV[5] == '1' then
  add(KEYS[3])
  redis.call('HSET', KEYS[4], ARGV[6], KEYS[3])
  if redis.call('TTL', KEYS[4]) < ttl then redis.call('EXPIRE', KEYS[4], ttl) end
end
return 1
"""

_INVALIDATE_LUA = """
local n = tonumber(ARGV[1])
local removed = 0
for i = 1, n do
  for _, k in ipairs(redis.call('SMEMBERS', KEYS[i])) do
    if redis.call('DEL', k) == 1 and string.find(k, ':e:', 1, true) then removed = removed + 1 end
  end
  redis.call('DEL', KEYS[i])
  redis.call('SET', KEYS[n + i], '1', 'EX', tonumber(ARGV[2]))
end
return removed
"""

_RETIRE_LUA = """
local vs = redis.call('HGETALL', KEYS[1])
local removed = 0
for i = 1, #vs, 2 do
  if vs[i] ~= ARGV[1] then
    for _, k in ipairs(redis.call('SMEMBERS', vs[i + 1])) do
      if redis.call('DEL', k) == 1 and string.find(k, ':e:', 1, true) then removed = removed + 1 end
    end
    redis.call('DEL', vs[i + 1])
    redis.call('HDEL', KEYS[1], vs[i])
  end
end
return removed
"""


class CacheStore(Protocol):
    """The storage operations the answer cache needs (module docstring)."""

    @property
    def available(self) -> bool:
        """False while the backend is considered down."""

    async def mget(self, keys: Sequence[str]) -> list[str | bytes | None]:
        """Values of ``keys`` (None where missing or expired)."""

    async def store(self, w: CacheWrite) -> bool:
        """Write an entry and its index memberships; False when a tombstone refuses it."""

    async def invalidate(
        self, doc_index_keys: Sequence[str], tombstone_keys: Sequence[str], ttl: int
    ) -> int:
        """Delete the keys of the document sets, write tombstones; entries deleted."""

    async def retire(self, versions_key: str, keep: str) -> int:
        """Delete keys of every version but ``keep``; entries deleted."""

    async def ping(self) -> bool:
        """True when the backend answers."""

    async def aclose(self) -> None:
        """Release connections."""


class RedisCacheStore:
    """:class:`CacheStore` on Redis; every call goes through the circuit breaker."""

    def __init__(self, client: redis.asyncio.Redis, breaker: CircuitBreaker) -> None:
        self.client = client
        self.breaker = breaker
        self._store = client.register_script(_STORE_LUA)
        self._invalidate = client.register_script(_INVALIDATE_LUA)
        self._retire = client.register_script(_RETIRE_LUA)

    @property
    def available(self) -> bool:
        """False while the breaker is open."""
        return self.breaker.state != "open"

    async def mget(self, keys: Sequence[str]) -> list[str | bytes | None]:
        """``MGET``."""
        return await call_redis(self.breaker, "cache", lambda: self.client.mget(list(keys)))

    async def store(self, w: CacheWrite) -> bool:
        """Lua ``_STORE_LUA``."""
        keys = [w.key, w.alias_key or w.key, w.version_key or w.key, w.versions_key,
                *w.doc_index_keys, *w.tombstone_keys]
        args: list[str | int] = [w.value, w.ttl, len(w.doc_index_keys),
                                 "1" if w.alias_key else "0", "1" if w.version_key else "0",
                                 w.version]
        res = await call_redis(self.breaker, "cache", lambda: self._store(keys=keys, args=args))
        return bool(int(res))

    async def invalidate(
        self, doc_index_keys: Sequence[str], tombstone_keys: Sequence[str], ttl: int
    ) -> int:
        """Lua ``_INVALIDATE_LUA``."""
        keys, args = [*doc_index_keys, *tombstone_keys], [len(doc_index_keys), ttl]
        return int(
            await call_redis(self.breaker, "cache", lambda: self._invalidate(keys=keys, args=args))
        )

    async def retire(self, versions_key: str, keep: str) -> int:
        """Lua ``_RETIRE_LUA``."""
        return int(
            await call_redis(
                self.breaker, "cache", lambda: self._retire(keys=[versions_key], args=[keep])
            )
        )

    async def ping(self) -> bool:
        """``PING`` through the breaker; False instead of raising."""
        try:
            return bool(await call_redis(self.breaker, "cache", self.client.ping))
        except RedisUnavailableError:
            return False

    async def aclose(self) -> None:
        """Close the client's connection pool."""
        await self.client.aclose()


