"""Migration modes: canary split, proxy/shadow/canary/gateway dispatch, agreement and the log.

The legacy side is a real HTTP server on loopback; the LoopGate side is an async answer
function shaped like the gateway's answers (the dispatcher only ever sees a zero-argument
coroutine factory, which is what the query route passes it).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from legacy_service import LegacyService

from gateway.migration import (
    LegacyRagClient,
    LegacyRagConfig,
    MigrationDispatcher,
    MigrationLog,
    MigrationPolicy,
    SourceRef,
    answer_similarity,
    canary_bucket,
    canary_selects_loopgate,
    citation_overlap,
)

pytestmark = pytest.mark.integration

KEYS = [f"user-{i}" for i in range(10_000)]


@pytest.mark.parametrize("percent", [1, 5, 10, 25, 50, 90])
def test_canary_split_within_two_points(percent: float) -> None:
    share = sum(canary_selects_loopgate(k, percent, "manuals") for k in KEYS) / len(KEYS) * 100
    assert abs(share - percent) <= 2.0, f"{share:.2f}% sent to LoopGate for N={percent}"


def test_canary_split_is_stable_and_monotonic() -> None:
    at10 = {k for k in KEYS if canary_selects_loopgate(k, 10, "manuals")}
    at25 = {k for k in KEYS if canary_selects_loopgate(k, 25, "manuals")}
    assert at10 == {k for k in KEYS if canary_selects_loopgate(k, 10, "manuals")}
    assert at10 <= at25, "raising the percentage must only add keys"
    assert all(0 <= canary_bucket(k) < 100 for k in KEYS[:500])
    # another process with another hash seed puts every key in the same bucket
    code = (
        "from gateway.migration import canary_bucket; "
        "print([round(canary_bucket(f'user-{i}','manuals'),9) for i in range(200)])"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == str(
        [round(canary_bucket(f"user-{i}", "manuals"), 9) for i in range(200)]
    )


def test_agreement_measures() -> None:
    a = [SourceRef("/srv/docs/Pump-X200.pdf", 12), SourceRef("faq.md")]
    b = [SourceRef("manuals/pump-x200.pdf", 12), SourceRef("manuals/pump-x200.pdf", 14)]
    docs, pages = citation_overlap(a, b)
    assert docs == pytest.approx(1 / 2) and pages == pytest.approx(1 / 2)
    assert citation_overlap([], []) == (None, None)
    assert citation_overlap(a, [])[0] == 0.0
    assert answer_similarity("The warranty is 24 months.", "the WARRANTY is 24 months") == 1.0
    assert answer_similarity("保修期为24个月。", "保修期为 24 个月") == 1.0
    assert answer_similarity("保修期为24个月", "保修期为12个月") < 1.0
    assert answer_similarity("yes", "completely different text") < 0.3


@pytest.fixture(scope="module")
def service() -> Iterator[LegacyService]:
    with LegacyService() as srv:
        yield srv


def _legacy(service: LegacyService, path: str = "/ask") -> LegacyRagClient:
    return LegacyRagClient(
        LegacyRagConfig(
            url=service.url + path,
            body={"query": "{question}"},
            answer_path="data.answer",
            sources_path="data.docs",
            source_fields={"path": "meta.source", "page": "meta.page"},
            found_path="data.found",
            timeout_s=2.0,
        )
    )


def _answer(found: bool = True) -> dict[str, Any]:
    return {
        "answer": "Legacy says: warranty?" if found else "",
        "found": found,
        "citations": [{"path": "pump-x200.pdf", "page": 12, "quote": "warranty is 24 months"}]
        if found
        else [],
    }


class _CountedLoopgate:
    """The LoopGate side of a dispatch: answers :func:`_answer` and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self) -> dict[str, Any]:
        self.calls += 1
        return _answer()


def _dispatcher(
    service: LegacyService, modes: dict[str, str], log: MigrationLog | None = None, **kw: Any
) -> MigrationDispatcher:
    return MigrationDispatcher(
        MigrationPolicy.from_strings(modes), _legacy(service), log or MigrationLog(), **kw
    )


async def test_proxy_serves_legacy_and_never_runs_loopgate(service: LegacyService) -> None:
    loopgate = _CountedLoopgate()
    d = _dispatcher(service, {"manuals": "proxy"})
    out = await d.dispatch("warranty?", "manuals", loopgate, trace_id="t1")
    await d.aclose()
    assert out.served_by == "legacy" and loopgate.calls == 0
    body = out.legacy_response()
    assert body["answer"] == "Legacy says: warranty?" and body["citations"] == []
    assert body["sources"][0] == {
        "path": "manuals/pump-x200.pdf",
        "page": 12,
        "quote": "",
        "score": None,
        "verified": False,
    }
    summary = await d.log.summary()
    assert summary["manuals"]["served"] == {"legacy": 1}


async def test_shadow_answers_without_waiting_and_records_agreement(service: LegacyService) -> None:
    release = asyncio.Event()

    async def slow_loopgate() -> dict[str, Any]:
        await release.wait()
        return _answer()

    d = _dispatcher(service, {"manuals": "shadow"})
    out = await d.dispatch("warranty?", "manuals", slow_loopgate)
    assert out.served_by == "legacy" and out.shadow == "started"
    assert d.shadow_in_flight == 1  # the user's answer is back, the LoopGate run is still going
    release.set()
    await d.drain()
    rec = (await d.log.recent(1))[0]
    assert rec["shadow"] == "ok"
    assert rec["agreement"]["citation_overlap"] == pytest.approx(1 / 2)  # pages 12 ∩ {12, 13}
    assert rec["agreement"]["answer_similarity"] == 1.0 and rec["agreement"]["found_agree"]
    s = (await d.log.summary())["manuals"]
    assert s["shadow"] == {"ok": 1} and s["compared"] == 1
    await d.aclose()


async def test_shadow_failures_and_timeouts_never_reach_the_user(service: LegacyService) -> None:
    async def broken() -> dict[str, Any]:
        raise RuntimeError("index exploded")

    async def hangs() -> dict[str, Any]:
        await asyncio.sleep(60)
        return _answer()

    d = _dispatcher(service, {"manuals": "shadow"}, shadow_timeout_s=0.2)
    first = await d.dispatch("q1", "manuals", broken)
    second = await d.dispatch("q2", "manuals", hangs)
    assert first.served_by == second.served_by == "legacy"
    assert first.legacy and first.legacy.ok
    await d.drain()
    outcomes = sorted(r["shadow"] for r in await d.log.recent(5))
    assert outcomes == ["error", "timeout"]
    assert any("index exploded" in r["loopgate"].get("error", "") for r in await d.log.recent(5))
    await d.aclose()


async def test_shadow_is_skipped_when_too_many_are_in_flight(service: LegacyService) -> None:
    gate = asyncio.Event()

    async def blocked() -> dict[str, Any]:
        await gate.wait()
        return _answer()

    d = _dispatcher(service, {"manuals": "shadow"}, shadow_max_concurrency=2)
    outs = [await d.dispatch(f"q{i}", "manuals", blocked) for i in range(4)]
    assert [o.shadow for o in outs] == ["started", "started", "skipped", "skipped"]
    gate.set()
    await d.drain()
    assert (await d.log.summary())["manuals"]["shadow"] == {"ok": 2, "skipped": 2}
    await d.aclose()


async def test_canary_sends_its_share_and_falls_back_on_failure(service: LegacyService) -> None:
    async def ok() -> dict[str, Any]:
        return _answer()

    async def broken() -> dict[str, Any]:
        raise RuntimeError("boom")

    d = _dispatcher(service, {"all": "canary:100", "none": "canary:0", "half": "canary:50"})
    assert (await d.dispatch("q", "all", ok, user="u1")).served_by == "loopgate"
    assert (await d.dispatch("q", "none", ok, user="u1")).served_by == "legacy"
    fb = await d.dispatch("q", "all", broken, user="u1")
    assert (
        fb.served_by == "legacy" and fb.fallback == "loopgate_error" and "boom" in fb.loopgate_error
    )
    sides = {
        u: (await d.dispatch("same question", "half", ok, user=u)).served_by
        for u in ("a", "b", "c", "d", "e", "f")
    }
    again = {u: (await d.dispatch("other words", "half", ok, user=u)).served_by for u in sides}
    assert sides == again, "a user stays on one side whatever the question"
    await d.aclose()


async def test_gateway_mode_uses_legacy_only_as_fallback(service: LegacyService) -> None:
    async def found() -> dict[str, Any]:
        return _answer(True)

    async def not_found() -> dict[str, Any]:
        return _answer(False)

    async def broken() -> dict[str, Any]:
        raise RuntimeError("qdrant down")

    d = _dispatcher(service, {})
    assert (await d.dispatch("q", "c", found)).served_by == "loopgate"
    nf = await d.dispatch("q", "c", not_found)
    assert nf.served_by == "legacy" and nf.fallback == "loopgate_not_found"
    err = await d.dispatch("q", "c", broken)
    assert err.served_by == "legacy" and err.fallback == "loopgate_error"
    await d.aclose()
    # legacy failing too: LoopGate's own error is what the route's error handler sees
    d2 = _dispatcher(service, {})
    d2.legacy = _legacy(service, "/status/500")
    with pytest.raises(RuntimeError, match="qdrant down"):
        await d2.dispatch("q", "c", broken)
    assert (
        await d2.dispatch("q", "c", not_found)
    ).served_by == "loopgate"  # its honest "not found"
    await d2.aclose()


async def test_failed_legacy_is_a_flagged_answer(service: LegacyService) -> None:
    d = _dispatcher(service, {"m": "proxy"})
    d.legacy = _legacy(service, "/notjson")
    out = await d.dispatch("q", "m", lambda: asyncio.sleep(0))
    body = out.legacy_response()
    assert body["found"] is False and body["error"]["code"] == "legacy_malformed"
    assert "not JSON" in body["error"]["message"] and body["migration"]["legacy"]["ok"] is False
    await d.aclose()


@pytest.fixture
async def redis_client(redis_url: str) -> AsyncIterator[Any]:
    import redis.asyncio as aioredis

    client = aioredis.from_url(redis_url)
    yield client
    await client.aclose()


async def test_migration_log_in_redis_adds_up_across_replicas(
    service: LegacyService, redis_client: Any
) -> None:
    prefix = f"lgtest:{uuid.uuid4().hex}:migration"
    try:
        replicas = [
            _dispatcher(service, {"m": "shadow"}, MigrationLog(redis_client, prefix=prefix))
            for _ in range(2)
        ]

        async def ok() -> dict[str, Any]:
            return _answer()

        for i in range(6):
            await replicas[i % 2].dispatch(f"q{i}", "m", ok)
        for r in replicas:
            await r.drain()
        fresh = MigrationLog(redis_client, prefix=prefix)  # a third process reading the dashboard
        s = (await fresh.summary())["m"]
        assert s["served"] == {"legacy": 6} and s["shadow"] == {"ok": 6} and s["compared"] == 6
        assert s["mean_citation_overlap"] == pytest.approx(0.5)
        assert len(await fresh.recent(10, collection="m")) == 6
        for r in replicas:
            await r.aclose()
    finally:
        keys = [k async for k in redis_client.scan_iter(match=f"{prefix}*")]
        if keys:
            await redis_client.delete(*keys)


async def test_deferred_shadow_starts_only_when_asked(service: LegacyService) -> None:
    loopgate = _CountedLoopgate()
    d = _dispatcher(service, {"manuals": "shadow"})
    out = await d.dispatch("warranty?", "manuals", loopgate, defer_shadow=True)
    await asyncio.sleep(0.05)
    assert out.shadow == "started" and out.start_shadow is not None
    assert loopgate.calls == 0 and d.shadow_in_flight == 0  # nothing runs before the answer is sent
    await out.start_shadow()
    await d.drain()
    assert loopgate.calls == 1 and (await d.log.recent(1))[0]["shadow"] == "ok"
    await d.aclose()
