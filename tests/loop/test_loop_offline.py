"""The offline reading policy (no LLM) through the same tools and controller, on real documents:
case 22's Markdown knowledge base and a Chinese law PDF from ../shared/eval."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import KB, zh_pdf_kb, zh_pdf_question

from corpus.citations import make_citation
from corpus.tokenizer import Tokenizer
from loop import NOT_FOUND, LoopAgent, LoopConfig, StepEvent


def test_offline_answers_case22_with_verified_citation(kb: KB):
    events: list[StepEvent] = []
    agent = LoopAgent(kb.store, kb.search, key_terms=None, documents=kb)
    res = agent.run("电池保修多久？", kb.collection, on_event=events.append)
    assert res.brain == "offline" and res.stop_reason == "answer" and res.found
    assert "电池保修一年" in res.answer
    (cit,) = res.citations
    assert (cit.path, cit.section_path[-1], cit.lines[0]) == ("warranty.md", "期限", 4)
    tools = [e.tool for e in events if e.kind == "tool"]
    assert tools[0] == "search" and "read" in tools and tools[-1] == "answer"
    assert events[-1].tool == "answer" and res.llm_calls == 0 and res.tokens == 0
    assert all(e.elapsed_ms >= 0 for e in events)


def test_offline_not_found_and_fallback(kb: KB, tokenizer: Tokenizer):
    agent = LoopAgent(kb.store, kb.search, key_terms=tokenizer,
                      config=LoopConfig(min_coverage=0.5))
    res = agent.run("退货需要支付多少运费和保险费？", kb.collection)
    assert not res.found and res.answer == NOT_FOUND and res.citations == []
    res = agent.run("Quarterly EBITDA of Contoso?", kb.collection)
    assert res.fallback and "no key term" in res.fallback_reason
    res = agent.run("？？", kb.collection)
    assert res.fallback and res.tool_calls == 0
    with pytest.raises(ValueError):
        agent.run("   ", kb.collection)


@pytest.fixture(scope="module")
def law_kb(tmp_path_factory: pytest.TempPathFactory, tokenizer: Tokenizer, eval_dir: Path):
    """The Chinese cybersecurity law PDF (14 pages) in a real embedded store."""
    yield from zh_pdf_kb(tmp_path_factory, tokenizer, eval_dir, "cybersecurity_law.pdf", "law")


def test_offline_on_real_pdf_cites_the_gold_page(law_kb: KB, tokenizer: Tokenizer, eval_dir: Path):
    q = zh_pdf_question(eval_dir, "zhpdf:20")
    agent = LoopAgent(law_kb.store, law_kb.search, key_terms=tokenizer)
    res = asyncio.run(agent.run_async(q["question"], law_kb.collection))
    assert res.found and res.citations
    chunks = {c.chunk_id: c for c in law_kb.chunks}
    for c in res.citations:  # zero unverifiable citations
        assert c.chunk_id in res.read_chunk_ids
        assert make_citation(chunks[c.chunk_id], c.quote) is not None
    assert any(c.page == q["page"] for c in res.citations)
    assert "六个月" in res.answer
    assert res.tool_calls <= 2 * LoopConfig().max_loops
