"""The offline LoopAgent answers a defined ratio or a change with the figure computed from the
statement rows it read (``corpus.derived``, issue 15 item 3), citing each row; a lookup keeps
its evidence answer."""

from __future__ import annotations

import asyncio

import pytest
from conftest import KB, text_kb_fixture

from corpus.derived import adjacent_runs, computable
from corpus.tokenizer import Tokenizer
from corpus.tuning import TUNING
from corpus.types import SearchFilter, SearchHit
from loop import LoopAgent, LoopConfig, LoopState, OfflinePolicy, ToolContext, drive
from loop.evidence import TermMatcher
from tests._support.statements import BALANCE_SHEET

kb = text_kb_fixture("fin", {"acme_2021_10k.md": BALANCE_SHEET})


def test_the_loop_computes_a_defined_ratio_from_rows_it_read(kb: KB, tokenizer: Tokenizer
                                                              ) -> None:
    q = ("What is ACME's FY2021 working capital ratio? Define working capital ratio as total "
         "current assets divided by total current liabilities. Round to two decimal places.")
    assert computable(q)
    res = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb).run(q, kb.collection)
    assert res.found and res.computed
    assert res.answer.startswith("1.73 = Total current assets 2021 1,001 / Total current")
    assert [c.quote for c in res.citations] == ["Total current assets 1,001 705",
                                                "Total current liabilities 577 334"]
    assert all(c.chunk_id in res.read_chunk_ids for c in res.citations)


def test_a_lookup_is_not_computed(kb: KB, tokenizer: Tokenizer) -> None:
    q = "What were ACME's total current liabilities at the end of FY2021?"
    assert not computable(q)
    res = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb).run(q, kb.collection)
    assert not res.computed


def test_adjacent_runs_keep_document_order_within_a_run(kb: KB) -> None:
    chunks = list(reversed(kb.chunks))
    runs = adjacent_runs(chunks)
    assert [c.chunk_id for r in runs for c in r] == [c.chunk_id for c in
                                                      sorted(kb.chunks, key=lambda c: c.ordinal)]


NOTES = """# Forward-looking statements

Public equities analysts assume a great deal. This information is shown for the convenience of
readers and is primarily provided to answer the following question of investors: how much will
the balance of the year hold? Answers are not guaranteed. Amounts at the end of the year are
reported in USD; the question of cash is addressed in millions of words elsewhere.
"""


kb2 = text_kb_fixture(
    "fin", {"acme_2021_10k.md": BALANCE_SHEET, "zenith_2021_notes.md": NOTES})


def test_inside_the_resolved_filing_a_not_found_becomes_the_named_row(kb2: KB,
                                                                      tokenizer: Tokenizer
                                                                      ) -> None:
    """A question wrapped in answer-format instructions: over the whole collection another
    document holds its instruction words, the row covers too little of the key terms and the
    offline answer is "not found"; read inside the document the question was resolved to
    (``flt``, as the router passes it), the row answers."""
    q = ("Assume that you are a public equities analyst. Answer the following question by "
         "primarily using information that is shown in the balance sheet: how much cash and "
         "cash equivalents did ACME hold at the end of FY2020? Answer in USD millions.")
    agent = LoopAgent(kb2.store, kb2.search, key_terms=tokenizer, documents=kb2)
    loose = agent.run(q, kb2.collection)
    acme = [c.doc_id for c in kb2.store.get_chunks(kb2.collection, loose.read_chunk_ids)
            if c.path == "acme_2021_10k.md"]
    res = agent.run(q, kb2.collection, flt=SearchFilter(doc_ids=(acme[0],)))
    assert not loose.found
    assert res.found and res.citations[0].quote == "Cash and cash equivalents $ 452 $ 461"
    assert {c.path for c in kb2.store.get_chunks(kb2.collection, res.read_chunk_ids)} == {
        "acme_2021_10k.md"}


def test_the_first_reads_are_the_rag_candidates_in_their_order(kb2: KB, tokenizer: Tokenizer
                                                                ) -> None:
    """The RAG path ranked its candidates with fusion, document resolution and page navigation:
    the offline policy reads those holding a key term first, in that order, even where another
    chunk's words cover more of the question (seed_first); without seed_first the chunk of the
    other document, which holds the instruction words, is read first."""
    q = ("Assume that you are a public equities analyst. Answer the following question by "
         "primarily using information that is shown in the balance sheet: how much cash and "
         "cash equivalents did ACME hold at the end of FY2020? Answer in USD millions.")
    sheet = [c for c in kb2.chunks if c.path == "acme_2021_10k.md"]
    seeds = [SearchHit(c, 1.0 / (i + 1)) for i, c in enumerate(sheet)]

    def first_read(seed_first: bool) -> str:
        ctx = ToolContext(kb2.store, kb2.search, kb2.collection, LoopConfig())
        for h in seeds:  # as LoopAgent seeds them: shown first, RAG order
            ctx.seen.setdefault(h.chunk.chunk_id, h.chunk)
            ctx.hits[h.chunk.chunk_id] = h.score
        state = LoopState(q, ctx, TermMatcher(tokenizer.key_terms(q), tokenizer))
        knobs = TUNING.offline.model_copy(update={"seed_first": seed_first})
        res = asyncio.run(drive(OfflinePolicy(tuning=knobs), state))
        return next(s.arguments["chunk_id"] for s in res.steps if s.tool == "read")

    assert first_read(True) == sheet[0].chunk_id
    assert first_read(False) != sheet[0].chunk_id


@pytest.mark.parametrize("brain,looked_up", [("llm:local:read", True), ("llm:local:pick", True),
                                             ("llm:local:tools", False)])
def test_a_line_protocol_answer_is_looked_up_as_an_offline_one(kb2: KB, tokenizer: Tokenizer,
                                                              brain: str, looked_up: bool
                                                              ) -> None:
    """Inside the resolved filing the named row answers a lookup whether the offline policy or
    a line-reading protocol (pick / read: lines, not the model's words) answered first; an
    answer the model wrote (tools) keeps its text. Without this the LLM run lost what the
    offline run answered (loop_eval, FinanceBench: a read block's tax line stood)."""
    from corpus.citations import make_citation
    from loop.answer_checks import AnswerChecks
    from loop.results import LoopResult

    q = "How much cash and cash equivalents did ACME hold at the end of FY2020?"
    sheet = [c for c in kb2.chunks if c.path == "acme_2021_10k.md"]
    wrong = make_citation(sheet[0], "Property and equipment, net 88 87")
    assert wrong is not None
    res = LoopResult("Property and equipment, net 88 87 [1]", True, [wrong], "answer", brain)
    res.read_chunk_ids = [c.chunk_id for c in sheet]
    checks = AnswerChecks(kb2.store, tokenizer, timeout_s=10.0)
    got = asyncio.run(checks.compute(q, kb2.collection, res, confined=True))
    assert (got.citations[0].quote == "Cash and cash equivalents $ 452 $ 461") is looked_up
    assert (got.answer == "Property and equipment, net 88 87 [1]") is not looked_up
