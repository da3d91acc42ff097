"""``loopgate ask --doc / --path-prefix`` restrict the answer in every mode (found by a new-user
trial: with ``--mode loop`` or ``auto`` both options were silently ignored and the answer cited
another document); ``--top-k`` is a RAG-path option, refused with the other modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app

pytestmark = pytest.mark.integration

QUESTION = "How long does the warranty of the pump last?"


@pytest.fixture(autouse=True)
def _collection(cli_home: Path) -> None:
    docs = cli_home / "docs"
    (docs / "alpha").mkdir(parents=True)
    (docs / "beta").mkdir()
    (docs / "alpha" / "a.md").write_text(
        "# Alpha pump\n\nThe warranty of the alpha pump lasts three years.\n", encoding="utf-8")
    (docs / "beta" / "b.md").write_text(
        "# Beta pump\n\nThe warranty of the beta pump lasts five years.\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["ingest", str(docs), "--collection", "c", "--workers", "1"])
    assert done.exit_code == 0, done.output


def cited(output: str) -> set[str]:
    body = json.loads(output[output.index("{"):])
    return {c["path"] for c in body["citations"]} | {c["path"] for c in body.get("related", [])}


@pytest.mark.parametrize("mode", ["rag", "loop", "auto"])
@pytest.mark.parametrize(("option", "path"), [(["--doc", "b.md"], "beta/b.md"),
                                              (["--path-prefix", "alpha/"], "alpha/a.md")])
def test_doc_and_path_prefix_restrict_every_mode(mode: str, option: list[str], path: str) -> None:
    result = CliRunner().invoke(
        app, ["ask", QUESTION, "--collection", "c", "--mode", mode, "--json", *option])
    assert result.exit_code == 0, result.output
    assert cited(result.output) == {path}


@pytest.mark.parametrize("mode", ["rag", "loop", "auto"])
def test_a_document_not_in_the_collection_is_an_error_in_every_mode(mode: str) -> None:
    result = CliRunner().invoke(
        app, ["ask", QUESTION, "--collection", "c", "--mode", mode, "--doc", "nothere.md"])
    assert result.exit_code == 1, result.output
    assert "no single document of 'c' matches 'nothere.md'" in result.output


@pytest.mark.parametrize("mode", ["loop", "auto"])
def test_top_k_is_refused_outside_rag(mode: str) -> None:
    result = CliRunner().invoke(
        app, ["ask", QUESTION, "--collection", "c", "--mode", mode, "--top-k", "3"])
    assert result.exit_code == 2, result.output
    assert "--top-k" in result.output and "--mode rag" in result.output
