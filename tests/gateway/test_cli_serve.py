"""``loopgate serve`` with a malformed setting: one line naming the variable and what it
expects, exit code 2, no traceback (found by a tester)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gateway.cli import app


@pytest.mark.parametrize(
    ("var", "value", "expected"),
    [
        ("LOOPGATE_UPLOAD_EXTENSIONS", ".txt", "a JSON list"),
        ("LOOPGATE_API_KEYS", "k-1234", "a JSON object"),
        ("LOOPGATE_API_KEYS", "[1]", "valid dictionary"),
        ("LOOPGATE_REDIS_URL", "127.0.0.1:6379", "redis://"),
        ("LOOPGATE_PORT", "eighty", "integer"),
    ],
)
def test_malformed_setting_is_one_line_exit_2(monkeypatch, tmp_path, var, value, expected) -> None:
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv(var, value)
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2, result.output
    out = result.output.strip()
    assert out.startswith(f"error: {var} ") and expected in out, out
    assert "Traceback" not in out and len(out.splitlines()) == 1, out
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
