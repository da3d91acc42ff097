"""Answer cache: one behaviour suite run against real Redis and the in-process LRU (case 12)."""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlparse

import pytest

from gateway.cache import AnswerCache, CacheConfig, MemoryAnswerCache, RedisAnswerCache
from gateway.redis_support import CircuitBreaker, RedisUnavailableError, open_redis
from tests._support.redis_keys import key_names

pytestmark = pytest.mark.integration

DOC_POLICY_V1, DOC_POLICY_V2 = "a" * 64, "b" * 64
DOC_NOTICE, DOC_SHIPPING = "c" * 64, "d" * 64


async def _make(kind: str, redis_url: str, prefix: str, **cfg) -> AnswerCache:
    near = 64 if kind.endswith("+near") else 0  # the same behaviour with the near-cache on
    config = CacheConfig(key_prefix=prefix, near_entries=near, **cfg)
    if kind.startswith("memory"):
        return MemoryAnswerCache(config)
    client = open_redis(redis_url, timeout_s=1.0)
    return RedisAnswerCache(client, config, breaker=CircuitBreaker(5.0))


BACKENDS = pytest.mark.parametrize("kind", ["memory", "redis", "memory+near", "redis+near"])


def _ans(text: str) -> dict:
    return {"answer": text, "citations": [{"path": "policy.md", "quote": text}]}


async def _put_shipping(cache: AnswerCache, answer: str, version: str = "v1", **kw):
    """Cache ``answer`` as the found answer to the shipping question, citing DOC_SHIPPING."""
    return await cache.put("标准配送要几天？", _ans(answer), found=True, doc_ids=[DOC_SHIPPING],
                           corpus_version=version, **kw)


@BACKENDS
async def test_roundtrip_and_normalised_variant(kind: str, redis_url: str, prefix: str) -> None:
    cache = await _make(kind, redis_url, prefix)
    kw = {"collection": "c12", "mode": "auto", "corpus_version": "v1"}
    key = await cache.put(
        "退货期限是几天？", _ans("7 天"), found=True, doc_ids=[DOC_POLICY_V1], **kw
    )
    assert key and key.startswith(prefix)
    hit = await cache.get("退货期限是几天 ?", **kw)
    assert hit is not None and hit.answer == _ans("7 天") and hit.found and not hit.via_alias
    assert hit.doc_ids == (DOC_POLICY_V1,) and hit.question == "退货期限是几天？"
    assert (
        await cache.get("退货期限是几天？", collection="other", mode="auto", corpus_version="v1")
        is None
    )
    assert (
        await cache.get("退货期限是几天？", collection="c12", mode="loop", corpus_version="v1")
        is None
    )
    assert (
        await cache.get("退货期限是几天？", collection="c12", mode="auto", corpus_version="v2")
        is None
    )
    assert await cache.get("退货期限不是几天？", **kw) is None
    assert await cache.get("退货期限是70天？", **kw) is None
    assert cache.counters.hits == 1 and cache.counters.misses == 5
    await cache.aclose()


@BACKENDS
async def test_case12_scenario_document_scope(kind: str, redis_url: str, prefix: str) -> None:
    """Case 12 at the cache level: negative answers die with any ingest; changed and deleted
    documents retire their answers; untouched documents keep theirs."""
    cache = await _make(kind, redis_url, prefix, version_scope="document")
    q_ret, q_sat, q_ship = "退货期限是几天？", "仓库周六开门吗？", "标准配送要几天？"
    c = {"collection": "c12", "mode": "auto"}
    # step 1: nothing ingested, "not found" cached under version v0
    await cache.put(q_ret, {"answer": "not found"}, found=False, corpus_version="v0", **c)
    assert (await cache.get(q_ret, corpus_version="v0", **c)).found is False
    # step 2: ingest -> version v1; the negative answer is unreachable and deleted
    assert await cache.on_corpus_change("c12", "v1") == 1
    assert await cache.get(q_ret, corpus_version="v1", **c) is None
    # steps 3, 4, 10: answers citing documents
    await cache.put(
        q_ret, _ans("7 天"), found=True, doc_ids=[DOC_POLICY_V1], corpus_version="v1", **c
    )
    await cache.put(
        q_sat, _ans("周六关闭"), found=True, doc_ids=[DOC_NOTICE], corpus_version="v1", **c
    )
    await cache.put(
        q_ship, _ans("3 个工作日"), found=True, doc_ids=[DOC_SHIPPING], corpus_version="v1", **c
    )
    # step 5: policy.md replaced (old doc id retired), version v2
    assert await cache.on_corpus_change("c12", "v2", [DOC_POLICY_V1]) == 1
    assert await cache.get(q_ret, corpus_version="v2", **c) is None
    await cache.put(
        q_ret, _ans("15 天"), found=True, doc_ids=[DOC_POLICY_V2], corpus_version="v2", **c
    )
    assert (await cache.get("退货期限是几天 ？", corpus_version="v2", **c)).answer == _ans("15 天")
    # an answer computed on the old policy that arrives late is refused (tombstone)
    assert (
        await cache.put(
            q_ret, _ans("7 天"), found=True, doc_ids=[DOC_POLICY_V1], corpus_version="v2", **c
        )
        is None
    )
    assert (await cache.get(q_ret, corpus_version="v2", **c)).answer == _ans("15 天")
    # step 8/9: old_notice.md deleted
    assert await cache.on_corpus_change("c12", "v3", [DOC_NOTICE]) == 1
    assert await cache.get(q_sat, corpus_version="v3", **c) is None
    # step 10: untouched document keeps its entry
    assert (await cache.get(q_ship, corpus_version="v3", **c)).answer == _ans("3 个工作日")
    # step 11: no stored key's answer cites old_notice.md or the v1 policy
    if kind.startswith("redis"):
        client = open_redis(redis_url, timeout_s=1.0)
        for key in await key_names(redis_url, prefix):
            if b":e:" in key:
                entry = json.loads(await client.get(key))
                assert DOC_NOTICE not in entry["doc_ids"] and DOC_POLICY_V1 not in entry["doc_ids"]
        await client.aclose()
    await cache.aclose()


@BACKENDS
async def test_corpus_scope_any_ingest_retires_everything(
    kind: str, redis_url: str, prefix: str
) -> None:
    cache = await _make(kind, redis_url, prefix)  # version_scope="corpus" is the default
    c = {"collection": "cs", "mode": "rag"}
    await _put_shipping(cache, "3 个工作日", **c)
    await cache.put(
        "仓库周六开门吗？", {"answer": "not found"}, found=False, corpus_version="v1", **c
    )
    assert await cache.on_corpus_change("cs", "v2", []) == 2
    assert (
        await cache.get("标准配送要几天？", corpus_version="v1", **c) is None
    )  # deleted, not only unreachable
    if kind.startswith("redis"):
        assert not [k for k in await key_names(redis_url, prefix) if b":e:" in k]
    await cache.aclose()


@BACKENDS
async def test_alias_is_served_only_when_the_guard_agrees(
    kind: str, redis_url: str, prefix: str
) -> None:
    cache = await _make(kind, redis_url, prefix)
    kw = {"collection": "al", "mode": "auto", "corpus_version": "v1"}
    await cache.put(
        "How long is the warranty?",
        _ans("three years"),
        found=True,
        doc_ids=[DOC_POLICY_V1],
        alias="warranty period",
        **kw,
    )
    hit = await cache.get("What is the warranty period", alias="Warranty period.", **kw)
    assert hit is not None and hit.via_alias and hit.answer == _ans("three years")
    assert await cache.get("How long is the warranty not?", alias="warranty period", **kw) is None
    assert cache.counters.guard_rejections == 1 and cache.counters.alias_hits == 1
    # retiring the cited document retires the alias too
    await cache.invalidate_documents("al", [DOC_POLICY_V1])
    assert await cache.get("What is the warranty period", alias="warranty period", **kw) is None
    await cache.aclose()


@BACKENDS
async def test_ttl_and_bad_input(kind: str, redis_url: str, prefix: str) -> None:
    cache = await _make(kind, redis_url, prefix, ttl_s=600, negative_ttl_s=60)
    kw = {"collection": "t", "mode": "auto", "corpus_version": "v1"}
    pos = await cache.put("q one", {"a": 1}, found=True, **kw)
    neg = await cache.put("q two", {"a": 2}, found=False, **kw)
    if kind.startswith("redis"):
        client = open_redis(redis_url, timeout_s=1.0)
        assert 590 <= await client.ttl(pos) <= 600 and 50 <= await client.ttl(neg) <= 60
        await client.aclose()
    with pytest.raises(ValueError, match="empty"):
        await cache.put(" ？ ", {"a": 1}, found=True, **kw)
    with pytest.raises(ValueError, match="collection"):
        await cache.get("q", collection="", mode="auto", corpus_version="v1")
    with pytest.raises(TypeError):
        await cache.put("q three", {"a": object()}, found=True, **kw)
    assert await cache.get("q one", **kw) is not None  # nothing lost by the bad calls
    await cache.aclose()


async def test_memory_ttl_expiry_and_lru_eviction() -> None:
    now = [1000.0]
    cache = MemoryAnswerCache(CacheConfig(ttl_s=10, max_entries=3), clock=lambda: now[0])
    kw = {"collection": "m", "mode": "auto", "corpus_version": "v1"}
    for i in range(3):
        await cache.put(f"question {i}", {"i": i}, found=True, **kw)
    assert await cache.get("question 0", **kw) is not None  # touch 0: 1 is now least recent
    await cache.put("question 3", {"i": 3}, found=True, **kw)
    assert await cache.get("question 1", **kw) is None
    assert await cache.get("question 0", **kw) is not None
    now[0] += 11
    assert await cache.get("question 0", **kw) is None


async def test_redis_unreachable_fails_fast_through_the_breaker() -> None:
    client = open_redis("redis://127.0.0.1:1/0", timeout_s=0.2)  # nothing listens on port 1
    cache = RedisAnswerCache(client, CacheConfig(), breaker=CircuitBreaker(30.0))
    kw = {"collection": "x", "mode": "auto", "corpus_version": "v1"}
    t0 = time.perf_counter()
    with pytest.raises(RedisUnavailableError) as first:
        await cache.get("question", **kw)
    with pytest.raises(RedisUnavailableError) as second:
        await cache.put("question", {"a": 1}, found=True, **kw)
    assert time.perf_counter() - t0 < 1.0
    assert first.value.retry_after_s > 25 and isinstance(second.value.__cause__, type(None))
    assert not cache.available and not await cache.ping()
    await cache.aclose()


def test_breaker_half_open_probe_and_recovery() -> None:
    now = [0.0]
    breaker = CircuitBreaker(10.0, clock=lambda: now[0])
    assert breaker.state == "closed" and breaker.allow()
    breaker.record_failure("down")
    assert breaker.state == "open" and not breaker.allow() and breaker.retry_in() == 10.0
    now[0] = 10.0
    assert breaker.state == "half_open" and breaker.allow() and not breaker.allow()  # one probe
    breaker.record_failure("still down")
    assert breaker.state == "open"
    now[0] = 20.0
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state == "closed" and breaker.allow()


class _TcpProxy:
    """A loopback TCP forwarder to Redis that can be cut and restored (a real outage)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for w in list(self._writers):
            w.close()
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def test_invalidation_missed_during_an_outage_is_replayed(
    redis_url: str, prefix: str
) -> None:
    url = urlparse(redis_url)
    proxy = _TcpProxy(url.port or 6379)
    await proxy.start()
    client = open_redis(f"redis://127.0.0.1:{proxy.port}{url.path or '/0'}", timeout_s=0.3)
    cache = RedisAnswerCache(
        client,
        CacheConfig(key_prefix=prefix, version_scope="document"),
        breaker=CircuitBreaker(0.2),
    )
    kw = {"collection": "o", "mode": "auto"}
    await _put_shipping(cache, "3 天", **kw)
    assert await cache.get("标准配送要几天？", corpus_version="v1", **kw) is not None
    await proxy.stop()  # Redis unreachable: the document changes meanwhile
    with pytest.raises(RedisUnavailableError):
        await cache.on_corpus_change("o", "v2", [DOC_SHIPPING])
    t0 = time.perf_counter()
    with pytest.raises(RedisUnavailableError):
        await cache.get("标准配送要几天？", corpus_version="v2", **kw)  # breaker open: fails fast
    assert time.perf_counter() - t0 < 0.1 and not cache.available
    await proxy.start()  # Redis is back on the same port
    await asyncio.sleep(0.25)
    # the missed invalidation is replayed first: the stale answer is never served
    assert await cache.get("标准配送要几天？", corpus_version="v2", **kw) is None
    assert cache.available and cache.counters.invalidated == 1
    assert await _put_shipping(cache, "3 天", "v2", **kw) is None  # tombstoned document
    await cache.aclose()
    await proxy.stop()


async def test_app_serves_without_redis_flagged_and_fast(cases_dir, tmp_path) -> None:
    """Issue 6 item 8 (Redis side): Redis unreachable → answers still come, flagged
    ``cache_unavailable``, without per-request hangs; route records kept locally."""
    import httpx

    from gateway.main import create_app
    from gateway.settings import Settings

    settings = Settings(
        data_dir=tmp_path,
        redis_url="redis://127.0.0.1:1/0",
        timeout_cache_s=0.3,
        redis_retry_s=30,
        embed_model_path=None,
        default_collection="nr",
    )
    doc = cases_dir / "12-stale-index-and-cache" / "v1" / "shipping.md"
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            r = await client.post(
                "/v1/documents",
                files=[("files", (doc.name, doc.read_bytes()))],
                data={"collection": "nr"},
            )
            assert r.status_code == 202, r.text
            deadline = time.monotonic() + 60
            while (await client.get(r.json()["status_url"])).json()["status"] not in (
                "done",
                "failed",
            ):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.1)
            t0 = time.perf_counter()
            answers = [
                (await client.post("/v1/query", json={"question": "标准配送要几天？"})).json()
                for _ in range(5)
            ]
            elapsed = time.perf_counter() - t0
            for a in answers:
                assert "3" in a["answer"] and not a["cached"], a
                assert "cache_unavailable" in a["route"]["flags"], a["route"]
            assert elapsed < 5.0  # one short socket timeout, then the breaker answers at once
            routes = (await client.get("/v1/routes")).json()
            assert routes["backend"] == "redis" and routes["available"] is False
            assert routes["count"] == 5


async def test_builders_follow_the_settings(redis_url: str, prefix: str) -> None:
    from gateway.cache import build_answer_cache
    from gateway.observe import MemoryRouteLog, RedisRouteLog, build_route_log
    from gateway.settings import Settings

    assert isinstance(build_answer_cache(Settings()), MemoryAnswerCache)
    assert isinstance(build_route_log(Settings()), MemoryRouteLog)
    s = Settings(
        redis_url=redis_url,
        redis_key_prefix=prefix,
        cache_version_scope="document",
        cache_negative_ttl_s=30,
        routelog_max_records=123,
    )
    cache, log = build_answer_cache(s), build_route_log(s)
    assert isinstance(cache, RedisAnswerCache) and isinstance(log, RedisRouteLog)
    assert cache.config.version_scope == "document" and cache.config.negative_ttl_s == 30
    assert log.key == f"{prefix}routes" and log.max_records == 123
    key = await cache.put(
        "q", {"a": 1}, found=True, collection="b", mode="auto", corpus_version="1"
    )
    assert key.startswith(prefix) and await cache.ping()
    await cache.aclose()
    await log.aclose()


async def test_a_redis_answering_with_errors_is_unavailable_not_a_crash(tmp_path) -> None:
    """A real Redis past its ``maxmemory`` (noeviction) answers writes with ``-OOM``: the
    cache reports it unavailable (the router then answers flagged ``cache_unavailable``)
    instead of letting ``redis.exceptions.OutOfMemoryError`` through as a 500 (found by a
    bad-input test: every /v1/query returned 500 against such a Redis)."""
    import shutil
    import socket
    import subprocess

    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server on PATH")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = await asyncio.create_subprocess_exec(
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "no", "--maxmemory", "1", "--maxmemory-policy", "noeviction",
        "--dir", str(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = open_redis(f"redis://127.0.0.1:{port}/0", timeout_s=2.0)
        for _ in range(100):
            try:
                if await client.ping():
                    break
            except Exception:  # noqa: BLE001 - not listening yet
                await asyncio.sleep(0.05)
        cache = RedisAnswerCache(client, CacheConfig(), breaker=CircuitBreaker(30.0))
        kw = {"collection": "x", "mode": "auto", "corpus_version": "v1"}
        with pytest.raises(RedisUnavailableError) as err:
            await cache.put("question", {"a": 1}, found=True, **kw)
        assert "OutOfMemoryError" in str(err.value) or "OOM" in str(err.value)
        await cache.aclose()
    finally:
        proc.terminate()
        await asyncio.wait_for(proc.wait(), 10)


async def test_an_answer_cached_with_another_llm_setup_is_not_served(
        redis_url: str, prefix: str) -> None:
    """Two gateways on one Redis, without and with an LLM (``answer_tag``): each reads only
    its own entries (a new-user trial got the extractive answers cached before the LLM was
    configured), and a changed document retires both (document scope: shared sets)."""
    from gateway.cache.build import answer_tag
    from gateway.settings import Settings

    plain = Settings(_env_file=None)
    llm = Settings(_env_file=None, llm_base_url="http://127.0.0.1:8089/v1", llm_model="local")
    assert answer_tag(plain) == "" and answer_tag(llm)
    assert answer_tag(llm) != answer_tag(Settings(_env_file=None, llm_model="other",
                                                  llm_base_url="http://127.0.0.1:8089/v1"))
    kw = {"collection": "c12", "mode": "auto", "corpus_version": "v1"}
    a = await _make("redis", redis_url, prefix, version_scope="document")
    b = await _make("redis", redis_url, prefix, version_scope="document",
                    answer_tag=answer_tag(llm))
    await _put_shipping(a, "3 个工作日", collection="c12", mode="auto")
    assert (await a.get("标准配送要几天？", **kw)).answer == _ans("3 个工作日")
    assert await b.get("标准配送要几天？", **kw) is None
    await _put_shipping(b, "三个工作日内发货", collection="c12", mode="auto")
    assert (await b.get("标准配送要几天？", **kw)).answer == _ans("三个工作日内发货")
    assert (await a.get("标准配送要几天？", **kw)).answer == _ans("3 个工作日")
    await a.invalidate_documents("c12", [DOC_SHIPPING])
    assert await a.get("标准配送要几天？", **kw) is None
    assert await b.get("标准配送要几天？", **kw) is None
