"""While another process holds the data directory (a running ``loopgate serve``), ``loopgate
ask``, ``chat`` and ``eval`` say so once and exit 1. Found by a new-user trial: ask printed the
message 3 times (a log error, inside "document resolver not warmed up (StoreError: …)", then
``error:``), chat ``error: error: …``, eval --limit 1 eleven lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from corpus.qdrant_store import QdrantChunkStore

pytestmark = pytest.mark.integration

LOOPGATE = Path(sys.executable).parent / "loopgate"


def test_a_held_data_directory_is_said_once(tmp_path: Path, embed_model_path: Path) -> None:
    data = tmp_path / "data"
    holder = QdrantChunkStore.embedded(data / "qdrant")  # as `loopgate serve` holds it
    holder.ensure_collection("demo", dense_dim=None, embed_model=None)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    env.update(LOOPGATE_DATA_DIR=str(data), LOOPGATE_EMBED_MODEL_PATH=str(embed_model_path),
               COLUMNS="200")
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "q1", "question": "warranty?", "answer": "3 years", '
                 '"source_dataset": "x", "lang": "en"}\n')
    commands = {
        "ask": ["ask", "warranty?", "--collection", "demo"],
        "chat": ["chat", "--collection", "demo"],
        "eval": ["eval", str(q), "--collection", "demo", "--limit", "1",
                 "--out", str(tmp_path / "ev")],
    }
    try:
        for name, args in commands.items():
            r = subprocess.run([str(LOOPGATE), *args], env=env, cwd=tmp_path, input="/quit\n",
                               capture_output=True, text=True, timeout=300)
            out = r.stdout + r.stderr
            assert r.returncode == 1, (name, out)
            assert out.count("held by another") == 1, (name, out)
            assert "error: error:" not in out, (name, out)
    finally:
        holder.close()
