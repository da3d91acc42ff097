"""``loopgate chat`` driven with piped standard input (Typer's CliRunner): one process, several
questions, the commands, and the per-question wall time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from gateway.settings import get_settings

pytestmark = pytest.mark.integration


@pytest.fixture
def collection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "spec_zh.md").write_text(
        "# 参数\n\n## 功率\n型号FW-301的额定功率为8kW。\n", encoding="utf-8")
    (docs / "faq.md").write_text(
        "# FAQ\n\n## Warranty\nThe warranty period is three years from acceptance.\n\n"
        "## Shipping\nStandard shipping takes five working days.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ingest", str(docs), "--collection", "chat", "--no-embed"])
    assert result.exit_code == 0, result.output
    return "chat"


def _chat(collection: str, lines: list[str]) -> str:
    """``loopgate chat`` fed ``lines``; its output (asserting exit code 0)."""
    result = CliRunner().invoke(app, ["chat", "--collection", collection],
                                input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    return result.output


def test_chat_answers_several_questions_in_one_process(collection: str) -> None:
    out = _chat(collection, [
        "What is the warranty period?",
        "/mode rag",
        "How long does standard shipping take?",
        "Does it cost extra?",  # a follow-up: rewritten with the previous question's topic
        "/sources",
        "/mode loop",
        "FW-301 的额定功率是多少？",
        "/mode nonsense",
        "/collection nope",
        "/new",
        "/quit",
        "this line is never read",
    ])
    assert "collection chat · mode auto" in out and "loaded in" in out
    assert "three years" in out and "five working days" in out and "8kW" in out
    assert "[1] faq.md | FAQ > Warranty | p.1 | line 4" in out
    assert "mode: rag" in out and "(mode=rag requested)" in out
    assert "(mode=loop requested)" in out
    # the route line names a path once unless the answer came from another one
    assert "route rag (mode=rag requested)" in out and "route rag → rag" not in out, out
    assert "chat: 2 documents" in out and "spec_zh.md" in out  # /sources
    assert "unknown or incomplete command" in out  # /mode nonsense
    assert "no collection 'nope' (there are: chat)" in out
    assert "conversation reset" in out
    walls = re.findall(r"wall time (\d+\.\d\d) s \(question (\d)\)", out)
    assert [n for _, n in walls] == ["1", "2", "3", "4"], out
    assert re.search(r"4 questions, wall time per question: [\d.]+, [\d.]+, [\d.]+, [\d.]+ s", out)
    # the rewritten follow-up is shown; 'it' is the section the session memory's last answer
    # cited (with history only, the previous question's words: 'Does standard shipping take …')
    assert "read as: Does Shipping cost extra?" in out, out
    assert "never read" not in out


def test_chat_unknown_collection_exits_1(collection: str) -> None:
    result = CliRunner().invoke(app, ["chat", "--collection", "missing"], input="hello\n")
    assert result.exit_code == 1
    assert "no collection 'missing' (there are: chat" in result.output


def test_chat_leaves_a_new_standalone_question_as_asked(collection: str) -> None:
    """A new question that names its own subject, asked after an unrelated one, is answered as
    asked: it used to be read as the previous question followed by the new one ('its' fired the
    follow-up test) and answered from the shipping section."""
    out = _chat(collection, [
        "How long does standard shipping take?",
        "Does the warranty period start from the acceptance of its delivery?",
        "/quit",
    ])
    assert "five working days" in out and "three years" in out, out
    assert "read as:" not in out, out
