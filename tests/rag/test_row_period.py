"""A statement row is read by the years of its column header (its reading) when the question
pins a year (``rag.answerability.scoped_evidence``): a new-user trial's "What was Netflix's
revenue in 2025?" was answered "found" by "Cost of revenues — 2015: 4,591,476; 2014: …" — a row
of other years answers another question."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from rag._answer import Evidence
from rag.answerability import scoped_evidence

ROWS = """# Consolidated Statements of Operations

Year Ended December 31,

2015 2016 2017

Cost of revenues 4,591,476 6,029,901 7,659,666
"""


def _unit(tmp_path: Path, text: str, unit: str, reading: str = "") -> tuple[Evidence, list]:
    """``unit`` of the one-chunk document ``text`` as evidence (with ``reading``), and the
    document's chunks."""
    path = tmp_path / "acme_10k.md"
    path.write_text(text, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    cit = make_citation(chunks[0], unit)
    assert cit is not None
    return Evidence(unit, 1.0, cit, reading), chunks


def _row(tmp_path: Path, reading: str) -> tuple[Evidence, list]:
    return _unit(tmp_path, ROWS, "Cost of revenues 4,591,476 6,029,901 7,659,666", reading)


def test_a_row_of_other_years_is_no_answer(tmp_path: Path) -> None:
    ev, chunks = _row(tmp_path, "Cost of revenues — 2015: 4,591,476; 2016: 6,029,901; "
                                "2017: 7,659,666")
    kept, flags = scoped_evidence([ev], chunks, "What was ACME's cost of revenues in 2025?")
    assert kept == [] and flags == ["other_period:2025"]


def test_a_row_with_the_asked_year_answers(tmp_path: Path) -> None:
    ev, chunks = _row(tmp_path, "Cost of revenues, 2016: 6,029,901")
    kept, flags = scoped_evidence([ev], chunks, "What was ACME's cost of revenues in 2016?")
    assert kept == [ev] and flags == []
    # a row without a reading is read by the line of years above it, its column header
    bare, _ = _row(tmp_path, "")
    assert scoped_evidence([bare], chunks, "What was ACME's cost of revenues in 2025?") == (
        [], ["other_period:2025"])
    assert scoped_evidence([bare], chunks, "What was ACME's cost of revenues in 2016?")[0] == [
        bare]


def test_a_row_with_no_year_above_is_not_judged(tmp_path: Path) -> None:
    ev, chunks = _unit(tmp_path, "# Costs\n\nCost of revenues 4,591,476 6,029,901\n",
                       "Cost of revenues 4,591,476 6,029,901")
    assert scoped_evidence([ev], chunks, "What was ACME's cost of revenues in 2025?") == (
        [ev], [])


DIVIDENDS = """# Dividends

The following table presents our dividend activity for each of the past three fiscal years
(in millions, except per share amounts):

2017 2016 2015
Regular quarterly cash dividends per share $ 1.12 $ 0.92 $ 0.72

Cash dividends declared and paid $ 505 $ 499 $ 251
(1) Special cash dividends are authorized by our Board of Directors.
"""


def test_a_change_between_years_the_header_line_lacks_is_no_answer(tmp_path: Path) -> None:
    """MMLongBench-Doc dev (unanswerable): "How much higher was the dividend paid in 2003
    compared to 2002?" was answered by Best Buy's dividend row of fiscal 2017 / 2016 / 2015, a
    table whose column header, read as text, is a line of years alone."""
    row = "Cash dividends declared and paid $ 505 $ 499 $ 251"
    # the unit the extractive answer chose ran on into the footnote under the row
    for unit in (row, row + " (1) Special cash dividends are authorized by our Board"):
        ev, chunks = _unit(tmp_path, DIVIDENDS, unit)
        q = "How much higher was the dividend paid in 2003 compared to 2002?"
        assert scoped_evidence([ev], chunks, q) == ([], ["other_period:2002,2003"])
        q = "How much higher was the dividend paid in 2017 compared to 2016?"
        assert scoped_evidence([ev], chunks, q) == ([ev], [])


def test_a_total_row_does_not_answer_for_the_largest_item(tmp_path: Path) -> None:
    """"the largest current asset" is one item, never their total (helper probe: Boeing's
    "Total current assets" row was the answer)."""
    ev, chunks = _unit(tmp_path, "# Balance sheet\n\nTotal current assets 100,735 100,190\n",
                       "Total current assets 100,735 100,190")
    kept, flags = scoped_evidence([ev], chunks,
                                  "What was the largest current asset of ACME in 2022?")
    assert kept == [] and flags == ["total_is_no_item"]


SEGMENTS = """# Segment reporting

United States Canadian Other International Total

| 2021 |  |  |  |  |
|---|---|---|---|---|
| Operating income | 4,262 | 1,176 | 1,270 | 6,708 |
| 2020 |  |  |  |  |
| Operating income | 3,633 | 860 | 942 | 5,435 |
"""


def test_a_row_under_a_year_block_label_is_of_that_year(tmp_path: Path) -> None:
    """Helper probe: "What was Costco's operating income in 2023?" was answered by the 2020
    block's row of a segment table (columns are segments, no period header): the year labelling
    the block is the row's period (``corpus.period_scope.block_year``)."""
    path = tmp_path / "acme_10k.md"
    path.write_text(SEGMENTS, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    unit = next(ln.strip() for ln in chunks[0].text.splitlines() if "3,633" in ln)
    cit = make_citation(chunks[0], unit)
    assert cit is not None
    ev = Evidence(unit, 1.0, cit)
    kept, flags = scoped_evidence([ev], chunks, "What was ACME's operating income in 2023?")
    assert kept == [] and flags == ["other_period:2023"]
    assert scoped_evidence([ev], chunks, "What was ACME's operating income in 2020?")[0] == [ev]
