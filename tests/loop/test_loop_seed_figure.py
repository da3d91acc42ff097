"""The LoopAgent's figure step reads the rows of the RAG candidates it was seeded with, as the
RAG path's figure step does (issue 14: the deep read never ends with weaker evidence than its
seeds). FinanceBench dev (whole eval collection): the loop read other chunks of Block's income
statement and said "not found" where RAG computed the revenue growth from a candidate's
``Total net revenue`` row."""

from __future__ import annotations

import asyncio

from conftest import KB, text_kb_fixture

from corpus.citations import make_citation
from corpus.derived import computable
from corpus.tokenizer import Tokenizer
from loop.answer_checks import AnswerChecks
from loop.results import LoopResult
from tests._support.statements import OPERATIONS

LETTER = """# Letter to shareholders

Our net sales grew again this year as customers bought more from us in every region, and we
expect total net sales growth to continue as we open new stores.
"""

Q = ("What is the FY2020 - FY2021 total net sales growth rate for ACME? Answer in units of "
     "percents and round to one decimal place.")


kb = text_kb_fixture("seedfig", {"acme_2021_10k.md": OPERATIONS, "acme_2021_letter.md": LETTER})


def _prose_answer(kb: KB) -> tuple[LoopResult, str]:
    letter = next(c for c in kb.chunks if c.path == "acme_2021_letter.md")
    sheet = next(c for c in kb.chunks if c.path == "acme_2021_10k.md")
    cit = make_citation(letter, letter.text.split("\n")[2].strip())
    assert cit is not None
    res = LoopResult(cit.quote, True, [cit], "answer", "offline")
    res.read_chunk_ids = [letter.chunk_id]
    return res, sheet.chunk_id


def test_a_seed_statement_row_computes_what_the_reads_missed(kb: KB, tokenizer: Tokenizer
                                                              ) -> None:
    assert computable(Q)
    checks = AnswerChecks(kb.store, tokenizer, timeout_s=10.0)
    res, seed = _prose_answer(kb)
    before = asyncio.run(checks.compute(Q, kb.collection, res))
    assert not before.computed  # the letter read holds no row
    res, seed = _prose_answer(kb)
    prose = res.citations[0]
    got = asyncio.run(checks.compute(Q, kb.collection, res, seeds=[seed]))
    assert got.found and got.computed
    assert got.answer.startswith("30.8% change in Total net sales from 2020 to 2021")
    assert [c.quote for c in got.citations] == ["Total net sales 107,006 135,987 177,866"]
    assert got.related == [prose]  # the prose answer stays, under related


def test_confined_reads_take_no_seed_of_another_document(kb: KB, tokenizer: Tokenizer) -> None:
    """Inside resolved documents only the seeds of the documents read count: a seed of a
    look-alike filing must not answer with another document's figure."""
    checks = AnswerChecks(kb.store, tokenizer, timeout_s=10.0)
    res, seed = _prose_answer(kb)
    got = asyncio.run(checks.compute(Q, kb.collection, res, confined=True, seeds=[seed]))
    assert not got.computed and got.answer == res.answer
