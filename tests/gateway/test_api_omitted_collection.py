"""A request that names no collection (found by a new-user trial: after the Quickstart's
``ingest --collection demo``, ``POST /v1/query`` without a collection answered "collection
'default' holds no documents yet" while the Ask page preselected ``demo``).

Real components: the collections are ingested keyword-only into the embedded Qdrant under
``tmp_path`` (``tests._support.ingest``), the answer cache is the real Redis, the legacy RAG of
the migration case a real HTTP server on loopback.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _apphelp import make_settings, running
from legacy_service import LegacyService

from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only

pytestmark = pytest.mark.integration

QUESTION = "What is the warranty period of the pump?"
FAQ = ("# Pump warranty\n\nThe warranty period of the pump is three years from the date of "
       "purchase.\n\n## Shipping\n\nStandard shipping takes five working days.\n")
NOTES = "# Office\n\nThe office opens at nine in the morning.\n"


def _ingest(tmp_path: Path, collection: str, name: str, text: str) -> None:
    docs = write_texts(tmp_path / f"docs-{collection}", {name: text})
    ingest_keyword_only(tmp_path / "data", docs, collection)


def _settings(tmp_path: Path, redis_url: str, prefix: str, **kw: Any) -> Any:
    # the shipped default: LOOPGATE_DEFAULT_COLLECTION=default, never ingested here
    return make_settings(tmp_path, default_collection="default", redis_url=redis_url,
                         redis_key_prefix=prefix, **kw)


@pytest.fixture(scope="module")
def service() -> Iterator[LegacyService]:
    with LegacyService() as srv:
        yield srv


async def test_the_only_collection_with_documents_answers(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    _ingest(tmp_path, "demo", "faq.md", FAQ)
    async with running(_settings(tmp_path, redis_url, prefix)) as (_app, client):
        r = await client.post("/v1/query", json={"question": QUESTION, "mode": "rag"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["found"] is True and "three years" in body["answer"], body
        assert body["citations"][0]["path"] == "faq.md"
        assert body["route"]["final_path"] == "rag" and not body["cached"]
        again = (await client.post("/v1/query", json={"question": QUESTION, "mode": "rag"})).json()
        assert again["cached"] and again["answer"] == body["answer"]  # the Redis cache of demo
        # the Ask page preselects what the API asks; the document listing agrees
        assert (await client.get("/v1/view/collections")).json() == {
            "default": "demo", "collections": ["demo"]}
        listing = (await client.get("/v1/documents")).json()
        assert listing["collection"] == "demo"
        assert [d["path"] for d in listing["documents"]] == ["faq.md"]
        async with client.stream("POST", "/v1/query/stream",
                                 json={"question": QUESTION, "mode": "rag"}) as resp:
            text = "".join([line async for line in resp.aiter_lines()])
        assert "three years" in text


async def test_several_collections_are_named_in_the_not_found_answer(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    _ingest(tmp_path, "demo", "faq.md", FAQ)
    _ingest(tmp_path, "other", "notes.md", NOTES)
    keys = {"key-all-0001": ["*"], "key-demo-0001": ["demo"]}
    async with running(_settings(tmp_path, redis_url, prefix, api_keys=keys)) as (_app, client):
        everyone = {"Authorization": "Bearer key-all-0001"}
        r = await client.post("/v1/query", json={"question": QUESTION}, headers=everyone)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["found"] is False and body["route"]["final_path"] == "empty_collection"
        assert body["answer"] == (
            "Not found: collection 'default' holds no documents yet. Collections that exist: "
            "demo, other; name one in the request's \"collection\" field.")
        assert (await client.get("/v1/view/collections", headers=everyone)).json() == {
            "default": "default", "collections": ["demo", "other"]}
        # a key that may use only demo: its one collection with documents
        only_demo = {"Authorization": "Bearer key-demo-0001"}
        body = (await client.post("/v1/query", json={"question": QUESTION, "mode": "rag"},
                                  headers=only_demo)).json()
        assert body["found"] is True and body["citations"][0]["path"] == "faq.md", body
        assert (await client.get("/v1/view/collections", headers=only_demo)).json() == {
            "default": "demo", "collections": ["demo"]}


async def test_an_existing_default_collection_still_wins(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    _ingest(tmp_path, "demo", "faq.md", FAQ)
    _ingest(tmp_path, "default", "other.md", NOTES)
    async with running(_settings(tmp_path, redis_url, prefix)) as (_app, client):
        body = (await client.post("/v1/query", json={"question": QUESTION, "mode": "rag"})).json()
        assert not any(c["path"] == "faq.md" for c in body["citations"]), body
        assert (await client.get("/v1/view/collections")).json()["default"] == "default"


async def test_migration_proxy_still_asks_the_configured_default(
    tmp_path: Path, redis_url: str, prefix: str, service: LegacyService
) -> None:
    """Migration modes are per collection: an omitted collection stays ``default`` there even
    when ``demo`` is the only collection with documents (the legacy RAG gets ``default``)."""
    _ingest(tmp_path, "demo", "faq.md", FAQ)
    settings = _settings(
        tmp_path, redis_url, prefix, migration_modes={"default": "proxy"},
        legacy_rag_url=service.url + "/ask",
        legacy_rag_body='{"query": "{question}", "collection": "{collection}"}',
        legacy_rag_answer_path="data.answer", legacy_rag_sources_path="data.docs",
        legacy_rag_found_path="data.found")
    async with running(settings) as (_app, client):
        body = (await client.post("/v1/query", json={"question": QUESTION})).json()
        assert body["migration"]["served_by"] == "legacy", body
        assert body["migration"]["mode"] == "proxy"
        assert service.seen[-1]["body"]["collection"] == "default"


async def test_an_empty_collection_name_is_refused_not_read_as_omitted(
    tmp_path: Path, redis_url: str, prefix: str
) -> None:
    # a break-it trial's "collection": "" was answered from the default collection: a name
    # given empty is a 400 naming the parameter, on the query, stream, listing and viewer
    _ingest(tmp_path, "demo", "faq.md", FAQ)
    async with running(_settings(tmp_path, redis_url, prefix)) as (_app, client):
        for url in ("/v1/query", "/v1/query/stream"):
            r = await client.post(url, json={"question": QUESTION, "collection": ""})
            assert r.status_code == 400, (url, r.text)
            assert r.json()["error"]["param"] == "collection", r.text
        r = await client.get("/v1/documents", params={"collection": ""})
        assert r.status_code == 400 and r.json()["error"]["param"] == "collection", r.text
        ok = await client.post("/v1/query", json={"question": QUESTION, "mode": "rag"})
        assert ok.status_code == 200 and ok.json()["found"], ok.text  # omitted: still answered
