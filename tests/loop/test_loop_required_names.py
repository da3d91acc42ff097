"""The LoopAgent's answer must come from a document that writes the names its caller requires
(the organisations RAG's document resolution found no document by or about,
``rag.types.Retrieval.unknown_subjects``, passed by the router): "How many employees does
Tesla have in Berlin?" over a note about the Berlin office is "not found"."""

from __future__ import annotations

from conftest import KB, text_kb_fixture

from corpus.tokenizer import Tokenizer
from loop import LoopAgent

# Tesla is written in the collection, not in the Berlin note: the name is not asked of the
# note unless required (corpus.asked_names asks only names the whole collection lacks)
kb = text_kb_fixture("notes", {
    "berlin_office.md": "# Berlin office\n\nOur Berlin office has 40 employees and opened in "
                        "2019.\n",
    "fleet.md": "# Fleet\n\nOur delivery vans are built by Tesla and leased for three years.\n"})


def test_a_required_name_the_cited_document_lacks_refuses(kb: KB, tokenizer: Tokenizer) -> None:
    q = "How many employees does Tesla have in Berlin?"
    agent = LoopAgent(kb.store, kb.search, key_terms=tokenizer, documents=kb)
    assert agent.run(q, kb.collection).found  # no name required: the note answers
    res = agent.run(q, kb.collection, required=["tesla"])
    assert not res.found and res.absent_terms == ["tesla"]
    own = agent.run("How many employees does the Berlin office have?", kb.collection,
                    required=["berlin"])
    assert own.found and "40 employees" in own.answer
