"""The answer cache's in-process near-cache (``gateway.cache._near_cache``) on real Redis: a
repeated question costs no Redis command, and an entry another replica retired is never served
once the corpus version moves."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from gateway.cache import CacheConfig, CacheEntry, NearCache, RedisAnswerCache
from gateway.redis_support import CircuitBreaker, RedisUnavailableError, open_redis

pytestmark = pytest.mark.integration

DOC_A, DOC_B = "a" * 64, "b" * 64


def _replica(redis_url: str, prefix: str, **cfg) -> RedisAnswerCache:
    config = CacheConfig(key_prefix=prefix, near_entries=16, **cfg)
    return RedisAnswerCache(open_redis(redis_url, timeout_s=1.0), config,
                            breaker=CircuitBreaker(5.0))


async def test_a_repeated_question_costs_no_redis_command(redis_url: str, prefix: str) -> None:
    """Replica B reaches Redis through a TCP forwarder; once it has read the answer, the
    forwarder is cut: the repeated question is still answered, so it sent Redis nothing."""
    from test_cache import _TcpProxy  # a real loopback forwarder that can be cut

    url = urlparse(redis_url)
    proxy = _TcpProxy(url.port or 6379)
    await proxy.start()
    a = _replica(redis_url, prefix)
    config = CacheConfig(key_prefix=prefix, near_entries=16)
    b = RedisAnswerCache(open_redis(f"redis://127.0.0.1:{proxy.port}{url.path or '/0'}",
                                    timeout_s=0.3), config, breaker=CircuitBreaker(5.0))
    kw = {"collection": "c", "mode": "auto", "corpus_version": "v1"}
    await a.put("退货期限是几天？", {"answer": "7 天"}, found=True, doc_ids=[DOC_A], **kw)
    assert a.peek("退货期限是几天？", **kw) is not None  # the writer keeps what it stored
    assert b.peek("退货期限是几天？", **kw) is None  # the other replica must ask Redis once
    assert (await b.get("退货期限是几天？", **kw)).answer == {"answer": "7 天"}
    await proxy.stop()
    for _ in range(20):
        hit = await b.get("退货期限是几天？", **kw)
        assert hit is not None and hit.answer == {"answer": "7 天"}
    assert b.counters.near_hits == 20 and b.counters.hits == 21 and b.available
    # a spelling variant is another near key: it needs Redis, which B cannot reach now
    with pytest.raises(RedisUnavailableError):
        await b.get("退货期限是几天 ?", **kw)
    await a.aclose()
    await b.aclose()


@pytest.mark.parametrize("scope", ["corpus", "document"])
async def test_another_replicas_invalidation_is_exact(redis_url: str, prefix: str,
                                                      scope: str) -> None:
    """Replica B holds an answer in its near-cache; replica A ingests a new version of the cited
    document. At the new corpus version B serves nothing stale — neither from near nor Redis."""
    a = _replica(redis_url, prefix, version_scope=scope)
    b = _replica(redis_url, prefix, version_scope=scope)
    q, c = "退货期限是几天？", {"collection": "c", "mode": "auto"}
    await a.put(q, {"answer": "7 天"}, found=True, doc_ids=[DOC_A], corpus_version="v1", **c)
    await a.put("标准配送要几天？", {"answer": "3 天"}, found=True, doc_ids=[DOC_B],
                corpus_version="v1", **c)
    assert (await b.get(q, corpus_version="v1", **c)) is not None
    assert b.peek(q, corpus_version="v1", **c) is not None
    # replica A replaces DOC_A: the corpus version moves to v2, Redis retires what cites it
    await a.on_corpus_change("c", "v2", [DOC_A])
    assert b.peek(q, corpus_version="v2", **c) is None
    assert (await b.get(q, corpus_version="v2", **c)) is None
    untouched = await b.get("标准配送要几天？", corpus_version="v2", **c)
    # document scope keeps answers citing untouched documents; corpus scope retires them all
    assert (untouched is not None) == (scope == "document")
    await a.aclose()
    await b.aclose()


async def test_own_invalidation_drops_near_entries_at_once(redis_url: str, prefix: str) -> None:
    a = _replica(redis_url, prefix, version_scope="document")
    kw = {"collection": "c", "mode": "auto", "corpus_version": "v1"}
    await a.put("退货期限是几天？", {"answer": "7 天"}, found=True, doc_ids=[DOC_A], **kw)
    assert a.near is not None and len(a.near) == 1
    await a.invalidate_documents("c", [DOC_A])
    assert len(a.near) == 0 and a.peek("退货期限是几天？", **kw) is None
    assert await a.get("退货期限是几天？", **kw) is None
    await a.aclose()


def test_near_cache_lru_version_and_lifetime() -> None:
    now = [1000.0]
    near = NearCache(2, clock=lambda: now[0])

    def entry(text: str) -> CacheEntry:
        return CacheEntry({"answer": text}, True, (), text, text, "c", "auto", "v1", now[0])

    near.put("c", "auto", "q1", entry("q1"), version="v1", expires_at=now[0] + 60)
    near.put("c", "auto", "q2", entry("q2"), version="v1", expires_at=now[0] + 60)
    assert near.get("c", "auto", "q1", version="v1") is not None  # q1 now most recent
    near.put("x", "auto", "q3", entry("q3"), version="v1", expires_at=now[0] + 60)
    assert near.get("c", "auto", "q2", version="v1") is None  # least recently used went
    assert near.get("c", "loop", "q1", version="v1") is None  # another mode
    assert near.get("c", "auto", "q1", version="v2") is None  # another corpus version ...
    assert near.get("c", "auto", "q1", version="v1") is None  # ... dropped it for good
    now[0] += 61
    assert near.get("x", "auto", "q3", version="v1") is None  # past the entry's lifetime
    near.put("c", "auto", "q1", entry("q1"), version="v1", expires_at=now[0] + 60)
    assert near.drop_collection("c") == 1 and len(near) == 0
    with pytest.raises(ValueError):
        NearCache(0)
    with pytest.raises(ValueError):
        CacheConfig(near_entries=-1)
