"""The ``loopgate`` console script (Typer). Each command lives in its own module here and is
registered below; commands build components from :func:`gateway.settings.get_settings`.

Commands of packages above the gateway register through the ``loopgate.commands`` entry-point
group (``register(app)``), so the gateway never imports them: ``loopgate eval`` comes from
``evals.cli`` that way (``pyproject.toml``).
"""

from __future__ import annotations

from importlib.metadata import entry_points

import typer

from gateway.cli import ask, calibrate, chat, ingest, init, serve

__all__ = ["app", "main"]

app = typer.Typer(
    name="loopgate",
    help="LoopGate: document question answering — fast hybrid RAG, deep-reading LoopAgent, one gateway.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """LoopGate command line."""


# Registered in the order shown in --help: the plugged-in commands (eval) before serve.
for _module in (init, ingest, ask, chat, calibrate):
    _module.register(app)
for _entry in sorted(entry_points(group="loopgate.commands"), key=lambda e: e.name):
    _entry.load()(app)
serve.register(app)


def main() -> None:
    """Entry point of the ``loopgate`` console script."""
    app()
