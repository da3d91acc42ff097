"""The offline LoopAgent answers "the largest liability … in 2022" with the item row of the
balance sheet's liabilities section it read (``corpus.derived.superlative_answer``, issue 15
item 3), as the RAG path does: the item and the total cited, the answer marked computed."""

from __future__ import annotations

from conftest import KB, text_kb_fixture

from corpus.tokenizer import Tokenizer
from loop import LoopAgent
from tests._support.statements import LIABILITIES as SHEET

kb = text_kb_fixture("fin", {"acme_2022_10k.md": SHEET})


def test_the_loop_answers_the_largest_item_of_the_section(kb: KB, tokenizer: Tokenizer) -> None:
    q = "What was the largest liability in ACME's Balance Sheet in 2022?"
    res = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb).run(q, kb.collection)
    assert res.found and res.computed
    assert res.answer.startswith("Customer deposits, 2022: 110,239 — the largest of the items")
    assert [c.quote for c in res.citations] == ["| Customer deposits | | 110,239 | 84,382 |",
                                                "| Total liabilities | | 203,643 | 166,371 |"]
