"""Fiscal periods asked relative to the day (``corpus.fiscal_calendar``): which date a question
asks, the calendar a document defines, the date computed and cited. The right values are the
GitLab handbook's fiscal calendar (dev questions deep-rag-benchmark temporal_reference:3, 9,
11, 14, 17, 19, 22, asked on 2025-11-11; both paths quoted the calendar or a page about
fiscal-year naming and none gave the date), here over calendars written for the tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from corpus.fiscal_calendar import AskedDate, asked_date, calendar_quarters, dated_answer
from corpus.qdrant_store import QdrantChunkStore
from corpus.types import Chunk
from gateway.wiring import get_tokenizer
from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only

FEB = """### Fiscal Year

Our fiscal year runs from February 1 to January 31.

- Q1: February 1 through April 30
- Q2: May 1 through July 31
- Q3: August 1 through October 31
- Q4: November 1 through January 31
"""
OCT = """The first quarter runs October 1 to December 31, the second quarter January 1 to
March 31, the third quarter April 1 to June 30 and the fourth quarter July 1 to September 30."""
TODAY = date(2025, 11, 11)


def _chunk(text: str, cid: str = "c-1") -> Chunk:
    return Chunk(cid, "d", "finance.md", "Finance", ("Finance", "Fiscal Year"), 1, 1, 1,
                 text.count("\n") + 1, 0, len(text), text, "text")


@pytest.mark.parametrize(("question", "iso"), [
    ("What was the end date of the fiscal quarter that preceded the current one?", "2025-10-31"),
    ("What is the start date of the fiscal quarter that will begin after the current one ends?",
     "2026-02-01"),
    ("What is the start date of the current calendar year's first fiscal quarter?", "2025-02-01"),
    ("What is the start date of the fiscal period that we are currently in?", "2025-11-01"),
    ("What was the end date of the second fiscal quarter of this fiscal year?", "2025-07-31"),
    ("When did the final fiscal quarter of the previous fiscal year conclude?", "2025-01-31"),
    ("What is the end date of the current fiscal quarter?", "2026-01-31"),
    ("What is the last day of the next fiscal year?", "2027-01-31"),
    ("上一个财季的结束日期是哪天？", "2025-10-31"),
    ("本财年的第二季度什么时候结束？", "2025-07-31"),
])
def test_the_date_asked_is_computed_and_the_quarter_line_cited(question: str, iso: str) -> None:
    got = dated_answer(question, TODAY, [_chunk(FEB)])
    assert got is not None
    answer, cit = got
    assert answer.startswith(iso)
    assert cit.quote in FEB and cit.quote.startswith("Q") and cit.chunk_id == "c-1"


def test_a_calendar_in_words_starting_in_october() -> None:
    qs = calendar_quarters(OCT)
    assert qs is not None and [q.start for q in qs] == [(10, 1), (1, 1), (4, 1), (7, 1)]
    got = dated_answer("What is the end date of the previous fiscal quarter?", TODAY,
                       [_chunk(OCT)])
    assert got is not None and got[0].startswith("2025-09-30")  # today is in Q1 (Oct–Dec)


@pytest.mark.parametrize("question", [
    # another fact dated in the period, not its start or end
    "According to policy, what was the latest date an expense incurred during the previous "
    "fiscal quarter should have been submitted?",
    # a period named by its year: the retrieval paths answer it
    "What is Return on Capital Employed for the fiscal year ending January 28, 2023?",
    # calendar quarters need no document
    "What is the end date of the current quarter?",
    "What was the revenue in the last fiscal year?",
])
def test_questions_asking_no_relative_fiscal_date(question: str) -> None:
    assert asked_date(question) is None
    assert dated_answer(question, TODAY, [_chunk(FEB)]) is None


def test_a_calendar_as_a_markdown_table() -> None:
    """A trial's calendar table: the table's rows are the quarters (it was not recognised and the
    first row came back as the answer)."""
    table = ("| Quarter | Start | End |\n|---|---|---|\n| Q1 | April 1 | June 30 |\n"
             "| Q2 | July 1 | September 30 |\n| Q3 | October 1 | December 31 |\n"
             "| Q4 | January 1 | March 31 |\n")
    got = dated_answer("What is the end date of the current fiscal quarter?", date(2026, 12, 5),
                       [_chunk(table)])
    assert got is not None and got[0].startswith("2026-12-31")
    assert got[1].quote == "Q3 | October 1 | December 31"


def test_a_quarter_ending_february_28_ends_on_the_29th_in_a_leap_year() -> None:
    leap = ("- Q1: March 1 through May 31\n- Q2: June 1 through August 31\n"
            "- Q3: September 1 through November 30\n- Q4: December 1 through February 28\n")
    q = "What is the end date of the current fiscal quarter?"
    got = dated_answer(q, date(2028, 2, 29), [_chunk(leap)])  # a trial: "not found", an error
    assert got is not None and got[0].startswith("2028-02-29")
    got = dated_answer(q, date(2027, 2, 28), [_chunk(leap)])
    assert got is not None and got[0].startswith("2027-02-28")
    assert dated_answer(q, date(9999, 12, 31), [_chunk(leap)]) is None  # past the date range


def test_what_is_asked() -> None:
    # a quarter named by its number alone is this fiscal year's
    assert asked_date("When does the second fiscal quarter start?") == \
        AskedDate("start", "quarter", 0, 2)
    assert asked_date("When did the final fiscal quarter of the previous fiscal year "
                      "conclude?") == AskedDate("end", "quarter", -1, 4)
    assert asked_date("What is the start date of the current calendar year's first fiscal "
                      "quarter?") == AskedDate("start", "quarter", 0, 1, calendar_year=True)


def test_quarters_that_do_not_follow_each_other_are_no_calendar() -> None:
    gap = FEB.replace("Q3: August 1", "Q3: August 15")
    assert calendar_quarters(gap) is None
    assert calendar_quarters(FEB.replace("- Q4: November 1 through January 31\n", "")) is None
    question = "What is the end date of the current fiscal quarter?"
    assert dated_answer(question, TODAY, [_chunk(gap)]) is None


def test_the_calendar_is_searched_for_when_no_chunk_given_holds_it(tmp_path: Path) -> None:
    """A real embedded store and keyword index: the calendar page was not retrieved."""
    docs = write_texts(tmp_path / "docs", {
        "finance.md": "# Finance\n\n" + FEB,
        "style.md": "# Writing style\n\nWhen referring to a fiscal year or quarter, write FY26 "
                    "and Q3; the current fiscal quarter is written as the quarter we are in.\n",
    })
    ingest_keyword_only(tmp_path / "data", docs, "handbook")
    store = QdrantChunkStore.embedded(tmp_path / "data" / "qdrant")
    tok = get_tokenizer()
    try:
        style = [h.chunk for h in store.keyword_search("handbook", tok.sparse_query("style"), 5)]
        assert style and all(c.path.endswith("style.md") for c in style)

        def search(text: str) -> list[Chunk]:
            return [h.chunk for h in store.keyword_search("handbook", tok.sparse_query(text), 10)]

        question = "What was the end date of the fiscal quarter that preceded the current one?"
        assert dated_answer(question, TODAY, style) is None  # no calendar read, none searched
        got = dated_answer(question, TODAY, style, search)
        assert got is not None
        assert got[0].startswith("2025-10-31") and got[1].path.endswith("finance.md")
        assert got[1].quote == "Q3: August 1 through October 31"
    finally:
        store.close()
