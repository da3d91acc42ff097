"""A question about a period relative to today retrieves with the year of ``current_date``
(gateway.routing.rules.dated_query): over a style guide that explains fiscal quarters with an
old example and a finance page that lists this year's quarters, "the end date of the current
fiscal quarter" is answered from the finance page."""

from __future__ import annotations

import pytest
from _apphelp import ask, make_settings, running, upload

from gateway.routing import dated_query

STYLE = b"""# Writing style

## Communicating dates and time

When referring to a fiscal year or quarter, use the abbreviations below.
"Q1" = the first quarter of the current fiscal year, so on Feb 1, 2020, "Q1" is the period
from Feb 1, 2020 to Apr 30, 2020. The end date of a quarter is written out in full.
"""
FINANCE = b"""# Finance

## Fiscal Year

A fiscal year is a one-year period that corporations use for accounting and budgeting.
FY26 is the fiscal year running February 1, 2025 to January 31, 2026.

| Fiscal quarter | Calendar dates |
| --- | --- |
| FY26-Q3 | 2025-08-01 to 2025-10-31 |
| FY26-Q4 | 2025-11-01 to 2026-01-31 |
"""


def test_dated_query_adds_the_year_only_for_relative_periods() -> None:
    q = "What is the end date of the current fiscal quarter?"
    assert dated_query(q, "2025-11-11") == q + " (2025)"
    assert dated_query(q, None) == q
    assert dated_query("When did the quarter that preceded the current one end?",
                       "2025-11-11").endswith("(2025)")
    assert dated_query("上个月的报销截止日期是哪天？", "2025-11-11").endswith("(2025)")
    assert dated_query("上个月的报销截止日期是哪天？", "2025-01-11").endswith("(2024)")
    assert dated_query("What was the revenue last year?", "2025-11-11").endswith("(2024)")
    assert dated_query("去年的利润是多少？", "2025-11-11").endswith("(2024)")
    assert dated_query("What is the budget for next year?", "2025-11-11").endswith("(2026)")
    # a fiscal year straddles two calendar years: the current one is kept
    assert dated_query("When did the previous fiscal year end?", "2025-11-11").endswith("(2025)")
    for same in ("What was the revenue in the current fiscal year 2023?",  # names a year
                 "What is the end date of a fiscal quarter?", "What is the warranty period?"):
        assert dated_query(same, "2025-11-11") == same


@pytest.mark.integration
async def test_the_current_period_is_read_on_the_page_of_this_year(tmp_path,
                                                                    embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, [("style.md", STYLE), ("finance.md", FINANCE)])
        q = "What is the end date of the current fiscal quarter?"
        body = await ask(client, q, mode="rag", current_date="2025-11-11")
        assert body["route"]["retrieval_query"] == q + " (2025)"
        assert body["found"] and body["citations"][0]["path"] == "finance.md", body["citations"]
        without = await ask(client, q, mode="rag")  # the same question, no date: no year added
        assert without["route"]["retrieval_query"] == q
        # and is read on the style guide, which speaks of "the current fiscal year"
        assert without["citations"][0]["path"] == "style.md", without["citations"]
