"""Setup without traps (issue 21 item 4): ``loopgate init`` writes absolute paths; relative
paths in a settings file are read against the file's folder, not the working directory; a
collection with dense vectors is not silently answered keyword-only when no model is loaded."""

from __future__ import annotations

import json
from pathlib import Path

import platformdirs
import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.settings import get_settings

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _fresh_settings() -> None:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_init_writes_absolute_paths_and_says_where_data_lives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embed_model_path: Path
) -> None:
    model = tmp_path / "models" / "e5"
    model.parent.mkdir()
    model.symlink_to(embed_model_path, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["init", "--data-dir", "state",
                                      "--embed-model-path", "models/e5"])
    assert result.exit_code == 0, result.output
    env = tmp_path / "loopgate.env"
    text = env.read_text(encoding="utf-8")
    assert f"LOOPGATE_DATA_DIR={tmp_path / 'state'}\n" in text
    assert f"LOOPGATE_EMBED_MODEL_PATH={model.resolve()}\n" in text and "LOOPGATE_PORT=8000" in text
    assert f"data lives in        {tmp_path / 'state'}" in result.output
    assert f"export LOOPGATE_ENV_FILE={env}" in result.output
    again = CliRunner().invoke(app, ["init"])
    assert again.exit_code == 2 and "exists" in again.output
    bad = CliRunner().invoke(app, ["init", "-f", "other.env", "--embed-model-path", "state"])
    assert bad.exit_code == 2 and "no ONNX model" in bad.output


def test_an_unread_settings_file_in_the_working_directory_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new terminal after the quickstart (no LOOPGATE_ENV_FILE): every command but init says
    that ./loopgate.env is not read and how to read it."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "default-data"))
    (tmp_path / "loopgate.env").write_text(f"LOOPGATE_DATA_DIR={tmp_path / 'data'}\n",
                                           encoding="utf-8")
    note = f"is not read because LOOPGATE_ENV_FILE is not set (export LOOPGATE_ENV_FILE={tmp_path}"
    result = CliRunner().invoke(app, ["ask", "q", "--collection", "demo"])
    assert result.exit_code == 1 and note in result.output, result.output
    assert "collection 'demo' does not exist" in result.output
    assert note not in CliRunner().invoke(app, ["init"]).output  # init: "exists" only
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(tmp_path / "loopgate.env"))
    assert note not in CliRunner().invoke(app, ["ask", "q", "--collection", "demo"]).output


def test_relative_paths_are_read_against_the_settings_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "loopgate.env").write_text(
        "LOOPGATE_DATA_DIR=data\nLOOPGATE_EMBED_MODEL_PATH=../models/e5\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(conf / "loopgate.env"))
    s = get_settings()
    assert s.data_dir == conf / "data"
    assert s.embed_model_path == tmp_path / "models" / "e5"
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(conf / "missing.env"))
    get_settings.cache_clear()
    with pytest.raises(FileNotFoundError, match="no such settings file"):
        get_settings()


def test_dense_collection_without_model_is_an_error_naming_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embed_model_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text("# FAQ\n\n## Warranty\nThe warranty period is three years.\n",
                                 encoding="utf-8")
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", str(embed_model_path))
    result = CliRunner().invoke(app, ["ingest", str(docs), "--collection", "d"])
    assert result.exit_code == 0, result.output
    monkeypatch.delenv("LOOPGATE_EMBED_MODEL_PATH")
    for mode in ("rag", "auto", "loop"):
        get_settings.cache_clear()
        r = CliRunner().invoke(app, ["ask", "warranty period?", "-c", "d", "--mode", mode])
        assert r.exit_code == 1, (mode, r.output)
        assert "holds dense vectors" in r.output and "LOOPGATE_EMBED_MODEL_PATH" in r.output
        assert "LOOPGATE_ALLOW_KEYWORD_ONLY" in r.output
    monkeypatch.setenv("LOOPGATE_ALLOW_KEYWORD_ONLY", "true")
    get_settings.cache_clear()
    r = CliRunner().invoke(app, ["ask", "warranty period?", "-c", "d", "--mode", "auto",
                                 "--json"])
    assert r.exit_code == 0, r.output
    body = json.loads(r.stdout)
    assert "three years" in body["answer"] and "keyword_only" in body["route"]["flags"]


def test_blank_paths_mean_the_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LOOPGATE_EMBED_MODEL_PATH=`` (e.g. a compose file's unset ``${MODEL}``) is "no model
    folder", not the settings file's folder; a blank ``LOOPGATE_DATA_DIR`` is the user data
    folder, not the working directory (state was written into the current folder)."""
    (tmp_path / "loopgate.env").write_text(
        "LOOPGATE_DATA_DIR=\nLOOPGATE_EMBED_MODEL_PATH=\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOOPGATE_DATA_DIR", raising=False)
    monkeypatch.delenv("LOOPGATE_EMBED_MODEL_PATH", raising=False)
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(tmp_path / "loopgate.env"))
    default = Path(platformdirs.user_data_dir("loopgate", appauthor=False))
    s = get_settings()
    assert (s.data_dir, s.embed_model_path) == (default, None)
    monkeypatch.delenv("LOOPGATE_ENV_FILE")
    monkeypatch.setenv("LOOPGATE_DATA_DIR", "  ")
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", "")
    get_settings.cache_clear()
    s = get_settings()
    assert (s.data_dir, s.embed_model_path) == (default, None)


def test_init_enables_redis_when_one_answers(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a new-user trial: the quickstart never enabled Redis (no LOOPGATE_REDIS_URL in
    the file, /readyz: redis disabled) though the README promises its cache and sessions. A
    Redis answering a PING at the default address (this machine's, 127.0.0.1:6379) is written
    and said; none answering is said with how to enable it."""
    import redis as redis_lib

    try:
        redis_lib.Redis.from_url("redis://127.0.0.1:6379/0", socket_timeout=1).ping()
    except Exception:  # noqa: BLE001
        pytest.skip("no Redis at 127.0.0.1:6379")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["init", "--data-dir", "state"])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "loopgate.env").read_text(encoding="utf-8")
    assert "LOOPGATE_REDIS_URL=redis://127.0.0.1:6379/0\n" in text
    assert "redis://127.0.0.1:6379/0 answers" in result.output
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(tmp_path / "loopgate.env"))
    get_settings.cache_clear()
    assert get_settings().redis_url == "redis://127.0.0.1:6379/0"
    # this installation's keys apart from another's on the same Redis (new-user trial: the
    # default prefix's route log held another checkout's questions)
    from gateway.cli.init import install_prefix

    prefix = get_settings().redis_key_prefix
    assert prefix == install_prefix(tmp_path / "state") and prefix.startswith("loopgate:")
    assert prefix != install_prefix(tmp_path / "other")
    none = CliRunner().invoke(app, ["init", "-f", "b.env", "--redis-url", "redis://127.0.0.1:1/0"])
    assert none.exit_code == 0, none.output
    lines = (tmp_path / "b.env").read_text().splitlines()
    assert not [ln for ln in lines if ln.startswith("LOOPGATE_REDIS_URL=")], lines
    assert "none answers at redis://127.0.0.1:1/0" in none.output
    assert "LOOPGATE_REDIS_URL=redis://" in " ".join(none.output.split())
    # --redis-url "" is a choice, not a Redis that did not answer (new-user trial)
    off = CliRunner().invoke(app, ["init", "-f", "c.env", "--redis-url", ""])
    assert off.exit_code == 0, off.output
    assert "redis none (--redis-url \"\")" in " ".join(off.output.split())
    assert "not asked" not in off.output and "to enable" not in off.output


@pytest.mark.parametrize("url", ["notaurl", "127.0.0.1:6379", "http://127.0.0.1:6379"])
def test_init_refuses_a_redis_url_without_a_redis_scheme(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    # a hostile-input trial: "notaurl" was probed at 127.0.0.1:6379, said to answer and written,
    # and every command then stopped on "LOOPGATE_REDIS_URL 'notaurl' has no scheme"
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["init", "--data-dir", "state", "--redis-url", url])
    assert result.exit_code == 2, result.output
    assert f"--redis-url {url!r} has" in result.output and "nothing written" in result.output
    assert not (tmp_path / "loopgate.env").exists()


def test_init_says_when_the_file_or_the_data_folder_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a break-it trial: --file under /proc ended in a FileNotFoundError traceback, and a data
    # folder that cannot be created was written and exited 0 (ingest then failed in Qdrant)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain").write_text("a file, not a folder\n")
    bad_data = CliRunner().invoke(app, ["init", "--data-dir", "plain/state", "--redis-url", ""])
    assert bad_data.exit_code == 2, bad_data.output
    out = " ".join(bad_data.output.split())
    assert f"the data folder {tmp_path / 'plain' / 'state'} cannot be created" in out, out
    assert "nothing written" in out and not (tmp_path / "loopgate.env").exists()
    bad_file = CliRunner().invoke(app, ["init", "--file", "plain/x.env", "--data-dir", "state",
                                        "--redis-url", ""])
    assert bad_file.exit_code == 2, bad_file.output
    assert f"error: {tmp_path / 'plain' / 'x.env'} cannot be written" in " ".join(
        bad_file.output.split())
    assert "Traceback" not in bad_file.output
