"""A cache hit does only what its reply needs (issue 19 item 2), and everything it recorded
before is still recorded: its route record and metrics are queued by the router
(``RouteRecorder.record_later``) and recorded on the event loop's next turn, after the reply —
every hit still reaches the Redis stream, ``/v1/routes`` and ``/metrics``, and a reader never
misses an answered request; the conversation stage is skipped only when it has nothing to do;
the CC-CEDICT index, built in a thread after start-up, leaves the collector's generations."""

from __future__ import annotations

import asyncio
import gc
import re

import pytest
import redis.asyncio as aioredis
from _apphelp import ask, make_settings, running, upload

from gateway.conversation import cedict
from gateway.routing import QueryInput

pytestmark = pytest.mark.integration

DOC = [
    ("policy.md", "# 配送\n\n标准配送需要三到五个工作日。\n\n# 退货\n\n退货期限是七天。\n".encode())
]
DOC_V2 = [
    ("policy.md", "# 配送\n\n标准配送需要两个工作日。\n\n# 退货\n\n退货期限是七天。\n".encode())
]
Q = "标准配送要几天？"


def _sample(metrics: str, name: str, labels: str) -> float:
    m = re.search(rf"^{name}\{{{re.escape(labels)}\}} ([0-9.e+]+)$", metrics, re.M)
    return float(m.group(1)) if m else 0.0


async def test_every_hit_is_recorded_after_its_reply(tmp_path, redis_url, prefix) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, DOC)
        c = app.state.components
        recorder = c.router.sink
        traces = [(await ask(client, Q))["route"]["trace_id"]]
        await asyncio.sleep(0)  # the event loop's turn after that reply records it
        assert recorder.queued == 0
        # asked of the router itself: the reply is ready, its record only queued
        result = await c.router.ask(QueryInput(question=Q, collection="docs"))
        assert result.cached and recorder.queued == 1
        body, _ = c.metrics.render()  # a reader records the queue first
        assert recorder.queued == 0
        assert _sample(body.decode(), "loopgate_cache_lookups_total", 'result="hit"') == 1.0
        traces.append(result.route["trace_id"])
        result = await c.router.ask(QueryInput(question=Q, collection="docs"))
        assert recorder.queued == 1
        assert (await c.route_log.get(result.route["trace_id"])) is not None
        traces.append(result.route["trace_id"])
        result = await c.router.ask(QueryInput(question=Q, collection="docs"))
        await asyncio.sleep(0)  # the event loop's next turn records it
        assert recorder.queued == 0
        traces.append(result.route["trace_id"])
        for _ in range(5):  # over HTTP (the near-cache's short way)
            hit = await ask(client, Q)
            assert hit["cached"] and hit["route"]["decision"]["reason"].endswith("(near)")
            traces.append(hit["route"]["trace_id"])
        listed = (await client.get("/v1/routes", params={"limit": 50})).json()["records"]
        assert [r["trace_id"] for r in listed] == traces[::-1]
        assert [r["cache_hit"] for r in listed] == [True] * 8 + [False]
        metrics = (await client.get("/metrics")).text
        assert _sample(metrics, "loopgate_cache_lookups_total", 'result="hit"') == 8.0
        assert _sample(metrics, "loopgate_cache_lookups_total", 'result="miss"') == 1.0
        assert _sample(metrics, "loopgate_requests_total", 'mode="auto",path="cache"') == 8.0
        assert _sample(metrics, "loopgate_request_latency_seconds_count", 'path="cache"') == 8.0
        # the shared route log (the Redis stream) holds every one
        r = aioredis.from_url(redis_url)
        try:
            stream = await r.xrange(f"{prefix}routes")
        finally:
            await r.aclose()
        assert len(stream) == 9 and all(traces[i].encode() in stream[i][1][b"r"] for i in range(9))
        # a hit is retired exactly when its cited document changes
        await upload(app, client, DOC_V2)
        again = await ask(client, Q)
        assert not again["cached"] and "两个工作日" in again["answer"]
        assert (await ask(client, Q))["cached"]


async def test_the_conversation_stage_is_skipped_only_when_it_has_nothing_to_do(tmp_path) -> None:
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, DOC)
        await ask(client, Q)  # the collection's languages are known from here on
        conv = app.state.components.router.conversation
        assert conv.idle_for(QueryInput(question=Q, collection="docs"))
        # an English question on Chinese documents gets key terms: the stage runs
        assert not conv.idle_for(
            QueryInput(question="How long is standard delivery?", collection="docs")
        )
        assert not conv.idle_for(QueryInput(question=Q, collection="docs", session_id="s1"))
        assert not conv.idle_for(
            QueryInput(
                question=Q, collection="docs", history=({"role": "user", "content": "退货?"},)
            )
        )
        turn = await ask(client, Q, session_id="s1")
        assert turn["route"]["session"]["turn"] == 1
        assert (await ask(client, Q, session_id="s1"))["route"]["session"]["turn"] == 2


async def test_the_index_built_after_start_up_is_frozen_too(tmp_path) -> None:
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, DOC)
        assert await asyncio.to_thread(cedict.wait_ready, 120)
        index = cedict.cedict_index()[0]
        for _ in range(200):  # the lifespan's task freezes it once it is built
            if not any(o is index for o in gc.get_objects(generation=2)):
                break
            await asyncio.sleep(0.05)
        assert not any(o is index for o in gc.get_objects(generation=2))
