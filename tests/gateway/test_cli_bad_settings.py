"""A bad setting ends every command with one line naming it, exit code 2, as ``loopgate serve``
did already (found by a new-user trial: ``LOOPGATE_ENV_FILE`` naming no file, or
``LOOPGATE_RAG_TOP_K=abc``, ended ``loopgate ask`` with a FileNotFoundError / ValidationError
traceback)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.settings import get_settings


@pytest.fixture(autouse=True)
def _fresh_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


COMMANDS = [["ask", "q", "--collection", "c"], ["ingest", ".", "--collection", "c"],
            ["chat", "--collection", "c"]]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_settings_file_that_does_not_exist_is_one_line(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(tmp_path / "nowhere.env"))
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"error: LOOPGATE_ENV_FILE={tmp_path / 'nowhere.env'}: no such settings file" in (
        result.output
    )


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_settings_file_that_is_not_utf8_is_one_line(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile-input trial: bytes that are not UTF-8 in the settings file ended the command
    with a UnicodeDecodeError traceback from inside pydantic-settings."""
    env = tmp_path / "latin.env"
    env.write_bytes(b"LOOPGATE_DATA_DIR=/tmp/x\nLOOPGATE_LOOP_DEADLINE_S=\xff\xfe\n")
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(env))
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"error: LOOPGATE_ENV_FILE={env}: line 2 is not UTF-8 text" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_a_settings_file_line_that_is_no_setting_is_one_line(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile-input trial: a line "this is not a kv line" was skipped after python-dotenv's
    warning, printed twice without the file's name, and the command went on."""
    env = tmp_path / "typo.env"
    env.write_text("# settings\nthis is not a kv line\nLOOPGATE_RAG_TOP_K=5\n", "utf-8")
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(env))
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"error: LOOPGATE_ENV_FILE={env}: line 2 is not a NAME=value line" in result.output
    assert "python-dotenv" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_an_invalid_setting_is_named(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv("LOOPGATE_RAG_TOP_K", "abc")
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2, (result.output, result.exception)
    assert "error: LOOPGATE_RAG_TOP_K is invalid" in result.output


@pytest.mark.parametrize("value", ["inf", "-inf", "1e400", "nan"])
@pytest.mark.parametrize("name", ["LOOPGATE_LLM_PROBE_TIMEOUT_S", "LOOPGATE_TIMEOUT_SEARCH_S",
                                  "LOOPGATE_LOOP_DEADLINE_S", "LOOPGATE_REQUEST_DEADLINE_S"])
def test_a_number_that_is_not_finite_is_named(name: str, value: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``inf`` passed ``gt=0``: LOOPGATE_LLM_PROBE_TIMEOUT_S=inf then failed the speed probe
    with an OverflowError and LOOPGATE_TIMEOUT_SEARCH_S=inf emptied the LoopAgent's searches;
    every number setting is now a finite one, refused in one line like any bad value."""
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["ask", "q", "--collection", "c"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"error: {name} is invalid" in result.output


def test_a_name_in_the_settings_file_that_is_no_setting_is_warned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hostile-input trial: ``LOOPGATE_RAG_TOPK=3`` in the settings file was ignored without a
    word. The command still runs, with a warning naming the closest setting; a name without the
    prefix (another tool's, in a shared file) is left alone."""
    env = tmp_path / "typo.env"
    env.write_text(f"LOOPGATE_DATA_DIR={tmp_path / 'data'}\nLOOPGATE_RAG_TOPK=3\n"
                   "LOOPGATE_NOTHING_LIKE_IT=1\nCOMPOSE_PROJECT_NAME=x\n", encoding="utf-8")
    monkeypatch.setenv("LOOPGATE_ENV_FILE", str(env))
    result = CliRunner().invoke(app, ["ask", "q", "--collection", "c"])
    out = " ".join(result.output.split())
    assert (f"warning: LOOPGATE_RAG_TOPK in {env} is not a setting, ignored "
            "(did you mean LOOPGATE_RAG_TOP_K?)") in out, out
    assert f"warning: LOOPGATE_NOTHING_LIKE_IT in {env} is not a setting, ignored" in out
    assert "COMPOSE_PROJECT_NAME" not in out


@pytest.mark.parametrize("name", ["LOOPGATE_LLM_BASE_URL", "LOOPGATE_QDRANT_URL",
                                  "LOOPGATE_LEGACY_RAG_URL"])
def test_a_url_setting_that_is_no_url_is_named(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile-input trial: ``LOOPGATE_LLM_BASE_URL=not-a-url`` was accepted; now every URL
    setting is an http(s) URL or empty."""
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv(name, "not-a-url")
    result = CliRunner().invoke(app, ["ask", "q", "--collection", "c"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"error: {name} is invalid" in result.output and "not an http(s) URL" in (
        " ".join(result.output.split()))


@pytest.mark.parametrize(("name", "value", "said"), [
    # a break-it trial: LOOPGATE_DEFAULT_COLLECTION=../x started, then every request naming no
    # collection got a 400 blaming the client
    ("LOOPGATE_DEFAULT_COLLECTION", "../x", "should match pattern"),
    # ... and LOOPGATE_UPLOAD_EXTENSIONS=["exe", ".MD"] was taken as is
    ("LOOPGATE_UPLOAD_EXTENSIONS", '["exe", ".MD"]', "not a file extension: 'exe'"),
])
def test_a_setting_out_of_its_form_is_named(name: str, value: str, said: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["ask", "q", "--collection", "c"])
    assert result.exit_code == 2, (result.output, result.exception)
    out = " ".join(result.output.split())
    assert f"error: {name} is invalid" in out and said in out, out


def test_upload_extensions_are_compared_in_lower_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPGATE_UPLOAD_EXTENSIONS", '[".MD", ".pdf"]')
    assert get_settings().upload_extensions == [".md", ".pdf"]


def test_a_list_setting_that_is_no_json_shows_its_own_example(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a break-it trial: LOOPGATE_ADMIN_KEYS=k1 was told "e.g. [".pdf", ".md"]"
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv("LOOPGATE_ADMIN_KEYS", "k1")
    result = CliRunner().invoke(app, ["ask", "q", "--collection", "c"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert 'error: LOOPGATE_ADMIN_KEYS is malformed: expected a JSON list, e.g. ["k1", "k2"]' in (
        result.output)
