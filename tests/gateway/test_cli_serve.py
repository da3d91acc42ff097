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
        ("LOOPGATE_REDIS_URL", "127.0.0.1:6379", "has no scheme: expected redis://"),
        # break-it trial: "'ftp://x' has no scheme" — it has one, not a supported one
        ("LOOPGATE_REDIS_URL", "ftp://x", "has the unsupported scheme ftp://"),
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


@pytest.mark.parametrize("port", ["99999", "0", "-1"])
def test_a_port_outside_1_to_65535_is_a_usage_error(monkeypatch, tmp_path, port) -> None:
    """``serve --port`` is checked like ``init --port`` and ``LOOPGATE_PORT``: before,
    99999 logged 'running on :99999' while listening on 34463 (99999 mod 65536), and -1
    loaded everything, then failed with exit 3 (found by a bad-input test)."""
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    result = CliRunner().invoke(app, ["serve", "--port", port])
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "Invalid value for '--port'" in out, out
    assert "65535" in out or "greater than or equal to 1" in out, out
