"""``loopgate ask`` on a collection that does not exist fails the same way in every mode: exit
code 1 and the message naming the fix (found by a new-user trial: ``--mode auto`` printed
"Not found: collection 'nope' holds no documents yet" and exited 0, while rag and loop said the
collection does not exist and exited 1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.settings import get_settings

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _fresh_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", "")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize("mode", ["rag", "loop", "auto"])
def test_unknown_collection_exits_1_in_every_mode(mode: str) -> None:
    result = CliRunner().invoke(app, ["ask", "who descales the machine?",
                                      "--collection", "nope", "--mode", mode])
    assert result.exit_code == 1, result.output
    assert "collection 'nope' does not exist (loopgate ingest DIR --collection nope)" in (
        result.output
    )
