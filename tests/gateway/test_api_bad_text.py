"""Request text UTF-8 cannot carry (a lone surrogate, ``\\ud800``, which JSON may spell) is bad
input: a 400 in the one error shape naming the field, never a 500 nor an outage of a store."""

from __future__ import annotations

import pytest
from _apphelp import make_settings, running, upload

pytestmark = pytest.mark.integration

JSON = {"content-type": "application/json"}
DOC = ("returns.md", b"# Widget returns\n\nA Widget may be returned within 30 days.\n")


async def test_lone_surrogate_in_filters_is_a_400_naming_the_field(tmp_path) -> None:
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, [DOC])
        for field, raw in [("paths", r'["\ud800.md"]'), ("doc_ids", r'["x\udc80"]'),
                           ("section_prefix", r'["\ud800"]')]:
            body = r'{"question":"Widget return","mode":"rag","filters":{"%s":%s}}' % (field, raw)
            r = await client.post("/v1/query/stream", content=body.encode(), headers=JSON)
            assert r.status_code == 400, (field, r.text)
            err = r.json()["error"]
            assert err["code"] == "bad_request" and err["message"].startswith(f"filters.{field}.0: ")
            assert "surrogate" in err["message"]
        metrics = (await client.get("/metrics")).text
        assert not [line for line in metrics.splitlines()
                    if "store_unavailable" in line and not line.startswith("#")
                    and not line.rstrip().endswith(" 0.0")]
        ok = await client.post("/v1/query", json={"question": "Widget return", "mode": "rag",
                                                  "filters": {"paths": ["returns.md"]}})
        assert ok.status_code == 200 and ok.json()["found"], ok.text


async def test_punctuation_only_question_is_empty(tmp_path) -> None:
    """A question of punctuation, control or invisible characters alone is refused like a
    blank one (400 'question is empty'), not answered 'Not found' with a cache outage."""
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, [DOC])
        for q in ["???", "!!!", "，。", "\u0000", "\u200b\u200b\ufeff", " ... "]:
            for path in ("/v1/query", "/v1/query/stream"):
                r = await client.post(path, json={"question": q, "mode": "rag"})
                assert r.status_code == 400, (q, path, r.text)
                assert r.json()["error"]["message"].startswith("question is empty (only")
            r = await client.post("/v1/chat/completions", json={
                "model": "loopgate-rag", "messages": [{"role": "user", "content": q}]})
            assert r.status_code == 400, (q, r.text)
        metrics = (await client.get("/metrics")).text
        assert not [line for line in metrics.splitlines() if "cache" in line
                    and "unavailable" in line and not line.startswith("#")
                    and not line.rstrip().endswith((" 0", " 0.0"))]
        for q in ["Widget return?", "$", "30"]:
            r = await client.post("/v1/query", json={"question": q, "mode": "rag"})
            assert r.status_code == 200, (q, r.text)


async def test_a_flag_is_json_true_or_false_only(tmp_path) -> None:
    """A trial: ``"use_cache": "no"`` was read as false and answered 200; now a 400 naming the
    field, as every other wrong type is."""
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, [DOC])
        for raw in ["no", "yes", 0, 1, "false"]:
            r = await client.post("/v1/query", json={"question": "Widget return", "mode": "rag",
                                                     "use_cache": raw})
            assert r.status_code == 400 and "use_cache" in r.text, (raw, r.text)
        ok = await client.post("/v1/query", json={"question": "Widget return", "mode": "rag",
                                                  "use_cache": False})
        assert ok.status_code == 200 and ok.json()["found"], ok.text


async def test_a_date_a_line_range_and_a_text_part_are_what_they_say(tmp_path) -> None:
    """A hostile-input trial: ``"current_date": "20240101"`` was read as a Unix timestamp
    ("should have zero time"), a citation's ``"lines": [-5, 100000000]`` was shown as marked,
    and a chat text part ``{"type": "text", "text": 5}`` was asked as the question "5": each is
    a 400 naming the field now; the well-formed requests still answer."""
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, [DOC])
        q = {"question": "Widget return", "mode": "rag"}
        for bad in ("20240101", "2024/01/01", "01-01-2024"):
            r = await client.post("/v1/query", json={**q, "current_date": bad})
            assert r.status_code == 400 and "YYYY-MM-DD" in r.text, (bad, r.text)
        r = await client.post("/v1/query", json={**q, "current_date": "2024-01-01"})
        assert r.status_code == 200 and r.json()["found"], r.text
        cit = r.json()["citations"][0]
        for lines in ([-5, 100000000], [4, 2], [0, 1]):
            r = await client.post("/v1/view/citation", json={"citation": {**cit, "lines": lines}})
            assert r.status_code == 400 and "lines" in r.text, (lines, r.text)
        r = await client.post("/v1/view/citation", json={"citation": cit})
        assert r.status_code == 200, r.text
        chat = {"model": "loopgate-rag"}
        for part in ({"type": "text", "text": 5}, {"type": "text", "text": {"a": 1}},
                     {"type": "text"}):
            r = await client.post("/v1/chat/completions", json={
                **chat, "messages": [{"role": "user", "content": [part]}]})
            assert r.status_code == 400 and "content part 0" in r.text, (part, r.text)
        r = await client.post("/v1/chat/completions", json={**chat, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Widget return"}]}]})
        assert r.status_code == 200, r.text
