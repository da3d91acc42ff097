"""LLM-written directory entries (issue 14 item 1): the writer's request and lenient reply
parsing through an injected ``httpx.MockTransport`` (no model), and its use by the directory
builder (cache by content hash, extractive fallback on a server fault)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from corpus.directory_build import DirectoryBuilder, EntryCache
from corpus.types import Chunk
from loop.config import LLMConfig
from loop.entry_writer import SCHEMA, LLMEntryWriter, parse_entries


def _chunk(i: int, text: str, section: tuple[str, ...] = ("2 存储",)) -> Chunk:
    return Chunk(f"d-{i:05d}", "d" * 64, "a.md", "手册", section, 1, 1, 1, 2, 0, len(text), text,
                 ordinal=i)


CHUNKS = [_chunk(0, "产品应存放在干燥通风的仓库内，存储温度为 -40 ℃ 至 85 ℃。"),
          _chunk(1, "保修期为自购买之日起十二个月。", ("3 保修",))]


def _writer(handler: Any) -> LLMEntryWriter:
    cfg = LLMConfig(base_url="http://llm.test/v1", model="tiny", backoff_s=0.0, max_retries=0)
    return LLMEntryWriter(cfg, transport=httpx.MockTransport(handler))


def test_writer_sends_numbered_passages_with_a_schema_and_parses_near_json() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(req: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(req.content))
        # near-JSON: a trailing comma and an unclosed array, entries out of order
        content = ('{"entries": [{"n": 2, "summary": "保修十二个月", "terms": ["保修期"]},'
                   ' {"n": 1, "summary": "存储温度 -40 至 85 ℃", "terms": ["存储温度", "仓库",]}')
        return httpx.Response(200, json={"choices": [{"message": {"content": content},
                                                      "finish_reason": "stop"}],
                                         "usage": {"prompt_tokens": 90, "completion_tokens": 40}})

    w = _writer(handler)
    got = w.write_entries(CHUNKS)
    assert got == [("存储温度 -40 至 85 ℃", ["存储温度", "仓库"]), ("保修十二个月", ["保修期"])]
    (body,) = bodies
    user = body["messages"][1]["content"]
    assert "[1] (2 存储)" in user and "[2] (3 保修)" in user and "十二个月" in user
    sent_schema = json.dumps(body.get("response_format", {}), ensure_ascii=False)
    assert "entries" in sent_schema and SCHEMA["required"] == ["entries"]
    # exactly one entry per passage: the grammar cannot end the list early or run on
    assert '"minItems": 2, "maxItems": 2' in sent_schema
    assert (w.prompt_tokens, w.completion_tokens) == (90, 40)
    assert w.name.startswith("tiny|dir-v3")


def test_parse_entries_leaves_missing_or_empty_entries_to_the_fallback() -> None:
    assert parse_entries('{"entries": [{"n": 1, "summary": "", "terms": []}]}', 2) == [None, None]
    assert parse_entries("not json at all", 1) == [None]
    assert parse_entries('[{"summary": "a", "terms": "x"}]', 1) == [("a", [])]


def test_builder_with_the_writer_caches_and_falls_back() -> None:
    calls = {"n": 0}

    def ok(req: httpx.Request) -> httpx.Response:
        calls["n"] += 1
        content = json.dumps({"entries": [{"n": i + 1, "summary": f"摘要{i}", "terms": ["术语"]}
                                          for i in range(2)]}, ensure_ascii=False)
        return httpx.Response(200, json={"choices": [{"message": {"content": content}}]})

    cache = EntryCache()
    b = DirectoryBuilder(writer=_writer(ok), cache=cache, short_chars=0)
    first = b.build(CHUNKS)
    assert [e.source for e in first] == ["llm", "llm"] and first[0].summary == "摘要0"
    assert "术语" in first[0].terms and len(first[0].terms) >= 3  # topped up, extractive terms
    again = DirectoryBuilder(writer=_writer(ok), cache=cache, short_chars=0).build(CHUNKS)
    assert calls["n"] == 1 and [e.summary for e in again] == ["摘要0", "摘要1"]

    def down(req: httpx.Request) -> httpx.Response:
        return httpx.Response(503, json={"error": "loading model"})

    b3 = DirectoryBuilder(writer=_writer(down), cache=EntryCache(), short_chars=0)
    got = b3.build(CHUNKS)
    assert [e.source for e in got] == ["extractive", "extractive"]
    assert got[0].summary.startswith("产品应存放在") and b3.stats.fallbacks == 2


def test_a_chunk_that_fits_in_a_summary_is_not_sent_to_the_model() -> None:
    """Only the long chunk goes to the model; the short one keeps its extractive entry (its
    whole text), counted as ``short``, not as a fallback."""
    sent: list[str] = []

    def ok(req: httpx.Request) -> httpx.Response:
        sent.append(json.loads(req.content)["messages"][1]["content"])
        content = json.dumps({"entries": [{"summary": "长段摘要", "terms": ["术语"]}]},
                             ensure_ascii=False)
        return httpx.Response(200, json={"choices": [{"message": {"content": content}}]})

    long = _chunk(2, "测量精度说明。" * 30, ("4 精度",))  # 210 characters
    b = DirectoryBuilder(writer=_writer(ok), cache=EntryCache())
    got = b.build([CHUNKS[0], long])
    assert [e.source for e in got] == ["extractive", "llm"] and got[1].summary == "长段摘要"
    assert len(sent) == 1 and "[1] (4 精度)" in sent[0] and "[2]" not in sent[0]
    assert (b.stats.short, b.stats.llm_written, b.stats.fallbacks) == (1, 1, 0)
