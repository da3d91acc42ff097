"""The ``loopgate`` console script (Typer). Each command lives in its own module here and is
registered below; commands build components from :func:`gateway.settings.get_settings`.

Commands of packages above the gateway register through the ``loopgate.commands`` entry-point
group (``register(app)``), so the gateway never imports them: ``loopgate eval`` comes from
``evals.cli`` that way (``pyproject.toml``).
"""

from __future__ import annotations

import os
from importlib.metadata import entry_points
from pathlib import Path

import typer

from gateway.cli import ask, calibrate, chat, ingest, init, serve
from gateway.settings import unknown_settings

__all__ = ["app", "main", "unread_settings_note"]

app = typer.Typer(
    name="loopgate",
    help="LoopGate: document question answering — fast hybrid RAG, deep-reading LoopAgent, one gateway.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root(ctx: typer.Context) -> None:
    """LoopGate command line."""
    if ctx.invoked_subcommand != "init":
        unread_settings_note()
        unknown_settings_note()
        # a missing settings file or a malformed setting: one line and exit 2, not a traceback
        serve.load_settings()


def unread_settings_note() -> str | None:
    """Say on stderr (and return) that ``./loopgate.env`` is not read, when the working directory
    holds one and ``LOOPGATE_ENV_FILE`` is unset: settings are read only from the file that
    variable names, so a new terminal after the quickstart would otherwise use the default data
    folder and answer "collection 'demo' does not exist". ``None`` when there is nothing to say.
    """
    if os.environ.get("LOOPGATE_ENV_FILE", "").strip():
        return None
    here = Path("loopgate.env")
    if not here.is_file():
        return None
    note = (f"note: {here.resolve()} is not read because LOOPGATE_ENV_FILE is not set "
            f"(export LOOPGATE_ENV_FILE={here.resolve()})")
    typer.echo(note, err=True)
    return note


def unknown_settings_note() -> list[str]:
    """Warn on stderr (and return the lines) about ``LOOPGATE_*`` names in the settings file
    that are no setting, with the closest one (:func:`gateway.settings.unknown_settings`)."""
    env_file = os.environ.get("LOOPGATE_ENV_FILE", "").strip()
    path = Path(env_file).expanduser() if env_file else None
    if path is None or not path.is_file():
        return []
    lines = [f"warning: {name} in {path} is not a setting, ignored"
             + (f" (did you mean {near}?)" if near else "")
             for name, near in unknown_settings(path)]
    for line in lines:
        typer.echo(line, err=True)
    return lines


# Registered in the order shown in --help: the plugged-in commands (eval) before serve.
for _module in (init, ingest, ask, chat, calibrate):
    _module.register(app)
for _entry in sorted(entry_points(group="loopgate.commands"), key=lambda e: e.name):
    _entry.load()(app)
serve.register(app)


def main() -> None:
    """Entry point of the ``loopgate`` console script."""
    app()
