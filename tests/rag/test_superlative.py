"""The largest or smallest item of a statement section (issue 15 item 3; FinanceBench dev
question "What was the largest liability in American Express's Balance Sheet in 2022?", gold
"Customer deposits", answered "CONSOLIDATED BALANCE SHEETS" before): the item rows between the
kind's header and its total, the largest cell of the asked year, both rows cited."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.derived import asks_superlative, computable, statement_figure
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from tests._support.statements import LIABILITIES as SHEET

TOK = Tokenizer()



def _answer(question: str, text: str, tmp_path: Path) -> tuple[str, list[str]] | None:
    path = tmp_path / "acme_2022_10k.md"
    path.write_text(text, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    got = statement_figure(question, [chunks], TOK.key_terms, TOK.normalize, make_citation,
                           None, None, "c")
    return None if got is None else (got[0], [c.quote for c in got[1]])


def test_the_question_forms() -> None:
    assert asks_superlative("What was the largest liability in ACME's balance sheet in 2022?") \
        == (True, "liability in")
    assert asks_superlative("Which is the smallest single expense of FY2021?") \
        == (False, "expense of")
    assert asks_superlative("What was the largest liability in 2021 and 2022?") is None
    assert asks_superlative("What was ACME's revenue in 2022?") is None
    assert computable("What was the largest liability in ACME's balance sheet in 2022?")


def test_the_largest_liability_is_the_largest_item_row_of_the_year(tmp_path: Path) -> None:
    got = _answer("What was the largest liability in ACME's Balance Sheet in 2022?", SHEET,
                  tmp_path)
    assert got is not None
    text, quotes = got
    assert text.startswith("Customer deposits, 2022: 110,239 — the largest of the items summed "
                           "in “Total liabilities” (203,643;")
    assert quotes == ["| Customer deposits | | 110,239 | 84,382 |",
                      "| Total liabilities | | 203,643 | 166,371 |"]


def test_a_row_not_read_is_accounted_for_by_the_total(tmp_path: Path) -> None:
    """The Long-term debt row's label holds digits (no statement row): what the rows read leave
    of the total (42,573) is below the largest read, so the largest stands; the smallest
    cannot be known and nothing is answered."""
    assert _answer("What was the smallest liability in ACME's balance sheet in 2022?", SHEET,
                   tmp_path) is None
    big = SHEET.replace("| Customer deposits |  | 110,239 |", "| Customer deposits |  | 30,239 |")
    big = big.replace("| Total liabilities |  | 203,643 |", "| Total liabilities |  | 123,643 |")
    # now the row not read (42,573) may be the largest: not answered
    assert _answer("What was the largest liability in ACME's balance sheet in 2022?", big,
                   tmp_path) is None


def test_the_smallest_when_every_row_is_read(tmp_path: Path) -> None:
    sheet = SHEET.replace("Long-term debt (includes debt of consolidated entities: 2022, $12,662)",
                          "Long-term debt")
    got = _answer("What was the smallest liability in ACME's balance sheet in 2021?", sheet,
                  tmp_path)
    assert got is not None and got[0].startswith("Short-term borrowings, 2021: 2,243 — the "
                                                 "smallest of the items")


def test_no_section_of_the_kind_no_answer(tmp_path: Path) -> None:
    assert _answer("What was the largest expense of ACME in 2022?", SHEET, tmp_path) is None
    no_total = SHEET.replace("| Total liabilities |  | 203,643 | 166,371 |\n", "")
    assert _answer("What was the largest liability in ACME's balance sheet in 2022?", no_total,
                   tmp_path) is None


def test_a_part_of_the_section_does_not_name_it(tmp_path: Path) -> None:
    """A new-user trial (Netflix 2017 10-K): "Current liabilities:" under "Liabilities and
    Stockholders' Equity" named the section whose largest item was Long-term debt, not a
    current liability; the section is what its total sums."""
    parts = SHEET.replace("| Liabilities |  |  |  |\n", "| Liabilities |  |  |  |\n"
                          "| Current liabilities: |  |  |  |\n")
    parts = parts.replace("| Short-term borrowings |  | 1,348 | 2,243 |\n",
                          "| Short-term borrowings |  | 1,348 | 2,243 |\n"
                          "| Total current liabilities |  | 123,720 | 97,199 |\n")
    got = _answer("What was the largest liability in ACME's balance sheet in 2022?", parts,
                  tmp_path)
    assert got is not None and "summed in “Total liabilities”" in got[0]
    assert got[0].startswith("Customer deposits, 2022: 110,239")
    named = _answer("What was the largest liability ACME reported in its 2022 balance sheet?",
                    parts, tmp_path)
    assert named is not None and named[0].startswith("Customer deposits, 2022: 110,239")
    current = _answer("What was the largest current liability in ACME's balance sheet in 2022?",
                      parts, tmp_path)
    assert current is not None and "summed in “Total current liabilities”" in current[0]


# Boeing's 2022 balance sheet: its current assets open the table under no heading of their own
NO_HEADING = """# Consolidated Statements of Financial Position

December 31 (Dollars in millions) 2022 2021

| Cash and cash equivalents |  | 14,614 | 8,052 |
|---|---|---|---|
| Short-term and other investments |  | 2,606 | 8,192 |
| Accounts receivable, net |  | 2,517 | 2,902 |
| Inventories |  | 78,151 | 78,823 |
| Other current assets, net |  | 2,847 | 2,221 |
| Total current assets |  | 100,735 | 100,190 |
| Property, plant and equipment, net |  | 10,550 | 10,918 |
"""


def test_a_section_without_a_heading_runs_from_the_last_boundary(tmp_path: Path) -> None:
    """Helper probe: "What was the largest current asset in Boeing's balance sheet in 2022?"
    was answered with the "Total current assets" row; the rows from the table's top to that
    total, which account for it, are the section."""
    got = _answer("What was the largest current asset in ACME's balance sheet in 2022?",
                  NO_HEADING, tmp_path)
    assert got is not None and got[0].startswith("Inventories, 2022: 78,151 — the largest of "
                                                 "the items summed in “Total current assets”")
    # "current" alone is no kind: "largest current" is not asked of any "Current …" header
    assert asks_superlative("What was the largest current asset?") == (True, "current asset")
