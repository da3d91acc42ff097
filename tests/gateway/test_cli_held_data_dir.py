"""A data directory held by another process (e.g. `loopgate serve`) makes every CLI command
fail clearly with exit code 1 — never a silent "not found" or an eval of zeros (found by a
new-user trial)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app

HOLDER = """
import sys, time
from corpus.qdrant_store import QdrantChunkStore
store = QdrantChunkStore.embedded(sys.argv[1])
store.collection_meta("c")
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def held_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "policy.md").write_text("# 退货\n\n退货期限为 7 天，自签收之日起计算。\n" * 3)
    data = tmp_path / "data"
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(data))
    runner = CliRunner()
    res = runner.invoke(app, ["ingest", str(docs), "--collection", "c", "--no-embed"])
    assert res.exit_code == 0, res.output
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data / "qdrant")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield runner
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.integration
@pytest.mark.parametrize("mode", ["rag", "loop"])
def test_ask_on_a_held_data_dir_fails_clearly(held_data_dir: CliRunner, mode: str) -> None:
    args = ["ask", "退货期限是几天？", "--collection", "c", "--mode", mode]
    res = held_data_dir.invoke(app, args)
    assert res.exit_code == 1, res.output
    assert "held by another LoopGate process" in " ".join(res.output.split())  # rich wraps


@pytest.mark.integration
def test_eval_on_a_held_data_dir_fails_clearly(held_data_dir: CliRunner, tmp_path: Path) -> None:
    qs = tmp_path / "q.jsonl"
    qs.write_text(
        '{"id": "t:1", "question": "退货期限是几天？", "answer": "7 天", "doc": "policy.md",'
        ' "page": null, "section": null, "source_dataset": "t", "lang": "zh-Hans"}\n'
    )
    res = held_data_dir.invoke(
        app, ["eval", str(qs), "--collection", "c", "--mode", "rag", "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 1, res.output
    assert "held by another LoopGate process" in " ".join(res.output.split())  # rich wraps
