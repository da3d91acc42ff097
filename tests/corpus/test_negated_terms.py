"""A question's word is not found in its negated compound (``corpus.evidence.terms``): "total
operating income" is no match for "Total non-operating income (expense)" — a new-user trial got
that row as Amazon's 2019 operating income (it held all three words, the Operating income row
two) — unless the question itself says "non"."""

from __future__ import annotations

import pytest

from corpus.evidence import TermMatcher
from corpus.evidence.terms import only_negated
from corpus.tokenizer import Tokenizer
from tests._support.ingest import keyword_rag_answer

NON_OPERATING = "Total non-operating income (expense) (300) (1,160) (565)"
OPERATING = "Operating income 4,186 12,421 14,541"


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer()


@pytest.mark.parametrize(("term", "text", "negated"), [
    ("oper", "total non-operating income (expense)", True),
    ("current", "total non-current assets", True),
    ("current", "non current assets", True),
    ("oper", "operating income and non-operating items", False),  # also written plainly
    ("oper", "total operating expenses", False),
    ("incom", "total non-operating income", False),
    ("2019", "non-2019 figures", False),  # letters only
])
def test_only_negated(term: str, text: str, negated: bool) -> None:
    assert only_negated(term, text) is negated


def test_the_negated_row_does_not_hold_the_asked_word(tok: Tokenizer) -> None:
    m = TermMatcher(tok.key_terms("What was Amazon total operating income in 2019?"), tok)
    assert "oper" not in m.matched(NON_OPERATING) and "oper" in m.matched(OPERATING)
    assert m.negated(NON_OPERATING) == {"oper"} and m.negated(OPERATING) == frozenset()
    plain = TermMatcher(m.terms, normalize=tok.normalize, weighting="digits")  # rag.extractive's
    assert "oper" not in plain.matched(NON_OPERATING)


def test_a_question_saying_non_keeps_the_match(tok: Tokenizer) -> None:
    m = TermMatcher(tok.key_terms("What was the non-GAAP operating income?"), tok)
    assert "non" in m.terms and "oper" in m.matched(NON_OPERATING)
    assert m.negated(NON_OPERATING) == frozenset()


INCOME = """# Consolidated Statements of Operations

(in millions)

Year Ended December 31,

2017 2018 2019

Total net sales 177,866 232,887 280,522

Total operating expenses 173,760 220,466 265,981

Operating income 4,106 12,421 14,541

Interest income 202 440 832

Total non-operating income (expense) (300) (1,160) (565)

Net income 3,033 10,073 11,588
"""


def test_the_rag_answer_is_the_operating_income_row(tmp_path) -> None:
    # the statement's heading ("… of Operations") lent the non-operating row "operating" too
    got = keyword_rag_answer(tmp_path, {"acme_2019_10k.md": INCOME},
                             "What was ACME's total operating income in 2019?")
    assert got.found and got.answer.startswith("Operating income, 2019: 14,541"), got.answer
