"""A change between two years asked of prose is answered by both years' sentences
(``rag.period_pair``; a new-user trial: "How did revenue change from 2018 to 2019?" was
answered "Revenue in 2018 was 3.1 million euros." alone). Real parsing, chunking and the RAG
answer decision; the retrieval is the one chunk."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag.decision import AnswerDecider
from rag.period_pair import asks_period_change
from rag.steps import drive_inline
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

REPORT = (
    "# Nordlys AS annual report\n\n## Results\n\n"
    "Revenue in 2018 was 3.1 million euros. Revenue in 2019 was 4.2 million euros, driven by "
    "the new export contracts.\n"
    "Operating costs rose from 2.0 million euros in 2018 to 2.6 million euros in 2019.\n\n"
    "## Staff\n\nThe company employed 41 people at the end of 2019.\n"
)


def _decide(tmp_path: Path, question: str) -> tuple[str, list[str], tuple[str, ...]]:
    doc = tmp_path / "report.md"
    doc.write_text(REPORT, encoding="utf-8")
    chunks = chunk_document(parse_file(doc), rel_path="report.md")
    tok = Tokenizer()
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
    r = Retrieval(question, "c", items, Confidence(0.9, ConfidenceFeatures()), "hybrid",
                  key_terms=tuple(tok.key_terms(question)))
    d = drive_inline(AnswerDecider(tok, None, make_citation=make_citation).flow(r))
    assert d.found, (question, d.flags)
    return d.answer, [c.quote for c in d.citations], d.flags


@pytest.mark.parametrize("question", ["How did revenue change from 2018 to 2019?",
                                      "By how much did revenue grow between 2018 and 2019?"])
def test_both_years_sentences_answer_a_change_asked_of_prose(tmp_path: Path,
                                                             question: str) -> None:
    answer, quotes, flags = _decide(tmp_path, question)
    assert "period_pair" in flags
    assert len(quotes) == 2 and {q.split(" was ")[0] for q in quotes} == {
        "Revenue in 2018", "Revenue in 2019"}, quotes
    assert "3.1 million euros" in answer and "4.2 million euros" in answer


def test_a_sentence_stating_both_years_or_one_year_asked_answers_alone(tmp_path: Path) -> None:
    answer, quotes, flags = _decide(tmp_path, "How did operating costs change from 2018 to 2019?")
    assert quotes == ["Operating costs rose from 2.0 million euros in 2018 to 2.6 million "
                      "euros in 2019."] and "period_pair" not in flags
    answer, quotes, flags = _decide(tmp_path, "What was the revenue in 2019?")
    assert len(quotes) == 1 and "2019" in quotes[0] and "period_pair" not in flags


def test_what_asks_a_change_between_two_years() -> None:
    assert asks_period_change("How did revenue change from 2018 to 2019?")
    assert asks_period_change("营业收入从2018年到2019年增长了多少？")
    assert not asks_period_change("What was the revenue in 2018 and in 2019?")  # two parts
    assert not asks_period_change("How did revenue change in 2019?")  # one year
    assert not asks_period_change("How did revenue change from 2017 to 2018 to 2019?")
