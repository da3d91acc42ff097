"""Route log (real Redis stream and ring buffer), RouteRecord conversion, and the /v1/routes and
/v1/stats routers mounted on a minimal FastAPI app (the full app is covered by the browser test)."""

from __future__ import annotations

import asyncio
import time
import uuid
from types import SimpleNamespace

import httpx
import pytest
import redis.exceptions
from _route_samples import router_dict  # tests/gateway is on sys.path (pytest rootdir mode)
from fastapi import FastAPI

from gateway.api.routes.routes_log import router as routes_router
from gateway.api.error_handlers import install_error_handlers
from gateway.errors import BadRequest
from gateway.observe import GatewayMetrics
from gateway.redis_support import CircuitBreaker, open_redis
from gateway.routing import RouteRecord
from gateway.observe import MemoryRouteLog, RedisRouteLog, RouteLog, RouteQuery, RouteRecorder
from gateway.settings import Settings

pytestmark = pytest.mark.integration


@pytest.fixture
async def redis_log(redis_url: str):
    key = f"loopgate-test:{uuid.uuid4().hex[:12]}:routes"
    log = RedisRouteLog(
        open_redis(redis_url, timeout_s=1.0), key=key, max_records=50, breaker=CircuitBreaker(5.0)
    )
    yield log
    await log.client.delete(key)
    await log.aclose()


def test_record_from_router_dict_keeps_everything() -> None:
    d = router_dict("loop", 0.31, 1000.0, steps=2, timeout_tool="read")
    d["timeouts"] = [{"stage": "rag_answer", "limit_s": 2.0, "request_deadline": False}]
    r = RouteRecord.from_dict(d)
    assert r.decision == "loop" and r.reason == "r" and r.escalated
    assert r.normalized_question == "退货期限是几天" and r.extra["candidates"] == ["abc-00001"]
    assert r.loop_steps == 3 and [c.tool for c in r.tool_calls] == ["search", "read", "read"]
    assert r.timed_out == ["rag_answer", "read"]
    again = RouteRecord.from_json(r.to_json())
    assert again == r
    assert RouteRecord.from_dict(r.to_dict()) == r
    with pytest.raises(ValueError):
        RouteRecord.from_dict({"trace_id": "x"})


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_append_query_filters(kind: str, redis_log: RedisRouteLog) -> None:
    log: RouteLog = MemoryRouteLog(50) if kind == "memory" else redis_log
    now = time.time()
    rows = [("rag", 0.9), ("loop", 0.2), ("cache", None), ("fallback_rag", 0.4), ("rag", 0.6)]
    for i, (path, conf) in enumerate(rows):
        await log.append(
            RouteRecord.from_dict(
                router_dict(path, conf, now - 50 + i * 10, collection="a" if i % 2 else "b")
            )
        )
    everything = await log.recent()
    assert [r.final_path for r in everything] == ["rag", "fallback_rag", "cache", "loop", "rag"]
    assert [r.final_path for r in await log.recent(RouteQuery(paths=("rag",)))] == ["rag", "rag"]
    low = await log.recent(RouteQuery(max_confidence=0.5))
    assert [r.confidence for r in low] == [0.4, 0.2]
    assert len(await log.recent(RouteQuery(min_confidence=0.5, max_confidence=0.95))) == 2
    assert len(await log.recent(RouteQuery(since=now - 25))) == 2
    assert len(await log.recent(RouteQuery(until=now - 25))) == 3
    assert len(await log.recent(RouteQuery(collections=frozenset({"a"})))) == 2
    assert len(await log.recent(RouteQuery(limit=2))) == 2
    assert len(await log.recent(RouteQuery(cache_hit=True))) == 1
    assert (await log.get(everything[2].trace_id)).final_path == "cache"
    assert await log.get("nope") is None
    with pytest.raises(ValueError):
        RouteQuery(min_confidence=0.8, max_confidence=0.2)


async def test_redis_stream_is_capped(redis_log: RedisRouteLog) -> None:
    for i in range(400):
        await redis_log.append(
            RouteRecord.from_dict(router_dict("rag", 0.5, time.time(), question=f"q{i}"))
        )
    assert await redis_log.client.xlen(redis_log.key) == 0  # queued: write-behind
    assert await redis_log.flush() == 400
    length = await redis_log.client.xlen(redis_log.key)
    assert 50 <= length < 400  # MAXLEN ~ trims whole macro nodes: approximately 50
    assert (await redis_log.recent(RouteQuery(limit=1)))[0].question == "q399"


async def test_queued_records_reach_redis_without_a_read(redis_log: RedisRouteLog) -> None:
    await redis_log.append(RouteRecord.from_dict(router_dict("rag", 0.5, time.time())))
    for _ in range(100):
        if await redis_log.client.xlen(redis_log.key) == 1:
            break
        await asyncio.sleep(redis_log.flush_s)
    assert await redis_log.client.xlen(redis_log.key) == 1


async def test_redis_down_keeps_records_locally() -> None:
    log = RedisRouteLog(
        open_redis("redis://127.0.0.1:1/0", timeout_s=0.2),
        key="x",
        max_records=10,
        breaker=CircuitBreaker(30.0),
    )
    t0 = time.perf_counter()
    rec = RouteRecorder(log, GatewayMetrics())
    for i in range(3):
        await rec.record(router_dict("rag", 0.7, time.time(), question=f"q{i}"))
    assert [r.question for r in await log.recent()] == ["q2", "q1", "q0"]
    assert time.perf_counter() - t0 < 1.0 and not log.available
    await log.aclose()


def _app(log: RouteLog, **settings) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)
    app.state.components = SimpleNamespace(settings=Settings(**settings), route_log=log)
    app.include_router(routes_router)
    return app


async def test_routes_and_stats_api() -> None:
    log = MemoryRouteLog(100)
    now = time.time()
    for i, (path, conf) in enumerate(
        [("rag", 0.9), ("loop", 0.2), ("cache", None), ("fallback_rag", 0.35)]
    ):
        await log.append(
            RouteRecord.from_dict(
                router_dict(
                    path,
                    conf,
                    now - 30 + i,
                    steps=2 if "loop" in path or "fallback" in path else 0,
                    collection="a" if i < 2 else "b",
                )
            )
        )
    transport = httpx.ASGITransport(app=_app(log))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        r = await client.get("/v1/routes", params={"path": ["rag", "loop"], "limit": 10})
        assert r.status_code == 200 and r.json()["count"] == 2 and r.json()["backend"] == "memory"
        r = await client.get("/v1/routes", params={"max_confidence": 0.5})
        assert [x["final_path"] for x in r.json()["records"]] == ["fallback_rag", "loop"]
        trace = r.json()["records"][0]["trace_id"]
        assert (await client.get(f"/v1/routes/{trace}")).json()["trace_id"] == trace
        assert (await client.get("/v1/routes/unknown")).status_code == 404
        assert (await client.get("/v1/routes", params={"limit": 0})).status_code == 400
        bad = await client.get("/v1/routes", params={"min_confidence": 0.9, "max_confidence": 0.1})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == "bad_request"
        s = (await client.get("/v1/stats", params={"window_s": 3600})).json()
        assert s["totals"]["requests"] == 4 and s["totals"]["by_path"]["rag"] == 1
        assert s["totals"]["escalation_rate"] == 0.5 and s["totals"]["fallback_rate"] == 0.5
        assert s["totals"]["cache_hit_rate"] == 0.25 and s["loop_steps"] == {"2": 2}
        assert [x["final_path"] for x in s["low_confidence"]["records"]] == ["fallback_rag", "loop"]
        assert s["route_log"] == {"backend": "memory", "available": True}


async def test_api_keys_scope_records_to_allowed_collections() -> None:
    from gateway.api.deps import _scope

    log = MemoryRouteLog(10)
    mine = {"caller": _scope("key-for-a-only")}  # records this key made (a key sees only those)
    for col in ("a", "b"):
        await log.append(RouteRecord.from_dict({**router_dict("rag", 0.9, time.time(),
                                                              collection=col), **mine}))
    await log.append(RouteRecord.from_dict({**router_dict("rag", 0.9, time.time(),
                                                          collection="a"), "caller": "key:x"}))
    app = _app(log, api_keys={"key-for-a-only": ["a"]})
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://t"
    ) as client:
        assert (await client.get("/v1/routes")).status_code == 401
        headers = {"Authorization": "Bearer key-for-a-only"}
        body = (await client.get("/v1/routes", headers=headers)).json()
        assert [r["collection"] for r in body["records"]] == ["a"]
        assert (await client.get("/v1/stats", headers=headers)).json()["totals"]["requests"] == 1


async def test_out_of_range_times_never_degrade_the_redis_log(redis_log: RedisRouteLog,
                                                              monkeypatch) -> None:
    """A caller's ``since`` before the epoch, a window longer than the epoch (1e12, 1e308,
    inf) or NaN: the records of the real Redis stream (or a 400), never Redis refusing an id
    (``XREVRANGE … -5000-0``, 'ERR Invalid stream ID') counted as an outage, never a 500.
    A reply error caused by a query does not open the breaker."""
    now = time.time()
    for i in range(3):
        await redis_log.append(RouteRecord.from_dict(router_dict("rag", 0.9, now - 10 + i)))
    transport = httpx.ASGITransport(app=_app(redis_log))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        for since in ("-1", "-1e300", "-inf", "0"):
            r = await client.get("/v1/routes", params={"since": since})
            assert r.status_code == 200 and r.json()["count"] == 3, (since, r.text)
            assert r.json()["available"] is True
        for since in ("inf", "1e300"):
            r = await client.get("/v1/routes", params={"since": since})
            assert r.status_code == 200 and r.json()["count"] == 0, (since, r.text)
        r = await client.get("/v1/routes", params={"since": "nan"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
        for window in ("1e12", "1e308", "inf", "3600"):
            r = await client.get("/v1/stats", params={"window_s": window})
            assert r.status_code == 200, (window, r.text)
            assert r.json()["totals"]["requests"] == 3 and r.json()["route_log"]["available"]
    assert redis_log.breaker.state == "closed"

    async def refuses(*_a, **_k):
        raise redis.exceptions.ResponseError("Invalid stream ID specified as stream command argument")
    monkeypatch.setattr(redis_log.client, "xrevrange", refuses)
    with pytest.raises(BadRequest, match="refused"):
        await redis_log.recent(RouteQuery())
    assert redis_log.breaker.state == "closed" and redis_log.available
