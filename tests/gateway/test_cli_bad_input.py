"""Bad input at the CLI: a question whose bytes are not UTF-8 (argv and stdin are decoded with
``surrogateescape``, so a Latin-1 terminal hands Python lone surrogates) is a usage error for
``loopgate ask`` and one error line in ``loopgate chat`` — it used to end both with a
UnicodeEncodeError traceback from the tokenizer (OpenCC encodes the text as UTF-8)."""

from __future__ import annotations

import asyncio

from rich.console import Console
from typer.testing import CliRunner

from gateway.cli import app
from gateway.cli.ask import not_utf8
from gateway.cli.chat import ChatSession

LATIN1 = b"caf\xe9 \xff?".decode("utf-8", "surrogateescape")


def test_not_utf8_names_the_byte() -> None:
    assert not_utf8("网络日志 café") == ""
    assert "0xe9" in not_utf8(LATIN1) and "character 4" in not_utf8(LATIN1)


def test_ask_refuses_a_question_that_is_not_utf8() -> None:
    result = CliRunner().invoke(app, ["ask", LATIN1, "--collection", "c"])
    assert result.exit_code == 2, result.output
    assert "not UTF-8" in result.output
    assert "Traceback" not in result.output


def test_ask_refuses_a_question_longer_than_the_api_takes() -> None:
    """``loopgate ask`` answered a 5,000-character question that /v1/query refuses (break-it
    trial): one limit on every entry point, ``QUESTION_MAX_CHARS``."""
    from gateway.routing.types import QUESTION_MAX_CHARS

    result = CliRunner().invoke(app, ["ask", "x" * (QUESTION_MAX_CHARS + 1), "--collection", "c"])
    assert result.exit_code == 2, result.output
    assert "4,001 characters" in result.output and "Traceback" not in result.output


def test_chat_says_so_and_goes_on() -> None:
    console = Console(record=True, width=200)
    session = ChatSession(None, "c", "rag", console)  # the check comes before any component
    with asyncio.Runner() as runner:
        assert session.handle(LATIN1, runner) is True
    out = console.export_text()
    assert "not UTF-8" in out and "0xe9" in out
    assert session.history == []


def test_chat_refuses_a_line_longer_than_the_api_takes() -> None:
    """``loopgate chat`` answered a 20,000-character line and kept it in the session, gluing
    the next question to it (break-it trial); ``ask`` and HTTP refuse over 4,000."""
    from gateway.routing.types import QUESTION_MAX_CHARS

    console = Console(record=True, width=200)
    session = ChatSession(None, "c", "rag", console)  # the check comes before any component
    with asyncio.Runner() as runner:
        assert session.handle("x" * (QUESTION_MAX_CHARS + 1), runner) is True
    assert "4,001 characters" in console.export_text()
    assert session.history == []
