"""Legacy-RAG adapter against a real HTTP server on loopback: well-formed, slow, failing and
malformed replies."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from legacy_service import LegacyService

from gateway.migration import (
    LegacyConfigError,
    LegacyRagClient,
    LegacyRagConfig,
    build_dispatcher,
    legacy_config_from_settings,
)
from gateway.settings import Settings

pytestmark = pytest.mark.integration

FIELDS = {"path": "meta.source", "page": "meta.page", "quote": "content", "score": "score"}


@pytest.fixture(scope="module")
def service() -> Iterator[LegacyService]:
    with LegacyService() as srv:
        yield srv


def _config(service: LegacyService, path: str = "/ask", **kw: object) -> LegacyRagConfig:
    base: dict[str, object] = dict(
        url=service.url + path,
        body={
            "query": "{question}",
            "index": "{collection}",
            "user": "{user}",
            "opts": {"k": 5, "tag": "lg-{trace_id}"},
        },
        answer_path="data.answer",
        sources_path="data.docs",
        source_fields=FIELDS,
        found_path="data.found",
        timeout_s=2.0,
    )
    base.update(kw)
    return LegacyRagConfig(**base)  # type: ignore[arg-type]


async def test_well_formed_reply_is_mapped(service: LegacyService) -> None:
    client = LegacyRagClient(_config(service, headers={"X-Team": "docs"}))
    question = 'How long is the warranty? "quoted" {braces} 保修期多久'
    res = await client.ask(question, collection="manuals", user=None, trace_id="t-1")
    await client.aclose()
    assert res.ok, res.error
    assert res.answer == f"Legacy says: {question}"
    assert res.found is True and res.status_code == 200 and res.latency_ms > 0
    assert [(s.path, s.page) for s in res.sources] == [
        ("manuals/pump-x200.pdf", 12),
        ("manuals/pump-x200.pdf", 13),
        ("faq/warranty.md", None),
    ]
    assert res.sources[0].quote == "warranty is 24 months" and res.sources[
        0
    ].score == pytest.approx(0.91)
    sent = service.seen[-1]
    # placeholders substituted after parsing: quotes and braces in the question stay intact
    assert sent["body"] == {
        "query": question,
        "index": "manuals",
        "user": None,
        "opts": {"k": 5, "tag": "lg-t-1"},
    }
    assert sent["headers"]["X-Team"] == "docs"


async def test_get_method_sends_query_parameters(service: LegacyService) -> None:
    client = LegacyRagClient(
        _config(service, "/get", method="GET", body={"q": "{question}", "k": 3})
    )
    res = await client.ask("pump pressure", collection="c")
    await client.aclose()
    assert res.ok and res.answer == "Legacy says: pump pressure"
    assert service.seen[-1]["query"] == {"q": ["pump pressure"], "k": ["3"]}


@pytest.mark.parametrize(
    ("path", "kind", "needle"),
    [
        ("/ask?delay=1.5", "timeout", "within 0.5 s"),
        ("/drip?n=20", "timeout", "0.5 s"),
        ("/status/503", "http_status", "HTTP 503: upstream exploded"),
        ("/status/404", "http_status", "HTTP 404"),
        ("/notjson", "malformed", "not JSON"),
        ("/shape", "malformed", "no answer at answer_path 'data.answer'"),
        ("/badsources", "malformed", "not a list"),
        ("/huge", "malformed", "larger than"),
        ("/close", "connect", "RemoteProtocolError"),
    ],
)
async def test_failures_become_flagged_answers(
    service: LegacyService, path: str, kind: str, needle: str
) -> None:
    client = LegacyRagClient(_config(service, path, timeout_s=0.5))
    res = await client.ask("anything", collection="c")
    await client.aclose()
    assert not res.ok
    assert res.error_kind == kind, res.error
    assert needle in res.error
    assert res.answer == "" and res.found is False


async def test_slow_but_within_deadline_is_fine(service: LegacyService) -> None:
    client = LegacyRagClient(_config(service, "/ask?delay=0.3", timeout_s=2.0))
    res = await client.ask("q")
    await client.aclose()
    assert res.ok and res.latency_ms >= 300


async def test_refused_connection_is_flagged() -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    client = LegacyRagClient(LegacyRagConfig(url=f"http://127.0.0.1:{port}/ask", timeout_s=1.0))
    res = await client.ask("q")
    await client.aclose()
    assert not res.ok and res.error_kind == "connect" and "ConnectError" in res.error


def test_found_defaults_to_non_blank_answer(service: LegacyService) -> None:
    client = LegacyRagClient(_config(service, found_path=""))
    import asyncio

    res = asyncio.run(client.ask("x"))
    assert res.ok and res.found


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"url": "ftp://x"}, "http:// or https://"),
        ({"method": "PUT"}, "POST or GET"),
        ({"answer_path": "data.[answer"}, "bad JMESPath for answer_path"),
        ({"source_fields": {"author": "a"}}, "unknown source field"),
        ({"timeout_s": 0}, "timeout_s"),
    ],
)
def test_bad_mapping_fails_at_construction(kw: dict[str, object], needle: str) -> None:
    base: dict[str, object] = {"url": "http://127.0.0.1:9/ask"}
    base.update(kw)
    with pytest.raises(LegacyConfigError, match=needle):
        LegacyRagClient(LegacyRagConfig(**base))  # type: ignore[arg-type]


def test_settings_build_the_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPGATE_LEGACY_RAG_URL", "http://127.0.0.1:9/ask")
    monkeypatch.setenv("LOOPGATE_LEGACY_RAG_BODY", '{"q": "{question}"}')
    monkeypatch.setenv("LOOPGATE_LEGACY_RAG_API_KEY", "s3cret-token")
    monkeypatch.setenv("LOOPGATE_LEGACY_RAG_SOURCE_FIELDS", '{"path": "meta.source"}')
    monkeypatch.setenv("LOOPGATE_MIGRATION_MODES", '{"manuals": "canary:25", "hr": "shadow"}')
    settings = Settings()
    cfg = legacy_config_from_settings(settings)
    assert cfg is not None
    assert cfg.body == {"q": "{question}"} and cfg.headers["Authorization"] == "Bearer s3cret-token"
    dispatcher = build_dispatcher(settings)
    assert dispatcher is not None
    assert dispatcher.policy.for_collection("manuals").canary_percent == 25
    assert str(dispatcher.policy.for_collection("hr").mode) == "shadow"
    assert str(dispatcher.policy.for_collection("other").mode) == "gateway"


def test_settings_refuse_bad_migration_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPGATE_LEGACY_RAG_BODY", "[1, 2]")
    with pytest.raises(ValueError, match="JSON object"):
        Settings()
    monkeypatch.delenv("LOOPGATE_LEGACY_RAG_BODY")
    monkeypatch.setenv("LOOPGATE_MIGRATION_MODES", '{"manuals": "mirror"}')
    with pytest.raises(ValueError, match="bad migration mode"):
        Settings()
    monkeypatch.setenv("LOOPGATE_MIGRATION_MODES", '{"manuals": "shadow"}')
    with pytest.raises(LegacyConfigError, match="no legacy RAG URL"):
        build_dispatcher(Settings())
    monkeypatch.delenv("LOOPGATE_MIGRATION_MODES")
    assert build_dispatcher(Settings()) is None  # nothing configured: migration off
