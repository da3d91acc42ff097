"""A change between two amounts asked of prose (``corpus.derived.prose_amounts``, both paths):
FinanceBench dev
"By how much did Pepsico increase its unsecured five year revolving credit agreement on May 26,
2023?" (gold "$400,000,000 increase") was answered by the new agreement's sentence alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.derived.prose_amounts import amount_change, from_to_change
from corpus.evidence.units import split_units
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer

TOK = Tokenizer()

EIGHT_K = """# Item 1.02 Termination of a Material Definitive Agreement

Effective May 26, 2023, ACME terminated the $3,800,000,000 five year unsecured revolving
credit agreement, dated as of May 27, 2022, among ACME and the lenders party thereto.

# Item 1.01 Entry into a Material Definitive Agreement

On May 26, 2023, ACME entered into a new $4,200,000,000 five year unsecured revolving credit
agreement among ACME and the lenders party thereto. ACME may borrow up to $4,200,000,000 in
U.S. Dollars, including a $750,000,000 swing line subfacility.
"""

Q = ("By how much did ACME increase its unsecured five year revolving credit agreement on May "
     "26, 2023?")


def _answer(question: str, text: str, tmp_path: Path) -> tuple[str, list[str]] | None:
    """The change, given the new agreement's sentence as the best evidence unit."""
    path = tmp_path / "acme_8k.md"
    path.write_text(text, encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    best = next(c for c in chunks if "new $4,200,000,000" in c.text)
    assert any("new $4,200,000,000" in u for u in split_units(best, "quote"))
    got = amount_change(question, best.chunk_id, chunks, TOK.key_terms, make_citation)
    return None if got is None else (got[0], [c.quote for c in got[1]])


def test_the_change_is_the_difference_of_the_two_amounts_of_the_thing(tmp_path: Path) -> None:
    got = _answer(Q, EIGHT_K, tmp_path)
    assert got is not None
    text, quotes = got
    assert text.startswith("$400,000,000 increase: from $3,800,000,000 to $4,200,000,000 — ")
    assert quotes[0].startswith("Effective May 26, 2023, ACME terminated the $3,800,000,000")
    assert quotes[1].startswith("On May 26, 2023, ACME entered into a new $4,200,000,000")


def test_the_new_amount_is_the_one_after_new_whatever_the_order(tmp_path: Path) -> None:
    """The new agreement written first: still from the old amount to the new one."""
    head, tail = EIGHT_K.split("# Item 1.01")
    got = _answer(Q, "# Item 1.01" + tail + "\n" + head, tmp_path)
    assert got is not None and got[0].startswith("$400,000,000 increase: from $3,800,000,000")


def test_no_answer_without_two_amounts_of_the_thing(tmp_path: Path) -> None:
    one = EIGHT_K.replace("$3,800,000,000 five year", "five year")
    assert _answer(Q, one, tmp_path) is None
    assert _answer("How much can ACME borrow under its five year revolving credit agreement?",
                   EIGHT_K, tmp_path) is None


def _one_chunk(text: str, tmp_path: Path):  # noqa: ANN202 - Chunk
    path = tmp_path / "acme_10k.md"
    path.write_text(text, encoding="utf-8")
    return chunk_document(parse_file(path), rel_path=path.name)[0]


@pytest.mark.parametrize(("question", "unit", "answer"), [
    # a helper's trial: the answers quoted both amounts and gave no difference
    ("By how much did ACME increase its quarterly dividend in April 2021?",
     "In April 2021, the Board increased our quarterly cash dividend from $0.70 to $0.79 per "
     "share.", "$0.09 increase: from $0.70 to $0.79 — "),
    ("By how much did ACME's restructuring charges decrease from FY16 to FY17?",
     "Restructuring charges decreased from $198 million in fiscal 2016 to $39 million in fiscal "
     "2017.", "$159 million decrease: from $198 million to $39 million — "),
    ("By how much did ACME raise the price of its HD plan in October 2015?",
     "In October 2015, we increased the price of our HD plan from $8.99 to $9.99.",
     "$1.00 increase: from $8.99 to $9.99 — "),
    # two steps: which one is asked is not read here
    ("By how much did ACME increase its quarterly dividend in December 2018?",
     "We increased the quarterly dividend from $1.42 to $1.71 per share and to $2.06 in "
     "December 2018.", None),
    # no change asked
    ("What was ACME's quarterly dividend in April 2021?",
     "In April 2021, the Board increased our quarterly cash dividend from $0.70 to $0.79 per "
     "share.", None),
])
def test_a_unit_stating_the_change_from_one_amount_to_another(
        question: str, unit: str, answer: str | None, tmp_path: Path) -> None:
    chunk = _one_chunk(f"# Dividends\n\n{unit}\n", tmp_path)
    got = from_to_change(question, unit, chunk, make_citation)
    if answer is None:
        assert got is None
        return
    assert got is not None and got[0].startswith(answer), got
    assert got[1][0].quote == unit
