"""The migration hook in the real app: ``POST /v1/query`` under proxy / shadow / canary / gateway
modes against a loopback legacy service, and ``GET /v1/migration`` for the dashboard."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from legacy_service import LegacyService

from gateway.main import create_app
from gateway.settings import Settings

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def service() -> Iterator[LegacyService]:
    with LegacyService() as srv:
        yield srv


@asynccontextmanager
async def _app(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app with its lifespan running, and an in-process client."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            yield client


def _client(tmp_path: Path, service: LegacyService, modes: dict[str, str], **kw: object) -> Any:
    settings = Settings(
        data_dir=tmp_path / "data",
        legacy_rag_url=service.url + "/ask",
        legacy_rag_body='{"query": "{question}", "user": "{user}", "trace": "{trace_id}"}',
        legacy_rag_answer_path="data.answer",
        legacy_rag_sources_path="data.docs",
        legacy_rag_source_fields={"path": "meta.source", "page": "meta.page", "quote": "content"},
        legacy_rag_found_path="data.found",
        migration_modes=modes,
        **kw,  # type: ignore[arg-type]
    )
    return _app(settings)


async def test_proxy_and_status(tmp_path: Path, service: LegacyService) -> None:
    async with _client(tmp_path, service, {"default": "proxy"}) as client:
        r = await client.post(
            "/v1/query",
            json={"question": "How long is the warranty?"},
            headers={"X-LoopGate-User": "alice"},
        )
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["answer"] == "Legacy says: How long is the warranty?"
        assert body["migration"]["served_by"] == "legacy" and body["citations"] == []
        assert body["sources"][0]["verified"] is False
        assert service.seen[-1]["body"]["user"] == "alice"
        assert service.seen[-1]["body"]["trace"] == body["migration"]["trace_id"]
        for _ in range(100):  # records are written in the background: eventually consistent
            status = (await client.get("/v1/migration")).json()
            if status["collections"]["default"]["served"]:
                break
            await asyncio.sleep(0.02)
        assert status["enabled"] and status["collections"]["default"]["served"] == {"legacy": 1}


async def test_shadow_runs_loopgate_after_the_answer(
    tmp_path: Path, service: LegacyService
) -> None:
    async with _client(tmp_path, service, {"default": "shadow"}) as client:
        r = await client.post("/v1/query", json={"question": "pump warranty"})
        assert r.json()["migration"] == {
            **r.json()["migration"],
            "served_by": "legacy",
            "shadow": "started",
        }
        for _ in range(100):  # the background LoopGate run lands in the migration log
            recent = (await client.get("/v1/migration/recent")).json()["records"]
            if recent and recent[0].get("shadow"):
                break
            await asyncio.sleep(0.05)
        assert recent[0]["shadow"] == "ok", recent
        assert recent[0]["loopgate"]["found"] is False  # empty collection: LoopGate says not found
        assert recent[0]["agreement"]["found_agree"] is False


async def test_canary_and_gateway_fallback(tmp_path: Path, service: LegacyService) -> None:
    async with _client(tmp_path, service, {"default": "canary:100"}) as client:
        body = (await client.post("/v1/query", json={"question": "pump warranty"})).json()
        # LoopGate answers "not found" on an empty collection, so the legacy answer is served
        assert body["migration"]["served_by"] == "legacy"
        assert body["migration"]["fallback"] == "loopgate_not_found"
    async with _client(tmp_path, service, {}, migration_default_mode="gateway") as client:
        body = (await client.post("/v1/query", json={"question": "pump warranty"})).json()
        assert body["migration"]["mode"] == "gateway" and body["migration"]["served_by"] == "legacy"


async def test_no_migration_leaves_the_route_unchanged(tmp_path: Path) -> None:
    async with _app(Settings(data_dir=tmp_path / "d")) as client:
        body = (await client.post("/v1/query", json={"question": "pump warranty"})).json()
        assert "migration" not in body and "route" in body
        assert (await client.get("/v1/migration")).json() == {"enabled": False, "collections": {}}
