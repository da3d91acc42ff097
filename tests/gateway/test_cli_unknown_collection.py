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
