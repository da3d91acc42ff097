"""``loopgate init``: write a settings file with absolute paths and say where data lives.

The file (default ``./loopgate.env``) holds ``LOOPGATE_DATA_DIR`` and, when given,
``LOOPGATE_EMBED_MODEL_PATH``, both made absolute, and ``LOOPGATE_PORT``. Commands read it when
``LOOPGATE_ENV_FILE`` names it (``gateway.settings.get_settings``), from any working directory.
Exit code 0 when written; 2 when the file exists (without ``--force``) or the model folder
holds no ONNX model.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["init_command", "register", "settings_text"]


def settings_text(data_dir: Path, model: Path | None, port: int) -> str:
    """The settings file's text (``KEY=value`` lines, ``#`` comments)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"# LoopGate settings written by `loopgate init` ({stamp}); every path is absolute.",
        "# Commands read this file when LOOPGATE_ENV_FILE names it; variables set in the",
        "# environment win over it. All settings: README.md, \"Settings\".",
        f"LOOPGATE_DATA_DIR={data_dir}",
    ]
    if model is not None:
        lines.append(f"LOOPGATE_EMBED_MODEL_PATH={model}")
    else:
        lines.append("# no embedding model: keyword-only (LOOPGATE_EMBED_MODEL_PATH=/path)")
    lines.append(f"LOOPGATE_PORT={port}")
    return "\n".join(lines) + "\n"


def init_command(
    file: Annotated[Path, typer.Option("--file", "-f", help="Settings file to write.")] = Path(
        "loopgate.env"),
    data_dir: Annotated[Path | None, typer.Option(
        "--data-dir", help="Where LoopGate keeps its state (default: your user data folder).")
    ] = None,
    embed_model_path: Annotated[Path | None, typer.Option(
        "--embed-model-path", help="Folder of the embedding model (multilingual-e5-small).")
    ] = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port of `loopgate serve`.")] = 8000,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
) -> None:
    """Write a settings file with absolute paths and say where data lives."""
    from gateway.settings import Settings

    target = file.expanduser().resolve()
    if target.exists() and not force:
        typer.echo(f"error: {target} exists (use --force to overwrite)", err=True)
        raise typer.Exit(2)
    data = (data_dir.expanduser().resolve() if data_dir is not None
            else Settings.model_fields["data_dir"].get_default(call_default_factory=True))
    model = embed_model_path.expanduser().resolve() if embed_model_path is not None else None
    if model is not None and not any(model.glob("*.onnx")):
        typer.echo(f"error: {model} holds no ONNX model (*.onnx): give the folder of "
                   "multilingual-e5-small", err=True)
        raise typer.Exit(2)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(settings_text(Path(data), model, port), encoding="utf-8")
    typer.echo(f"settings written to {target}")
    typer.echo(f"data lives in        {data}")
    typer.echo(f"embedding model      {model or 'none (keyword-only)'}")
    typer.echo(f"use it from anywhere: export LOOPGATE_ENV_FILE={target}")
    typer.echo(f"then: loopgate ingest DIR --collection NAME; loopgate serve → "
               f"http://127.0.0.1:{port}/")


def register(app: typer.Typer) -> None:
    """Add ``init`` to the ``loopgate`` command line."""
    app.command("init")(init_command)
