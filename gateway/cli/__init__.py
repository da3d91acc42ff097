"""The ``loopgate`` console script (Typer). Each command lives in its own module here and is
registered below; commands build components from :func:`gateway.settings.get_settings`."""

from __future__ import annotations

import importlib

import typer

__all__ = ["app", "main"]

app = typer.Typer(
    name="loopgate",
    help="LoopGate: document question answering — fast hybrid RAG, deep-reading LoopAgent, one gateway.",
    no_args_is_help=True,
    add_completion=False,
)

# Command modules; each defines ``register(app)``. Listed in the order shown in --help.
_COMMAND_MODULES: list[str] = [
    "gateway.cli.init",
    "gateway.cli.ingest",
    "gateway.cli.ask",
    "gateway.cli.chat",
    "gateway.cli.calibrate",
    "gateway.cli.eval",
    "gateway.cli.serve",
]



@app.callback()
def _root() -> None:
    """LoopGate command line."""


for _name in _COMMAND_MODULES:
    importlib.import_module(_name).register(app)


def main() -> None:
    """Entry point of the ``loopgate`` console script."""
    app()
