"""The LoopAgent judges a statement row by the years of the line above it as the RAG path does
(``corpus.period_scope.row_other_period`` in ``AnswerChecks.scope``): a row of a text-extracted
table whose column header is a line of years alone answers no question about other years
(MMLongBench-Doc dev, unanswerable: "How much higher was the dividend paid in 2003 compared to
2002?" was answered from a fiscal 2017 / 2016 / 2015 dividend table). Real ingest into an
embedded store, the offline policy, no LLM."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

dividends_kb = text_kb_fixture("dividends", {"acme_10k.md": "\n".join([
    "# Acme Corporation annual report", "", "## Dividends", "",
    "The following table presents our dividend activity for each of the past three fiscal "
    "years (in millions):", "", "2017 2016 2015",
    "Regular quarterly cash dividends per share $ 1.12 $ 0.92 $ 0.72", "",
    "Cash dividends declared and paid $ 505 $ 499 $ 251", ""])})


def test_a_dividend_row_of_other_years_is_no_answer(dividends_kb: KB) -> None:
    res = run_agent(dividends_kb, None,
                    "How much higher was the dividend paid in 2003 compared to 2002?")
    assert not res.found, res.answer
    assert res.out_of_scope == ["other_period:2002,2003"], res.out_of_scope


def test_a_dividend_row_of_the_asked_years_answers(dividends_kb: KB) -> None:
    res = run_agent(dividends_kb, None,
                    "How much higher was the dividend paid in 2017 compared to 2016?")
    assert res.found and "505" in res.answer, res.answer
