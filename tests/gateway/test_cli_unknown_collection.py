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
    assert "collection 'nope' does not exist (loopgate ingest DIR --collection nope)" in (
        result.output
    )


def test_without_collection_the_only_collection_is_asked(cli_home, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Found by a new-user trial: after the quickstart (`ingest … --collection demo`),
    `loopgate chat` / `ask` without --collection failed "no collection 'default'". With
    LOOPGATE_DEFAULT_COLLECTION unset the only collection is the default; with two, 'default'
    (missing) is named as missing, as an unknown --collection is."""
    monkeypatch.delenv("LOOPGATE_DEFAULT_COLLECTION", raising=False)
    docs = cli_home / "docs"
    docs.mkdir()
    (docs / "faq.md").write_text("# FAQ\n\nThe warranty period is three years.\n")
    runner = CliRunner()
    assert runner.invoke(app, ["ingest", str(docs), "--collection", "demo"]).exit_code == 0
    res = runner.invoke(app, ["ask", "How long is the warranty period?", "--mode", "rag"])
    assert res.exit_code == 0, res.output
    assert "three years" in res.output
    res = runner.invoke(app, ["chat"], input="How long is the warranty period?\n/quit\n")
    assert "no collection" not in res.output and "three years" in res.output, res.output
    assert runner.invoke(app, ["ingest", str(docs), "--collection", "other"]).exit_code in (0, 1)
    res = runner.invoke(app, ["ask", "How long is the warranty period?", "--mode", "rag"])
    assert res.exit_code == 1 and "'default' does not exist" in res.output, res.output
