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


def _row(tmp_path: Path, reading: str) -> tuple[Evidence, list]:
    path = tmp_path / "acme_10k.md"
    path.write_text(ROWS, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    unit = "Cost of revenues 4,591,476 6,029,901 7,659,666"
    cit = make_citation(chunks[0], unit)
    assert cit is not None
    return Evidence(unit, 1.0, cit, reading), chunks


def test_a_row_of_other_years_is_no_answer(tmp_path: Path) -> None:
    ev, chunks = _row(tmp_path, "Cost of revenues — 2015: 4,591,476; 2016: 6,029,901; "
                                "2017: 7,659,666")
    kept, flags = scoped_evidence([ev], chunks, "What was ACME's cost of revenues in 2025?")
    assert kept == [] and flags == ["other_period:2025"]


def test_a_row_with_the_asked_year_answers(tmp_path: Path) -> None:
    ev, chunks = _row(tmp_path, "Cost of revenues, 2016: 6,029,901")
    kept, flags = scoped_evidence([ev], chunks, "What was ACME's cost of revenues in 2016?")
    assert kept == [ev] and flags == []
    # a row without a period header (no reading) is not judged
    bare, _ = _row(tmp_path, "")
    assert scoped_evidence([bare], chunks, "What was ACME's cost of revenues in 2025?")[0] == [
        bare]


def test_a_total_row_does_not_answer_for_the_largest_item(tmp_path: Path) -> None:
    """"the largest current asset" is one item, never their total (helper probe: Boeing's
    "Total current assets" row was the answer)."""
    path = tmp_path / "acme_10k.md"
    path.write_text("# Balance sheet\n\nTotal current assets 100,735 100,190\n", encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    unit = "Total current assets 100,735 100,190"
    cit = make_citation(chunks[0], unit)
    assert cit is not None
    kept, flags = scoped_evidence([Evidence(unit, 1.0, cit)], chunks,
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
