"""The RAG path's change asked of prose (``rag.amount_change.prose_change``): the answer unit's
own "from $A to $B" is worked out first (a helper's trial: "By how much did Costco increase its
quarterly dividend in April 2021?" quoted "$0.70 to $0.79" and gave no difference)."""

from __future__ import annotations

from pathlib import Path

from corpus.chunker import chunk_document
from corpus.citations import make_citation
from corpus.parsers import parse_file
from corpus.tokenizer import Tokenizer
from rag._answer import Evidence
from rag.amount_change import prose_change

TOK = Tokenizer()


def test_the_answer_units_own_change_is_worked_out(tmp_path: Path) -> None:
    path = tmp_path / "acme_10k.md"
    unit = "In April 2021, the Board increased our quarterly cash dividend from $0.70 to $0.79."
    path.write_text(f"# Dividends\n\n{unit}\n", encoding="utf-8")
    chunks = chunk_document(parse_file(path), rel_path=path.name)
    cit = make_citation(chunks[0], unit)
    assert cit is not None
    question = "By how much did ACME increase its quarterly cash dividend in April 2021?"
    got = prose_change(question, [Evidence(unit, 1.0, cit)], iter(chunks),
                       TOK.key_terms(question), TOK, make_citation)
    assert got is not None and got[2] == "amount_change", got
    assert got[0].startswith("$0.09 increase: from $0.70 to $0.79 — "), got[0]
