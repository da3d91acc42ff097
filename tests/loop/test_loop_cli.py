"""``loopgate ask "…" --collection NAME --mode loop`` on a real data directory (keyword-only
embedded Qdrant, case 22's documents ingested by the corpus Ingestor)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from gateway.cli import app


@pytest.fixture
def data_dir(tmp_path: Path, case22_dir: Path, tokenizer: Tokenizer,
             monkeypatch: pytest.MonkeyPatch) -> Path:
    store = QdrantChunkStore.embedded(tmp_path / "qdrant")
    Ingestor(store, tokenizer, None, workers=1).ingest_paths([case22_dir / "kb"], "kb")
    store.close()
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path))
    return tmp_path


def test_ask_mode_loop_prints_answer_citations_trace(data_dir: Path):
    result = CliRunner().invoke(app, ["ask", "电池保修多久？", "--collection", "kb",
                                      "--mode", "loop"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "电池保修一年" in out and "warranty.md" in out and "p.1 | line 4" in out
    assert "steps" in out and "search" in out and "read" in out
    assert "brain offline" in out and "tokens 0+0" in out


def test_ask_mode_loop_json(data_dir: Path):
    result = CliRunner().invoke(app, ["ask", "电池保修多久？", "--collection", "kb",
                                      "--mode", "loop", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["found"] and data["citations"][0]["lines"][0] == 4
    assert data["stop_reason"] == "answer" and data["steps"][0]["tool"] == "search"


def test_ask_mode_loop_says_where_a_handed_back_question_goes(data_dir: Path):
    """A question with no key terms is handed back (fallback_to_rag); --mode loop runs no RAG
    path, so the output says which mode answers it (fresh-user trial: it only said "handed
    back to RAG" and nothing followed)."""
    # words, none of them a key term ("？？！！" alone is refused as empty, exit 2)
    result = CliRunner().invoke(app, ["ask", "What are all of these about?", "--collection", "kb",
                                      "--mode", "loop"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "not found" in out and "fallback_to_rag" in out and "--mode auto" in out
