"""A name the question asks about that no chunk of the collection matches: the answer's
document must write it (``corpus.asked_names`` joins the presence checks of ``rag.decision``
and ``loop.answer_checks``). A trial's "How many employees does the Paris office have?" over
an office page naming Tokyo and Berlin was answered "The Berlin office has 25 employees." at
confidence 1.0, on both paths (the RAG path's run: tests/rag/test_unknown_subject.py)."""

from __future__ import annotations

import pytest

from corpus.asked_names import asked_names, checked_names
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk

TOK = Tokenizer()


@pytest.mark.parametrize(("question", "names"), [
    ("How many employees does the Paris office have?", ["paris"]),
    ("What is Walmart's revenue in 2022?", ["walmart"]),
    ("what is research and development expense of Neflix in FY 2015?", ["neflix"]),
    # the first word, a sentence's first word, stopwords, acronyms and mixed case are no names
    ("Paris: how many employees work there? Which office is it?", []),
    ("What is AMEX's tax rate? And JnJ's?", []),
    # a title-cased question says nothing by its capitals
    ("How Many Employees Work In Tokyo?", []),
])
def test_asked_names(question: str, names: list[str]) -> None:
    assert asked_names(question, TOK.key_terms) == names


def _chunk(text: str, path: str = "COSTCO_2021_10K.pdf") -> Chunk:
    return Chunk(chunk_id="c", doc_id="d", path=path, title="", section_path=(), page_start=1,
                 page_end=1, line_start=1, line_end=1, char_start=0, char_end=len(text),
                 text=text, ordinal=0)


def test_names_the_collection_holds_misspelt_glued_or_in_another_script_are_not_asked() -> None:
    held = {"liabilities", "netflix", "expansion"}.__contains__
    costco = _chunk("| Total current liabilities | 29,441 |")
    # held somewhere in the collection: not asked of the document
    assert checked_names(["expansion"], "What follows 'Expansion'?", "x", costco, held) == []
    # absent from the collection, and the unit writes a rival in its place: asked (and the
    # document cannot hold it)
    berlin = "The Berlin office has 25 employees."
    q = "How many employees does the Paris office have?"
    assert checked_names(["paris"], q, berlin, costco, held) == ["paris"]
    # absent, but no rival: a setting the passage may leave unsaid
    chat = "Location channels are prefixed with loc_ and help team members meet."
    assert checked_names(["slack"], "Which prefix do Location Channels use in Slack?", chat,
                         costco, held) == []
    # one edit from a capitalised word of the chunk or its file name: a misspelling
    netflix = _chunk("Netflix, Inc. consolidated statements", "NETFLIX_2015_10K.pdf")
    assert checked_names(["neflix", "netfilx"], "Neflix? Netfilx?", "x", netflix, held) == []
    # a word the collection holds with a function word glued to it: a space left out
    assert checked_names(["liabilitiesfor"], "Current Liabilitiesfor COSTCO", "x", costco,
                         held) == []
    # an English question answered from a Chinese passage need not find its English names
    zh = _chunk("劳动者在试用期内提前三日通知用人单位，可以解除劳动合同。", "labour.pdf")
    assert checked_names(["paris"], "How long is the probation in Paris?", "在北京试用期", zh,
                         held) == []
