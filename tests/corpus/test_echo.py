"""A line that only repeats the question's words answers nothing (``TermMatcher.echoes``): both
readers quote it through the line after it (``corpus.evidence.units.through_next``), and the
line-reading protocol's pick does not take such a copied value. Measured on the dev questions
(whole eval collection, no LLM): a caption "Button functions during a workout" answered "How
many distinct button functions are there during a workout?" (mmlongbench:87), a standard's
code "DB32/T 1580—2019" answered "DB32/T 1580—2019是哪天发布、哪天实施的？" (zhpdf:31), the local
model copied the heading "2.2 Dataset Construction Each" for "For dataset construction, which
step …" (mmlongbench:66). Real tokenizer, parsing and chunking."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.evidence.terms import TermMatcher
from corpus.evidence.units import through_next
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag.extractive import extract_answer
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return Tokenizer()


@pytest.mark.parametrize(("question", "text", "echo"), [
    ("How many distinct button functions are there during a workout?",
     "Button functions during a workout", True),
    ("DB32/T 1580—2019是哪天发布、哪天实施的？", "DB32/T 1580—2019", True),
    ("For dataset construction, which step takes the most word to describe than the others.",
     "2.2 Dataset Construction Each", True),
    ("贵族等级是什么？", "贵族等级", True),
    ("贵族等级是什么？", "贵族等级分为公、侯、伯、子、男五等", False),
    ("What is the sight on Taylor St?", "Taylor St has the Tenderloin Museum", False),
    ("Has the plan changed?", "| b. Has the plan changed | No |", False),  # a row: cells
    ("What is the ESP32-PICO-D4 voltage?", "ESP32 runs at 3.3 V", False),
    ("What is the voltage?", "", False),
])
def test_a_text_echoes_the_question_when_it_adds_no_word(tok: Tokenizer, question: str,
                                                        text: str, echo: bool) -> None:
    assert TermMatcher(tok.key_terms(question), tok).echoes(text) is echo


def test_no_tokenizer_no_echo(tok: Tokenizer) -> None:
    assert not TermMatcher(tok.key_terms("贵族等级是什么？")).echoes("贵族等级")


_MANUAL = (
    "# Watch guide\n\n## Buttons\n\n"
    "The watch has two buttons on its right side.\n\n"
    "Button functions during a workout\n\n"
    "| Button | Operation | Function |\n|---|---|---|\n"
    "| Up | Press | Pause or resume the workout |\n"
    "| Down | Press | Switch screens |\n"
)
Q = "Which button functions are there during a workout?"


def _chunks(tmp_path: Path) -> list:
    doc = tmp_path / "watch.md"
    doc.write_text(_MANUAL, encoding="utf-8")
    return chunk_document(parse_file(doc), rel_path="watch.md")


def test_through_next_is_the_verbatim_passage_to_the_next_unit(tmp_path: Path) -> None:
    (chunk,) = _chunks(tmp_path)
    got = through_next(chunk, "Button functions during a workout", "quote")
    assert got.startswith("Button functions during a workout") and got in chunk.text
    assert got.endswith("| Up | Press | Pause or resume the workout |"), got
    last = "| Down | Press | Switch screens |"
    assert through_next(chunk, last, "quote") == last  # the last unit: itself


def test_the_rag_answer_quotes_a_caption_with_the_line_under_it(tmp_path: Path,
                                                                tok: Tokenizer) -> None:
    chunks = _chunks(tmp_path)
    items = tuple(RetrievedChunk((c,), 1.0) for c in chunks)
    r = Retrieval(Q, "c", items, Confidence(0.5, ConfidenceFeatures()), "hybrid",
                  key_terms=tuple(tok.key_terms(Q)))
    bare = extract_answer(r, r.key_terms, make_citation, normalize=tok.normalize)
    assert bare[0].text == "Button functions during a workout"  # without the tokenizer
    ev = extract_answer(r, r.key_terms, make_citation, normalize=tok.normalize, tokenizer=tok)
    assert ev[0].text.startswith("Button functions during a workout")
    assert "Pause or resume the workout" in ev[0].text
    # verified: verbatim in its chunk (the citation shows it on one line)
    assert " ".join(ev[0].citation.quote.split()) == " ".join(ev[0].text.split())
