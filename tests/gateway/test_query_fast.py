"""The cache hit's short way through the HTTP stack (``gateway.api.query_fast``): a near-cache
hit of ``POST /v1/query`` is answered by the same code as the route, with the same body, route
record and access-log line; every request that fails on the way gets the full stack's answer
(401, 403, 400, 413) in the one error shape."""

from __future__ import annotations

import logging

import orjson
import pytest
from _apphelp import make_settings, running, upload

from gateway.api.query_fast import QueryFastPath

pytestmark = pytest.mark.integration

DOC = [("policy.md",
        "# 配送\n\n标准配送需要三到五个工作日。\n\n# 退货\n\n退货期限是七天。\n".encode())]
Q = "标准配送要几天？"
KEYS = {"key-docs-000001": ["docs"], "key-other-00001": ["other"]}


def fast_path(app) -> QueryFastPath:
    layer = app.middleware_stack
    while not isinstance(layer, QueryFastPath):
        layer = layer.app
    return layer


async def test_a_repeated_question_takes_the_short_way_with_the_same_answer(
        tmp_path, caplog) -> None:
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, DOC)
        first = (await client.post("/v1/query", json={"question": Q})).json()
        assert not first["cached"] and first["found"]
        assert fast_path(app).taken == 0  # a miss goes the full way
        # the same question normalised differently: a store hit on the full path
        full = (await client.post("/v1/query", json={"question": Q[:-1] + "?"})).json()
        assert fast_path(app).taken == 0 and full["cached"]
        caplog.set_level(logging.INFO, logger="loopgate.access")
        r = await client.post("/v1/query", json={"question": Q})
        assert fast_path(app).taken == 1
        assert r.status_code == 200 and r.headers["content-type"] == "application/json"
        hit = r.json()
        assert hit.keys() == full.keys()
        for key in set(full) - {"route"}:
            assert hit[key] == full[key], key
        assert hit["route"]["cache_hit"] and hit["route"]["decision"]["reason"].endswith("(near)")
        assert hit["route"]["trace_id"] != first["route"]["trace_id"]
        line = orjson.loads(caplog.records[-1].getMessage())
        assert line["path"] == "/v1/query" and line["cached"] is True
        assert line["trace_id"] == hit["route"]["trace_id"] and line["status"] == 200
        # the route log holds the hit like any other
        records = (await client.get("/v1/routes", params={"limit": 5})).json()
        assert hit["route"]["trace_id"] in str(records)


async def test_errors_on_the_short_way_are_the_full_stacks(tmp_path) -> None:
    settings = make_settings(tmp_path, api_keys=KEYS, max_body_bytes=1024)
    ok = {"Authorization": "Bearer key-docs-000001"}
    async with running(settings) as (app, client):
        await upload(app, client, DOC, headers=ok)
        for _ in range(2):
            r = await client.post("/v1/query", json={"question": Q}, headers=ok)
            assert r.status_code == 200
        assert fast_path(app).taken == 1 and r.json()["cached"]
        r = await client.post("/v1/query", json={"question": Q})
        assert r.status_code == 401 and "Authorization: Bearer" in r.json()["error"]["message"]
        r = await client.post("/v1/query", json={"question": Q},
                              headers={"Authorization": "Bearer key-other-00001"})
        assert r.status_code == 403 and "docs" in r.json()["error"]["message"]
        r = await client.post("/v1/query", json={"question": Q, "filter": {}}, headers=ok)
        assert r.status_code == 400 and "filter" in r.json()["error"]["message"]
        r = await client.post("/v1/query", json={"question": Q, "collection": "nowhere"},
                              headers=ok)
        assert r.status_code in (403, 404)
        r = await client.post("/v1/query", json={"question": Q},
                              headers={**ok, "X-LoopGate-User": "u" * 201})
        assert r.status_code == 400 and "X-LoopGate-User" in r.json()["error"]["message"]
        big = {"question": Q, "history": [{"role": "user", "content": "x" * 1100}]}
        r = await client.post("/v1/query", json=big, headers=ok)
        assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
        assert fast_path(app).taken == 1
        r = await client.post("/v1/query", json={"question": Q}, headers=ok)
        assert r.status_code == 200 and r.json()["cached"] and fast_path(app).taken == 2
