from typer.testing import CliRunner

from gateway.cli import app


def test_help_lists_commands() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0, result.output
    assert "LoopGate" in result.output
