"""A change between two amounts asked of prose (``corpus.derived.prose_amounts``, both paths):
FinanceBench dev
"By how much did Pepsico increase its unsecured five year revolving credit agreement on May 26,
2023?" (gold "$400,000,000 increase") was answered by the new agreement's sentence alone."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from corpus.derived.prose_amounts import amount_change
from corpus.evidence.units import split_units

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
