"""Evidence for a question in the other language than its passages (rag.cross_evidence): chosen
by the multilingual embedding, with the real e5-small model."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag.cross_evidence import cross_language, dense_evidence, script_share
from rag.embedder import FastEmbedEmbedder
from rag.extractive import extract_answer
from rag.types import Confidence, ConfidenceFeatures, Retrieval, RetrievedChunk

_MANUAL = (
    "# 产品规格\n\n"
    "本产品由某公司设计制造，外壳采用阻燃材料。\n\n"
    "本产品的保修期为两年，自购买之日起计算。\n\n"
    "设备工作温度范围为零下十度至四十度。\n\n"
    "包装内含电源适配器一个、说明书一份。\n"
)


def _retrieval(tmp_path: Path, question: str) -> Retrieval:
    doc = tmp_path / "manual.md"
    doc.write_text(_MANUAL, encoding="utf-8")
    chunks = chunk_document(parse_file(doc), rel_path=doc.name)
    items = tuple(RetrievedChunk((c,), 1.0 / (i + 1)) for i, c in enumerate(chunks))
    tok = Tokenizer()
    return Retrieval(question, "c", items, Confidence(0.5, ConfidenceFeatures()), "hybrid",
                     key_terms=tuple(tok.key_terms(question)))


def test_scripts_tell_a_cross_language_question(tmp_path: Path) -> None:
    zh = _retrieval(tmp_path, "What is the warranty period? (保修期)")
    assert script_share("What is the warranty period? (保修期)") < 0.25
    assert cross_language(zh.question, zh.items)
    assert not cross_language("保修期是多久？", zh.items)  # same language: words decide
    assert not cross_language("What is it?", ())


def test_the_unit_closest_by_the_embedding_answers(tmp_path: Path,
                                                   embedder: FastEmbedEmbedder) -> None:
    r = _retrieval(tmp_path, "How long is the warranty period?")
    tok = Tokenizer()
    # by words alone an English question matches nothing in these Chinese units
    words = extract_answer(r, tok.key_terms(r.question), make_citation, normalize=tok.normalize)
    assert not words or "保修期" not in words[0].text
    dense = dense_evidence(r, make_citation, embedder.embed_query, embedder.embed_passages)
    assert "保修期为两年" in dense[0].text
    assert dense[0].citation.path == "manual.md"  # a verified quote of a retrieved chunk
    assert len(dense) == 3 and dense[0].score >= dense[1].score >= dense[2].score
