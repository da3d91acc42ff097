"""An empty question is refused in one wording, the field named once (a new-user trial read
"question: question is empty"): over HTTP (400, gateway.errors.validation_message), by
``loopgate ask`` (exit 2) and by ``loopgate chat`` (an error line, the session goes on), for a
blank question and for one of punctuation or invisible characters alone."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gateway.api.routes.query import parse_query_request
from gateway.cache.normalize import empty_question
from gateway.cli import app
from gateway.errors import BadRequest, validation_message

ONLY_PUNCTUATION = "question is empty (only punctuation, blanks or invisible characters)"


@pytest.mark.parametrize(("raw", "message"), [
    (b'{"question": ""}', "question is empty"),
    (b'{"question": "   "}', "question is empty"),
    (b'{"question": " ?? "}', ONLY_PUNCTUATION),
    (b'{"question": "\\u200b"}', ONLY_PUNCTUATION),
    # pydantic's own texts still say which field
    (b"{}", "question: Field required"),
    (b'{"question": 3}', "question: Input should be a valid string"),
    (b'{"question": "x", "mode": "fast"}', "mode: Input should be 'auto', 'rag' or 'loop'"),
])
def test_the_http_message_names_the_field_once(raw: bytes, message: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_query_request(raw)
    assert caught.value.status == 400
    assert caught.value.message == message


def test_a_validators_text_is_prefixed_only_when_it_does_not_name_its_field() -> None:
    errors = [{"type": "value_error", "loc": ("body", "question"),
               "msg": "Value error, question is empty"},
              {"type": "value_error", "loc": ("body", "history", 0, "content"),
               "msg": "Value error, too long"}]
    assert validation_message(errors) == "question is empty; history.0.content: too long"


def test_one_wording_for_every_entry_point() -> None:
    assert empty_question("") == empty_question(" \n") == "question is empty"
    assert empty_question("，。") == ONLY_PUNCTUATION
    assert empty_question("Why?") is None and empty_question("多少钱？") is None


@pytest.mark.parametrize(("question", "message"), [("", "question is empty"),
                                                   ("  ", "question is empty"),
                                                   (" ?? ", "question is empty (only")])
def test_loopgate_ask_refuses_an_empty_question(question: str, message: str) -> None:
    result = CliRunner().invoke(app, ["ask", question])
    assert result.exit_code == 2, result.output
    flat = " ".join(result.output.replace("│", " ").split())
    assert message in flat and "question: question" not in flat.lower()
    assert "QUESTION: the question" not in flat


@pytest.mark.integration
def test_loopgate_chat_refuses_punctuation_alone(tmp_path, monkeypatch) -> None:
    from gateway.settings import get_settings

    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text("# FAQ\n\n## Warranty\nThe warranty period is three years.\n",
                                 encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", str(docs), "--collection", "c", "--no-embed"])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, ["chat", "--collection", "c"],
                                input="??\nWhat is the warranty period?\n/quit\n")
    assert result.exit_code == 0, result.output
    assert "error: " + ONLY_PUNCTUATION in " ".join(result.output.split())
    assert "three years" in result.output
    assert "1 questions" in result.output  # "??" was not asked
