"""Slow start-up work says what it does (found by a new-user trial: the first ``loopgate ask``
loaded the embedding model for ~13 s in silence): a spinner on a terminal, a line on stderr
off one — only for a step that is slow, and never from the server's components."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from gateway.cli import app
from gateway.cli._status import slow_step
from gateway.settings import get_settings


def test_off_a_terminal_only_a_slow_step_says_what_it_does() -> None:
    out = io.StringIO()
    log = Console(file=out, width=60)
    with slow_step(log, "loading the embedding model …", after_s=0.5):
        pass  # quick: nothing
    assert out.getvalue() == ""
    with slow_step(log, "loading the embedding model …", after_s=0.1):
        time.sleep(0.4)
    lines = out.getvalue().splitlines()
    assert lines[0] == "loading the embedding model …"
    assert lines[1].startswith("loading the embedding model … done in 0.") and len(lines) == 2


def test_on_a_terminal_a_spinner_shows_the_step() -> None:
    out = io.StringIO()
    term = Console(file=out, force_terminal=True, width=60)
    with slow_step(term, "loading the embedding model …"):
        time.sleep(0.3)
    assert "loading the embedding model …" in out.getvalue()
    assert "done in" not in out.getvalue()  # the spinner goes, no line stays


@pytest.mark.integration
def test_ask_says_it_loads_the_model_on_stderr_only(
        tmp_path: Path, embed_model_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``loopgate ask --json`` with the real model (SLOW_AFTER_S 0: every step counts as
    slow): stderr names the model loading and the dictionary, stdout is the JSON alone; the
    components a server builds (no ``step``) say nothing."""
    import gateway.cli._status as status
    from gateway.wiring import build_components

    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", str(embed_model_path))
    get_settings.cache_clear()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text("# FAQ\n\nThe warranty period is three years.\n")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(docs), "--collection", "s"]).exit_code == 0
    monkeypatch.setattr(status, "SLOW_AFTER_S", 0.0)
    res = runner.invoke(app, ["ask", "What is the warranty period?", "--collection", "s",
                              "--json"])
    assert res.exit_code == 0, res.output
    assert "three years" in json.loads(res.stdout)["answer"]
    err = res.stderr.splitlines()
    assert "loading the embedding model …" in err, err
    assert any(ln.startswith("loading the embedding model … done in ") for ln in err), err
    assert "loading the cross-language dictionary …" in err, err
    capsys.readouterr()
    c = build_components(get_settings())  # as the server's lifespan does
    try:
        assert c.embedder is not None
    finally:
        import asyncio

        asyncio.run(c.aclose())
    assert "loading" not in capsys.readouterr().err
