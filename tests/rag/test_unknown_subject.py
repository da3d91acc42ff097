"""An organisation no document is by or about, asked of a collection of notes (no issuer):
the answer's document must write its name (``Retrieval.unknown_subjects`` joins the presence
check of ``rag.decision``). A new-user trial's "How many employees does Tesla have in Berlin?"
was answered "found" by a handbook's Berlin Slack channel; dev question mmlongbench:786 ("…
the most central part of Oakland?", unanswerable) by a handbook line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from rag.resolve import ProfileSource
from rag.resolve_terms import asked_organisations
from rag.retriever import HybridRetriever

TOK = Tokenizer()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[QdrantChunkStore]:
    docs = tmp_path_factory.mktemp("notes")
    (docs / "berlin_office.md").write_text(
        "# Berlin office\n\nOur Berlin office has 40 employees and opened in 2019.\n")
    (docs / "suppliers.md").write_text(
        "# Suppliers\n\nWe buy our delivery vans and our laptops from two local dealers.\n")
    st = QdrantChunkStore.embedded(tmp_path_factory.mktemp("q") / "qdrant")
    Ingestor(st, TOK, None, workers=1).ingest_paths([docs], "notes", root=docs)
    yield st
    st.close()


def test_the_subject_of_does_have_is_an_asked_organisation() -> None:
    assert asked_organisations("How many employees does Tesla have in Berlin?") == ["Tesla"]
    assert asked_organisations("How many employees does the office have?") == []


def test_an_answer_from_a_document_not_naming_the_organisation_is_not_found(
        store: QdrantChunkStore) -> None:
    from rag.pipeline import RagPipeline

    retriever = HybridRetriever(store, TOK, None, resolver=ProfileSource(store, TOK.terms))
    rag = RagPipeline(retriever, answer_floor=0.0)
    got = rag.run("How many employees does Tesla have in Berlin?", "notes")
    assert not got.found and "absent_in_document:tesla" in got.flags, (got.answer, got.flags)
    own = rag.run("How many employees does the Berlin office have?", "notes")
    assert own.found and "40 employees" in own.answer


def test_a_name_no_document_writes_with_a_rival_in_the_answer_is_not_found(
        store: QdrantChunkStore) -> None:
    """``corpus.asked_names``: "the Paris office" answered by "Our Berlin office …"."""
    from rag.pipeline import RagPipeline

    rag = RagPipeline(HybridRetriever(store, TOK, None), answer_floor=0.0)
    got = rag.run("How many employees does the Paris office have?", "notes")
    assert not got.found and "absent_in_document:paris" in got.flags, (got.answer, got.flags)
