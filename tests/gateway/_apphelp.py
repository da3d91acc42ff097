"""Helpers for the gateway API tests: build settings in ``tmp_path``, run the app's lifespan,
talk to it through ``httpx.AsyncClient(transport=ASGITransport(app))``, upload documents."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from gateway.main import create_app
from gateway.settings import Settings

CASE12 = "12-stale-index-and-cache"


def make_settings(tmp_path: Path, model: Path | None = None, **kw: Any) -> Settings:
    """Settings for one test app: data in ``tmp_path``, the local e5 model when given."""
    # fixed budgets: a start-up speed probe would consume the first replies of a scripted
    # fake LLM (tests/gateway/test_llm_budgets.py probes on purpose)
    base: dict[str, Any] = {"data_dir": tmp_path / "data", "embed_model_path": model,
                            "default_collection": "docs", "llm_budgets": "fixed"}
    base.update(kw)
    return Settings(**base)


def unique_prefix() -> str:
    """A Redis key prefix no other test uses."""
    return f"lgtest:{uuid.uuid4().hex[:12]}:"


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """The app with its lifespan running, and an in-process client."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            yield app, client


async def upload(app: Any, client: httpx.AsyncClient, files: list[Path] | list[tuple[str, bytes]],
                 collection: str | None = None, headers: dict[str, str] | None = None
                 ) -> dict[str, Any]:
    """Upload files, wait for the ingest job, return the finished job."""
    parts = []
    for f in files:
        name, data = (f.name, f.read_bytes()) if isinstance(f, Path) else f
        parts.append(("files", (name, data, "application/octet-stream")))
    data = {"collection": collection} if collection else None
    r = await client.post("/v1/documents", files=parts, data=data, headers=headers)
    assert r.status_code == 202, r.text
    await app.state.components.ingest.wait_idle()
    job = (await client.get(r.json()["status_url"], headers=headers)).json()
    assert job["status"] == "done", job
    return job


async def ask(client: httpx.AsyncClient, question: str, **kw: Any) -> dict[str, Any]:
    """POST /v1/query and return the JSON body (asserting 200)."""
    r = await client.post("/v1/query", json={"question": question, **kw})
    assert r.status_code == 200, r.text
    return r.json()


async def sse_events(resp: httpx.Response) -> list[tuple[str, Any]]:
    """The ``(event, data)`` pairs of a streamed ``/v1/query/stream`` response, in order."""
    events: list[tuple[str, Any]] = []
    kind = ""
    async for line in resp.aiter_lines():
        if line.startswith("event:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            events.append((kind, json.loads(line.split(":", 1)[1])))
    return events
