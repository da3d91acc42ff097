"""API keys (``Authorization: Bearer``) with per-key allowed collections."""

from __future__ import annotations

import pytest
from _apphelp import ask, make_settings, running, upload

pytestmark = pytest.mark.integration

KEYS = {"key-manuals-0001": ["manuals"], "key-admin-000001": ["*"]}


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_keys_and_allowed_collections(tmp_path, embed_model_path) -> None:
    settings = make_settings(tmp_path, embed_model_path, api_keys=KEYS,
                             default_collection="manuals")
    doc = [("guide.md", "# 保修\n\n保修期为两年。The warranty lasts two years.\n".encode())]
    async with running(settings) as (app, client):
        r = await client.post("/v1/query", json={"question": "warranty?"})
        assert r.status_code == 401 and "Authorization: Bearer" in r.json()["error"]["message"]
        r = await client.post("/v1/query", json={"question": "warranty?"}, headers=bearer("nope-nope-nope"))
        assert r.status_code == 401 and r.json()["error"]["message"] == "unknown API key"
        r = await client.post("/v1/query", json={"question": "warranty?"},
                              headers={"Authorization": "Basic abc"})
        assert r.status_code == 401
        await upload(app, client, doc, collection="manuals", headers=bearer("key-manuals-0001"))
        await upload(app, client, doc, collection="secret", headers=bearer("key-admin-000001"))
        r = await client.post("/v1/query", json={"question": "How long is the warranty?"},
                              headers=bearer("key-manuals-0001"))
        assert r.status_code == 200 and r.json()["route"]["collection"] == "manuals"
        r = await client.post("/v1/query", json={"question": "warranty?", "collection": "secret"},
                              headers=bearer("key-manuals-0001"))
        assert r.status_code == 403 and "secret" in r.json()["error"]["message"]
        r = await client.post("/v1/documents", files=[("files", ("x.md", b"# x\n", "text/markdown"))],
                              data={"collection": "secret"}, headers=bearer("key-manuals-0001"))
        assert r.status_code == 403
        r = await client.delete("/v1/documents/guide.md", params={"collection": "secret"},
                                headers=bearer("key-manuals-0001"))
        assert r.status_code == 403
        r = await client.post("/v1/chat/completions", headers=bearer("key-manuals-0001"), json={
            "model": "loopgate-auto", "collection": "secret",
            "messages": [{"role": "user", "content": "warranty?"}]})
        assert r.status_code == 403
        r = await client.post("/v1/query", json={"question": "warranty?", "collection": "secret"},
                              headers=bearer("key-admin-000001"))
        assert r.status_code == 200
        assert (await client.get("/healthz")).status_code == 200  # probes need no key


async def test_no_keys_means_open(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        body = await ask(client, "anything?")
        assert body["found"] is False
