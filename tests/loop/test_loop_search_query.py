"""The LoopAgent reads a question about a period relative to today with the year the router
dated it with (``search_query``, ``gateway.routing.rules.search_query``): the GitLab handbook's
communication guide explains "the current Fiscal Year" with a 2020 example and shares every
word of "the fiscal period that we are currently in"; the finance page's fiscal-year line names
this year's period. Real lines of ../shared/eval's GitLab handbook (communication/_index.md,
finance/_index.md)."""

# ruff: noqa: E501 (the handbook's lines as written)
from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

_COMMUNICATION = """# Communication

## Writing style guidelines

1. GitLab operates on a Fiscal Year offset from the calendar year. When referring to a fiscal year or quarter, please use the following abbreviations:
   1. "FY20" is the preferred format and means: Fiscal Year 2020, the period running from February 1, 2019 through January 31, 2020
   1. "Q1" = the first quarter of the current Fiscal Year, so on Feb 1, 2020, "Q1" is the period from Feb. 1, 2020 through April 30, 2020. Note that Epics in GitLab follow Calendar Years and Quarters.
   1. When referring to a quarter in a future or past year, combine the two above: "FY21-Q1"
"""
_FINANCE = """# Finance

### Fiscal Year

A fiscal year is a one-year period that corporations use for accounting and budgeting.
GitLab's Fiscal Year runs from February 1 to January 31. The fiscal year naming correlates to the ending month of the given fiscal year, for example FY26 is GitLab's fiscal year running February 1, 2025 to January 31, 2026.

- Q1: February 1 through April 30
"""
_QUESTION = "What is the start date of the fiscal period that we are currently in?"


handbook = text_kb_fixture("fy", {"communication.md": _COMMUNICATION, "finance.md": _FINANCE})


def test_the_dated_year_ranks_this_years_period_first(handbook: KB) -> None:
    res = run_agent(handbook, None, _QUESTION, current_date="2025-11-11",
                    search_query=_QUESTION + " (2025)")
    assert res.found and res.citations[0].path == "finance.md", res.answer
    assert "February 1, 2025" in res.answer
    # the bare question: the style guide, which shares more of its words, answers
    bare = run_agent(handbook, None, _QUESTION, current_date="2025-11-11")
    assert not bare.citations or bare.citations[0].path == "communication.md", bare.answer
