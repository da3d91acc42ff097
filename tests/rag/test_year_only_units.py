"""A unit holding only the year a question asks, and none of what it asks of that year, is no
evidence (``corpus.evidence.UnitScorer``, both paths). Real parsing, chunking and the extractive
answer."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag.decision import AnswerDecider
from rag.extractive import extract_answer
from rag.steps import drive_inline
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk


def test_a_unit_holding_only_the_year_asked_is_no_evidence(tmp_path: Path) -> None:
    """A new-user trial: "What was revenue in 2021?" over a report stating 2018-2020 revenue and
    a newsletter saying the headquarters opens in May 2021 was answered "found" with that
    sentence: it holds the year (a term weighing 2) and nothing else the question asks."""
    report = ("Revenue in 2019 was 15.1 million euros.\n\n"
              "The new headquarters in Bergen opens in May 2021.\n")
    doc = tmp_path / "news.md"
    doc.write_text(report, encoding="utf-8")
    chunks = chunk_document(parse_file(doc), rel_path=doc.name)
    items = tuple(RetrievedChunk((c,), 1.0) for c in chunks)
    tok = Tokenizer()
    question = "What was revenue in 2021?"
    r = Retrieval(question, "c", items, Confidence(0.9, ConfidenceFeatures()), "hybrid",
                  key_terms=tuple(tok.key_terms(question)))
    ev = extract_answer(r, r.key_terms, make_citation, normalize=tok.normalize)
    assert all("2021" not in e.text for e in ev), [e.text for e in ev]
    d = drive_inline(AnswerDecider(tok, None, make_citation=make_citation).flow(r))
    assert not d.found or "2021" not in d.answer, d.answer
