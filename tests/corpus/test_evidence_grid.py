"""An unruled grid in a PDF (no ruling lines, so no Markdown table): its column-name line and
the value row under it are one LoopAgent unit as well, so the values are read, ranked and
quoted with their column names (issue 16: "绩效等级A的考核系数" answered from prose on p.3
instead of the grid on p.4 of the performance policy)."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.evidence import split_units
from corpus.evidence.units import grid_header
from corpus.parsers import parse_file

POLICY = "zh/docs/pdf/medico_performance_policy.pdf"


def test_grid_header_and_row_are_one_scan_unit_that_verifies(eval_dir: Path) -> None:
    chunks = chunk_document(parse_file(eval_dir / POLICY), rel_path=POLICY)
    chunk = next(c for c in chunks if "考核系数 1.5 1.25 1 0.75 0.5" in c.text)
    units = split_units(chunk, "scan")
    joined = "考核等级 S A B C D考核系数 1.5 1.25 1 0.75 0.5"
    assert joined in units
    assert "考核系数 1.5 1.25 1 0.75 0.5" in units  # the row alone stays a unit
    cite = make_citation(chunk, joined)
    assert cite is not None and cite.page == 4
    assert joined not in split_units(chunk, "quote")  # the RAG path's units are unchanged


def test_grid_header_rule() -> None:
    assert grid_header("考核等级 S A B C D", "考核系数 1.5 1.25 1 0.75 0.5")
    assert grid_header("Parameter Min Typ Max", "Voltage 3.0 3.3 3.6")
    assert not grid_header("考核等级 S A B C", "考核系数 1.5 1.25 1 0.75 0.5")  # cells differ
    assert not grid_header("2019 2018 2017", "Net income 3,033 10,073 11,588")  # years: data
    assert not grid_header("考核等级 S A B C D", "绩效等级分为5 个等级")  # no value row
    assert not grid_header("| a | b |", "Net income 3,033 10,073")
