"""The loop with a real small local model (Qwen2.5-Coder-1.5B from
../shared/tools/fetch-local-llm.sh, served by benchmarks/local_llm_server.py). Runs when
``LOOPGATE_TEST_LLM_BASE_URL`` names a running OpenAI-compatible server, or when
``LOOPGATE_TEST_LLM=1`` and the model file and the ``xllamacpp`` wheel (extra ``llm``) are
present; skipped with the reason otherwise."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import KB

from benchmarks.local_llm_server import measured_budgets
from corpus.citations import make_citation
from loop import LLMConfig, LoopAgent, LoopConfig

pytestmark = [pytest.mark.llm, pytest.mark.integration]


def test_local_model_reads_and_cites_or_says_not_found(kb: KB, llm_url: str):
    async def go():
        agent = LoopAgent(kb.store, kb.search, documents=kb,
                          llm=LLMConfig(base_url=llm_url, protocol="auto", timeout_s=600),
                          config=LoopConfig(deadline_s=1800))
        try:
            return await agent.run_async("电池保修多久？", kb.collection)
        finally:
            await agent.aclose()
    res = asyncio.run(go())
    # auto → no native tools with this server → the line-reading protocol with the pick step
    # (one candidate line: one call, which may confirm the offline answer); the guard may keep the offline
    # answer (brain "offline", guard says why), never an unverifiable citation
    assert res.invalid_actions <= res.llm_calls
    assert res.brain.endswith((":read", ":pick")) or res.guard.startswith("offline answer")
    chunks = {c.chunk_id: c for c in kb.chunks}
    for c in res.citations:  # zero unverifiable citations
        assert c.chunk_id in res.read_chunk_ids
        assert make_citation(chunks[c.chunk_id], c.quote) is not None
    if res.found:
        assert any(c.path == "warranty.md" for c in res.citations)


def test_local_model_picks_a_line_with_budgets_from_its_measured_speed(kb: KB, llm_url: str):
    """The pick step with the real model, its call timeout and loop deadline sized by a speed
    probe of the same server (issue 14 item 4): no deadline stop, a verified citation."""
    async def go():
        speed, fit = await measured_budgets(llm_url)
        agent = LoopAgent(kb.store, kb.search, documents=kb,
                          llm=LLMConfig(base_url=llm_url, protocol="pick",
                                        timeout_s=fit.call_timeout_s),
                          config=LoopConfig(deadline_s=fit.deadline_s))
        try:
            return speed, await agent.run_async("电池保修多久，退货期限多久？", kb.collection)
        finally:
            await agent.aclose()
    speed, res = asyncio.run(go())
    assert speed.prompt_tps > 0 and speed.gen_tps > 0
    assert res.stop_reason == "answer" and res.found, res.guard
    assert res.brain.endswith(":pick") or res.guard.startswith("offline answer"), res.guard
    assert res.invalid_actions <= 1
    chunks = {c.chunk_id: c for c in kb.chunks}
    for c in res.citations:
        assert make_citation(chunks[c.chunk_id], c.quote) is not None
    assert any(c.path in ("warranty.md", "returns.md") for c in res.citations)


def test_directory_entries_by_the_local_model_are_cached_and_a_reingest_calls_it_0_times(
        tmp_path: Path, llm_url: str):
    """Issue 14 item 1 with the real model: an ingest with LLM-written directory entries, then
    the unchanged corpus into another collection with a new builder on the same cache file —
    0 model calls, the same entries."""
    from corpus.catalogue import Catalogue
    from corpus.directory import load_directory
    from corpus.directory_build import DirectoryBuilder, EntryCache
    from corpus.ingest import Ingestor
    from corpus.qdrant_store import QdrantChunkStore
    from corpus.tokenizer import Tokenizer
    from loop.entry_writer import LLMEntryWriter

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text(
        "# 产品手册\n\n## 2 存储\n\n" + "产品应存放在干燥通风的仓库内，存储温度为 -40 ℃ 至 85 ℃，"
        "相对湿度不超过 85 %。堆放高度不得超过五层，避免阳光直射和腐蚀性气体。" * 3
        + "\n\n## 3 保修\n\n" + "保修期为自购买之日起十二个月，人为损坏不在保修范围内。"
        "保修期内凭发票免费维修或更换，运费由本公司承担。" * 3 + "\n", encoding="utf-8")
    store = QdrantChunkStore.embedded(tmp_path / "qdrant")
    cfg = LLMConfig(base_url=llm_url, timeout_s=1200, max_retries=0)

    def ingest(collection: str) -> tuple[DirectoryBuilder, LLMEntryWriter]:
        writer = LLMEntryWriter(cfg)
        builder = DirectoryBuilder(Tokenizer(), writer=writer, timeout_s=1205,
                                   cache=EntryCache(tmp_path / "entries.sqlite3"))
        Ingestor(store, Tokenizer(), workers=1, directory=builder).ingest_paths([docs],
                                                                              collection)
        return builder, writer
    try:
        first, w1 = ingest("a")
        assert first.stats.llm_calls >= 1 and first.stats.llm_written >= 1, first.stats
        assert w1.prompt_tokens > 0
        again, w2 = ingest("b")
        assert again.stats.llm_calls == 0 and w2.prompt_tokens == 0
        assert again.stats.cached == first.stats.llm_written + first.stats.fallbacks
        (doc,) = [d.doc_id for d in Catalogue(store).documents("a")]
        a, b = load_directory(store, "a", doc), load_directory(store, "b", doc)
        assert [e.summary for e in a] == [e.summary for e in b]
        assert any(e.source == "llm" for e in b)
    finally:
        store.close()
