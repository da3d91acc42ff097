"""Acceptance: case 12 (stale index and cache) end to end through the HTTP API, with the real
Redis answer cache, the real embedded Qdrant engine and the local e5 model.

Same question twice → the second is a cache hit with the identical answer; a document
re-ingested with changed bytes → the next ask is a miss and reflects the change; a deleted
document vanishes from both indexes and from every cached answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from _apphelp import CASE12, ask, make_settings, running, unique_prefix, upload

from tests._support.redis_keys import drop_keys

pytestmark = pytest.mark.integration


async def _redis_values(url: str, prefix: str) -> list[str]:
    client = aioredis.from_url(url)
    try:
        out = []
        async for key in client.scan_iter(match=f"{prefix}*", count=500):
            if (await client.type(key)) == b"string":
                raw = await client.get(key)
                if raw is not None:
                    out.append(raw.decode("utf-8", "replace"))
        return out
    finally:
        await client.aclose()


async def test_case12_scenario_through_the_api(tmp_path, embed_model_path, cases_dir: Path,
                                               redis_url: str) -> None:
    case = cases_dir / CASE12
    expected = json.loads((case / "expected.json").read_text(encoding="utf-8"))
    assert [s["action"] for s in expected["scenario"]][:3] == ["ask", "ingest", "ask"]
    prefix = unique_prefix()
    settings = make_settings(tmp_path, embed_model_path, redis_url=redis_url,
                             redis_key_prefix=prefix, default_collection="case12")
    try:
        async with running(settings) as (app, client):
            # 1. nothing ingested yet
            first = await ask(client, "退货期限是几天？")
            assert first["found"] is False
            # 2. ingest v1
            job = await upload(app, client, [case / "v1/policy.md", case / "v1/old_notice.md",
                                             case / "v1/shipping.md"])
            assert job["report"]["counts"]["ingested"] == 3
            # 3. must not be the cached "not found"; then the same question twice → cache hit
            a3 = await ask(client, "退货期限是几天？")
            assert a3["found"] and "7 天" in a3["answer"] and not a3["cached"]
            assert a3["citations"][0]["path"] == "policy.md"
            a3b = await ask(client, "退货期限是几天？")
            assert a3b["cached"] and a3b["route"]["cache_hit"]
            assert a3b["answer"] == a3["answer"] and a3b["citations"] == a3["citations"]
            # 4.
            a4 = await ask(client, "仓库周六开门吗？")
            assert a4["found"] and "周六关闭" in a4["answer"]
            assert a4["citations"][0]["path"] == "old_notice.md"
            # 5. replace policy.md with v2 (same name, changed bytes)
            job = await upload(app, client, [("policy.md", (case / "v2/policy.md").read_bytes())])
            assert job["report"]["counts"]["replaced"] == 1
            # 6. a miss that reflects the change; no 7-day chunk left
            a6 = await ask(client, "退货期限是几天？")
            assert not a6["cached"] and a6["found"]
            assert "15 天" in a6["answer"] and "7 天" not in a6["answer"]
            assert a6["citations"][0]["path"] == "policy.md"
            # 7. normalised-key variant of the same question → served from the cache
            a7 = await ask(client, "退货期限是几天 ？")
            assert "15 天" in a7["answer"] and a7["cached"]
            # 8. delete old_notice.md
            r = await client.delete("/v1/documents/old_notice.md")
            assert r.status_code == 200, r.text
            # 9. gone from both indexes and from the cache
            a9 = await ask(client, "仓库周六开门吗？")
            assert a9["found"] is False, a9
            assert all(c["path"] != "old_notice.md" for c in a9["citations"])
            # 10. untouched documents still answer
            a10 = await ask(client, "标准配送要几天？")
            assert a10["found"] and "3 个工作日" in a10["answer"]
            assert a10["citations"][0]["path"] == "shipping.md"
            # 11. no point of old_notice.md, no v1 policy text, no cached answer citing it
            store = app.state.components.store
            docs = (await client.get("/v1/documents")).json()["documents"]
            assert sorted(d["path"] for d in docs) == ["policy.md", "shipping.md"]
            texts = [c.text for d in docs for c in store.document_chunks("case12", d["doc_id"])]
            assert texts and not any("7 天" in t for t in texts)
            hits = store.keyword_search("case12", app.state.components.tokenizer.sparse_query(
                "仓库 周六 关闭 7 天"), top_k=20)
            assert all(h.chunk.path != "old_notice.md" and "7 天" not in h.chunk.text for h in hits)
            values = await _redis_values(redis_url, prefix)
            assert values, "the answer cache wrote nothing to Redis"
            assert not [v for v in values if "old_notice.md" in v and '"answer"' in v]
    finally:
        await drop_keys(redis_url, prefix)
