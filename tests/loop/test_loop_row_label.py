"""A LoopAgent answer quoting one statement row leads with the periods of its cells
(``loop.row_label``; a new-user trial: "Gross profit 2,725 2,820 2,732" says no year), as the
RAG answer does (``rag.extractive.answer_text``); the citation stays the verbatim row."""

from __future__ import annotations

from conftest import KB, text_kb_fixture

from corpus.statement_rows import row_reading
from corpus.tokenizer import Tokenizer
from loop import LoopAgent
from tests._support.statements import BALANCE_SHEET, OPERATIONS

kb = text_kb_fixture("fin", {"acme_2021_10k.md": BALANCE_SHEET + "\n" + OPERATIONS})


def test_a_row_reads_under_its_period_header() -> None:
    above = "Year Ended December 31,\n\n2019 2020 2021\n"
    assert row_reading("Net income 596 2,371 3,033", above, ["2020"]) == "Net income, 2020: 2,371"
    assert row_reading("Net income 596 2,371 3,033", above, []) == \
        "Net income — 2019: 596; 2020: 2,371; 2021: 3,033"
    assert row_reading("Net income 596 2,371 3,033", "no header here", []) == ""
    assert row_reading("Net income rose in every year.", above, []) == ""


def test_the_loop_answer_names_each_cell_period(kb: KB, tokenizer: Tokenizer) -> None:
    agent = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb)
    res = agent.run("What was ACME's net income?", kb.collection)
    assert res.found and [c.quote for c in res.citations] == ["Net income 596 2,371 3,033"]
    assert res.answer == ("Net income — 2019: 596; 2020: 2,371; 2021: 3,033 — "
                          "Net income 596 2,371 3,033")
    res = agent.run("What was ACME's net income in 2020?", kb.collection)
    assert res.found and res.answer.startswith("Net income, 2020: 2,371 — "), res.answer


def test_a_row_whose_periods_exclude_the_asked_year_is_not_found(
        kb: KB, tokenizer: Tokenizer) -> None:
    # the balance sheet's header ("December 31, 2021 2020") is no line of years alone: only the
    # row's reading tells that its cells are 2021 and 2020, not the 2019 asked (the document
    # holds 2019, in the statement of operations: the presence check passes)
    agent = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb)
    res = agent.run("What was ACME's cash and cash equivalents in 2019?", kb.collection)
    assert not res.found and res.out_of_scope == ["other_period:2019"], res.answer
    assert [c.quote for c in res.related][:1] == ["Cash and cash equivalents $ 452 $ 461"]
    res = agent.run("What was ACME's cash and cash equivalents in 2020?", kb.collection)
    assert res.found and res.answer.startswith("Cash and cash equivalents, 2020: $ 461"), \
        res.answer
