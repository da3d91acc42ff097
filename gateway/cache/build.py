"""The two answer caches — :class:`MemoryAnswerCache` (in-process LRU) and
:class:`RedisAnswerCache` (shared by every replica) — and :func:`build_answer_cache`, which picks
one from the settings."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import redis.asyncio

from gateway.cache._backends import RedisCacheStore
from gateway.cache._memory_store import MemoryCacheStore
from gateway.cache._types import CacheConfig
from gateway.cache.answer_cache import AnswerCache
from gateway.redis_support import CircuitBreaker, open_redis
from gateway.settings import Settings

__all__ = ["MemoryAnswerCache", "RedisAnswerCache", "answer_tag", "build_answer_cache"]


class MemoryAnswerCache(AnswerCache):
    """In-process LRU answer cache (no Redis configured); same behaviour as Redis, one process."""

    backend = "memory"

    def __init__(
        self, config: CacheConfig | None = None, *, clock: Callable[[], float] | None = None
    ) -> None:
        config = config or CacheConfig()
        super().__init__(MemoryCacheStore(config.max_entries, clock), config)


class RedisAnswerCache(AnswerCache):
    """Answer cache in Redis (redis-py asyncio), shared by all gateway replicas.

    :param client: a ``redis.asyncio.Redis`` (see :func:`gateway.redis_support.open_redis`).
    :param breaker: circuit breaker (shared with the route log is fine).
    """

    backend = "redis"

    def __init__(
        self,
        client: redis.asyncio.Redis,
        config: CacheConfig | None = None,
        *,
        breaker: CircuitBreaker | None = None,
    ) -> None:
        super().__init__(
            RedisCacheStore(client, breaker or CircuitBreaker(15.0)), config or CacheConfig()
        )


def answer_tag(settings: Settings) -> str:
    """A short digest of the settings besides the corpus that decide an answer — the LLM's
    base URL, model, scope and LoopAgent protocol — or ``""`` without an LLM (the keys of
    before). Two gateways sharing one Redis with other LLM setups keep apart entries."""
    if not settings.llm_base_url:
        return ""
    raw = "\x1f".join((settings.llm_base_url, settings.llm_model, settings.llm_scope,
                       settings.llm_protocol))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:12]


def build_answer_cache(
    settings: Settings,
    client: redis.asyncio.Redis | None = None,
    breaker: CircuitBreaker | None = None,
) -> AnswerCache:
    """The cache the settings ask for: Redis when ``redis_url`` (or ``client``) is given, else
    the in-process LRU."""
    config = CacheConfig(
        answer_tag=answer_tag(settings),
        ttl_s=settings.cache_ttl_s,
        negative_ttl_s=settings.cache_negative_ttl_s,
        max_entries=settings.cache_max_entries,
        version_scope=settings.cache_version_scope,
        key_prefix=settings.redis_key_prefix,
        near_entries=settings.cache_near_entries,
    )
    if client is None and not settings.redis_url:
        return MemoryAnswerCache(config)
    if client is None:
        client = open_redis(settings.redis_url, timeout_s=settings.timeout_cache_s)
    return RedisAnswerCache(
        client, config, breaker=breaker or CircuitBreaker(settings.redis_retry_s)
    )
