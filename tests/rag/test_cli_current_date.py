"""``loopgate ask --current-date`` (a trial: ``ask`` had no way to set the day a question
relative to today is read from; the HTTP API has ``current_date``): every mode computes the
fiscal date from it; a malformed date is a usage error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.settings import get_settings
from tests._support.files import write_texts

pytestmark = pytest.mark.integration

FINANCE = ("# Finance\n\n## Fiscal Year\n\n- Q1: February 1 through April 30\n"
           "- Q2: May 1 through July 31\n- Q3: August 1 through October 31\n"
           "- Q4: November 1 through January 31\n")


def test_ask_reads_the_day_from_current_date(tmp_path: Path, embed_model_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    docs = write_texts(tmp_path / "docs", {"finance.md": FINANCE})
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", str(embed_model_path))
    monkeypatch.setenv("LOOPGATE_REDIS_URL", "")
    get_settings.cache_clear()
    try:
        res = CliRunner().invoke(app, ["ingest", str(docs), "--collection", "fin"])
        assert res.exit_code == 0, res.output
        q = "What was the end date of the fiscal quarter that preceded the current one?"
        for mode in ("rag", "loop", "auto"):
            res = CliRunner().invoke(app, ["ask", q, "-c", "fin", "--mode", mode, "--json",
                                           "--current-date", "2025-11-11"])
            assert res.exit_code == 0, res.output
            data = json.loads(res.stdout)
            assert data["found"] and data["answer"].startswith("2025-10-31"), (mode, data)
        bad = CliRunner().invoke(app, ["ask", q, "-c", "fin", "--current-date", "2025-13-40"])
        assert bad.exit_code == 2 and "--current-date" in bad.output
    finally:
        get_settings.cache_clear()
