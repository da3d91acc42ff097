"""``loopgate ask`` on a collection that does not exist fails the same way in every mode: exit
code 1 and the message naming the fix (found by a new-user trial: ``--mode auto`` printed
"Not found: collection 'nope' holds no documents yet" and exited 0, while rag and loop said the
collection does not exist and exited 1)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gateway.cli import app

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("cli_home")]


@pytest.mark.parametrize("mode", ["rag", "loop", "auto"])
def test_unknown_collection_exits_1_in_every_mode(mode: str) -> None:
    result = CliRunner().invoke(app, ["ask", "who descales the machine?",
                                      "--collection", "nope", "--mode", mode])
    assert result.exit_code == 1, result.output
    out = " ".join(result.output.split())
    assert "collection 'nope' does not exist (loopgate ingest DIR --collection nope)" in out
    # a new-user trial: the message did not say which collections there are
    # ... nor, asked from another folder, which data directory was read (it names it)
    assert "no collection exists in " in out and "qdrant yet" in out, out


def test_unknown_collection_names_the_collections_that_exist(cli_home) -> None:
    (cli_home / "manual.md").write_text("# Care\n\nThe owner descales the machine monthly.\n")
    ingested = CliRunner().invoke(app, ["ingest", str(cli_home / "manual.md"),
                                        "--collection", "demo"])
    assert ingested.exit_code == 0, ingested.output
    result = CliRunner().invoke(app, ["ask", "who descales the machine?",
                                      "--collection", "nope", "--mode", "rag"])
    assert result.exit_code == 1, result.output
    assert "the collections here: demo; name one with --collection" in " ".join(
        result.output.split())


def test_an_invalid_collection_name_is_said_as_such() -> None:
    # a trial: `ask -c ../x` answered "does not exist (loopgate ingest DIR --collection ../x)",
    # a command that fails on the same name
    result = CliRunner().invoke(app, ["ask", "who descales the machine?",
                                      "--collection", "../x", "--mode", "rag"])
    assert result.exit_code == 1, result.output
    out = " ".join(result.output.split())
    assert "invalid collection name '../x'" in out and "--collection ../x" not in out, out
