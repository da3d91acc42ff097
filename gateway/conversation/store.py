"""Where session memories live: Redis (shared by replicas, survives a gateway restart, expires
at its TTL), with an in-process fallback when Redis is down.

**Keys.** ``{prefix}session:{<caller hash>}:<session hash>`` — the caller's scope (a hash of
its API key, ``gateway.api.deps.Principal.scope``) is part of the key, so one caller can never
read, overwrite or delete another caller's session even when both use the same ``session_id``.
The value is the JSON of :class:`~gateway.conversation.memory.SessionMemory`; every write sets
the TTL again (sliding expiry, ``LOOPGATE_SESSION_TTL_S``).

**Redis down.** Redis calls go through the answer cache's :class:`CircuitBreaker` pattern
(``gateway.redis_support.call_redis``). When one fails, the memory is read from and written to
an in-process ``cachetools.TTLCache`` and the result says ``local=True`` (the router flags
``session_memory_local``); when Redis answers again, the newer of the two copies is used. The
inspection API works on the same copies: :meth:`SessionStore.ttl` gives the in-process copy's
time left, and :meth:`SessionStore.delete` forgets the session in process and remembers when
(a tombstone, kept for the session TTL): the Redis copy, older than the tombstone, is deleted
when Redis answers again and never read back.
Without ``LOOPGATE_REDIS_URL`` only the in-process store is used (one process, lost on restart).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson
from cachetools import TTLCache

from gateway.conversation.memory import SessionMemory
from gateway.redis_support import CircuitBreaker, RedisUnavailableError, call_redis

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["Deleted", "Loaded", "SessionStore", "session_key"]


def _h(text: str, n: int = 24) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


def session_key(prefix: str, scope: str, session_id: str) -> str:
    """The Redis key of ``session_id`` of caller ``scope``."""
    return f"{prefix}session:{{{_h(scope, 16)}}}:{_h(session_id)}"


@dataclass(frozen=True, slots=True)
class Loaded:
    """A loaded memory (``None`` = new session) and whether it came from the local fallback
    because Redis was down (``local``)."""

    memory: SessionMemory | None
    local: bool = False


@dataclass(frozen=True, slots=True)
class Deleted:
    """What :meth:`SessionStore.delete` did: ``existed`` — a copy was found and deleted (with
    Redis down only the in-process copy can be seen); ``local`` — Redis was down, the session
    is forgotten in process and its Redis copy deleted when Redis answers again."""

    existed: bool
    local: bool = False


class SessionStore:
    """Session memories in Redis (``client`` given) or in process (``client=None``).

    Usage example::

        store = SessionStore(open_redis(url, timeout_s=0.5), ttl_s=3600)
        loaded = await store.load("caller-scope", "s1")
        await store.save("caller-scope", memory)

    :param client: ``redis.asyncio.Redis`` or ``None`` (in-process only).
    :param ttl_s: session lifetime after its last turn, seconds (≥ 1).
    :param key_prefix: prefix of every Redis key.
    :param max_local: sessions the in-process store keeps (LRU beyond that).
    :param breaker: circuit breaker for the Redis calls.
    :raises ValueError: ``ttl_s < 1``.
    """

    def __init__(self, client: redis.asyncio.Redis | None, *, ttl_s: int = 86400,
                 key_prefix: str = "loopgate:", max_local: int = 10000,
                 breaker: CircuitBreaker | None = None) -> None:
        if ttl_s < 1:
            raise ValueError("ttl_s must be >= 1")
        self.client = client
        self.ttl_s = ttl_s
        self.prefix = key_prefix
        self.breaker = breaker or CircuitBreaker(15.0)
        self._local: TTLCache[str, bytes] = TTLCache(max_local, ttl_s)
        # sessions deleted while Redis was down: key -> when (their Redis copy goes later)
        self._forgotten: TTLCache[str, float] = TTLCache(max_local, ttl_s)

    @property
    def backend(self) -> str:
        """``redis`` or ``memory``."""
        return "redis" if self.client is not None else "memory"

    async def load(self, scope: str, session_id: str) -> Loaded:
        """The memory of ``session_id`` for caller ``scope`` (``memory=None`` when unknown or
        expired). Never raises for Redis faults (falls back, ``local=True``)."""
        key = session_key(self.prefix, scope, session_id)
        local_raw = self._local.get(key)
        if self.client is None:
            return Loaded(_decode(local_raw))
        client = self.client
        try:
            raw = await call_redis(self.breaker, "sessions", lambda: client.get(key))
        except RedisUnavailableError:
            return Loaded(_decode(local_raw), local=True)
        remote, local = _decode(raw), _decode(local_raw)
        forgotten = self._forgotten.get(key)
        if forgotten is not None and remote is not None and remote.updated_at <= forgotten:
            remote = None  # deleted while Redis was down: delete its copy there now
            try:
                await call_redis(self.breaker, "sessions", lambda: client.delete(key))
                self._forgotten.pop(key, None)
            except RedisUnavailableError:
                pass  # the tombstone stays; the next load tries again
        elif forgotten is not None:
            self._forgotten.pop(key, None)
        if local is not None and (remote is None or local.updated_at > remote.updated_at):
            return Loaded(local)
        return Loaded(remote)

    async def save(self, scope: str, memory: SessionMemory) -> bool:
        """Store ``memory`` with a fresh TTL; returns False when it went to the local fallback
        because Redis was down."""
        key = session_key(self.prefix, scope, memory.session_id)
        raw = orjson.dumps(memory.to_dict())
        if self.client is None:
            self._local[key] = raw
            return True
        client = self.client
        try:
            await call_redis(self.breaker, "sessions", lambda: client.set(key, raw, ex=self.ttl_s))
        except RedisUnavailableError:
            self._local[key] = raw
            return False
        self._local.pop(key, None)
        return True

    async def delete(self, scope: str, session_id: str) -> Deleted:
        """Forget ``session_id`` of caller ``scope``. Never raises for Redis faults: with Redis
        down the session is forgotten in process and its Redis copy deleted when Redis answers
        again (module docstring)."""
        key = session_key(self.prefix, scope, session_id)
        had_local = self._local.pop(key, None) is not None
        if self.client is None:
            return Deleted(had_local)
        client = self.client
        try:
            n = await call_redis(self.breaker, "sessions", lambda: client.delete(key))
        except RedisUnavailableError:
            self._forgotten[key] = time.time()
            return Deleted(had_local, local=True)
        self._forgotten.pop(key, None)
        return Deleted(bool(n) or had_local)

    async def ttl(self, scope: str, session_id: str, loaded: Loaded | None = None) -> int | None:
        """Seconds the session has left: in Redis, or, when ``loaded`` came from the in-process
        copy (Redis down, or no Redis), that copy's (its last save + the TTL). ``None`` when
        absent, or when Redis fails now."""
        if loaded is not None and loaded.memory is not None \
                and (loaded.local or self.client is None):
            return max(0, round(loaded.memory.updated_at + self.ttl_s - time.time()))
        if self.client is None:
            return None
        client = self.client
        key = session_key(self.prefix, scope, session_id)
        try:
            left = await call_redis(self.breaker, "sessions", lambda: client.ttl(key))
        except RedisUnavailableError:
            return None
        return int(left) if left is not None and int(left) >= 0 else None

    async def aclose(self) -> None:
        """Release the Redis connections."""
        if self.client is not None:
            await self.client.aclose()


def _decode(raw: str | bytes | None) -> SessionMemory | None:
    if raw is None:
        return None
    try:
        return SessionMemory.from_dict(orjson.loads(raw))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None  # an unreadable session is a new one
