"""Secure by default (issue 20 item 6): serving a non-loopback address needs API keys or an
explicit --allow-anonymous."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.cli import serve as serve_mod


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "::", "gateway.example"])
def test_non_loopback_without_keys_refuses_to_start(monkeypatch, tmp_path, host) -> None:
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LOOPGATE_API_KEYS", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", host])
    assert result.exit_code == 2, result.output
    assert "--allow-anonymous" in result.output and "LOOPGATE_API_KEYS" in result.output


@pytest.mark.parametrize(("host", "args", "env"), [
    ("127.0.0.1", [], {}), ("localhost", [], {}), ("::1", [], {}),
    ("0.0.0.0", ["--allow-anonymous"], {}),
    ("0.0.0.0", [], {"LOOPGATE_ALLOW_ANONYMOUS": "true"}),
    ("0.0.0.0", [], {"LOOPGATE_API_KEYS": '{"k-12345678": ["*"]}'}),
])
def test_loopback_keys_or_explicit_anonymous_start(monkeypatch, tmp_path, host, args, env) -> None:
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LOOPGATE_API_KEYS", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    ran: dict = {}
    monkeypatch.setattr("uvicorn.run", lambda app_, **kw: ran.update(kw))
    monkeypatch.setattr("gateway.main.create_app", lambda s: object())
    result = CliRunner().invoke(app, ["serve", "--host", host, *args])
    assert result.exit_code == 0, result.output
    assert ran["host"] == host and ran["timeout_graceful_shutdown"] == serve_mod.GRACEFUL_S
