"""``loopgate init``: write a settings file with absolute paths and say where data lives.

The file (default ``./loopgate.env``) holds ``LOOPGATE_DATA_DIR`` and, when given,
``LOOPGATE_EMBED_MODEL_PATH``, both made absolute, ``LOOPGATE_PORT``, and ``LOOPGATE_REDIS_URL``
when a Redis answers a PING at ``--redis-url`` (default ``redis://127.0.0.1:6379/0``, 0.5 s
timeout; otherwise the output says how to enable it). Commands read it when
``LOOPGATE_ENV_FILE`` names it (``gateway.settings.get_settings``), from any working directory.
Exit code 0 when written; 2 when the file exists (without ``--force``) or the model folder
holds no ONNX model.
"""

from __future__ import annotations

import datetime
import hashlib
import socket
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["init_command", "register", "settings_text"]


DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")  # what redis-py's from_url reads


def redis_url_problem(url: str) -> str | None:
    """Why ``url`` is no Redis URL (``"has no scheme"``, ``"has the unsupported scheme
    http://"``), or ``None`` when it starts with one of :data:`REDIS_SCHEMES`."""
    if url.startswith(REDIS_SCHEMES):
        return None
    scheme = url.split("://", 1)[0] if "://" in url else ""
    return f"has the unsupported scheme {scheme}://" if scheme else "has no scheme"


def redis_answers(url: str, timeout: float = 0.5) -> bool:
    """True when a Redis at ``url`` answers PING with PONG within ``timeout`` seconds (a Redis
    that wants a password answers an error: False)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 6379
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except (OSError, ValueError):
        return False


def install_prefix(data_dir: Path) -> str:
    """``"loopgate:<8 hex>:"``, the Redis key prefix of the installation keeping its state in
    ``data_dir`` (the first 8 hex digits of the SHA-1 of its absolute path): the CLI and
    ``loopgate serve`` reading one settings file share it, two installations do not."""
    digest = hashlib.sha1(str(data_dir.resolve()).encode("utf-8")).hexdigest()[:8]
    return f"loopgate:{digest}:"


def settings_text(data_dir: Path, model: Path | None, port: int,
                  redis_url: str | None = None) -> str:
    """The settings file's text (``KEY=value`` lines, ``#`` comments)."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"# LoopGate settings written by `loopgate init` ({stamp}); every path is absolute.",
        "# Commands read this file when LOOPGATE_ENV_FILE names it; variables set in the",
        "# environment win over it. All settings: docs/settings.md.",
        f"LOOPGATE_DATA_DIR={data_dir}",
    ]
    if model is not None:
        lines.append(f"LOOPGATE_EMBED_MODEL_PATH={model}")
    else:
        lines.append("# no embedding model: keyword-only (LOOPGATE_EMBED_MODEL_PATH=/path)")
    lines.append(f"LOOPGATE_PORT={port}")
    if redis_url:
        lines.append(f"LOOPGATE_REDIS_URL={redis_url}")
        # keys of this installation apart from another's on the same Redis: a new-user trial
        # found the shared default prefix's route log holding another checkout's questions (and
        # two installs' collections of one name would share cached answers)
        lines.append(f"LOOPGATE_REDIS_KEY_PREFIX={install_prefix(data_dir)}")
    else:
        lines.append("# no Redis: in-process cache and sessions (LOOPGATE_REDIS_URL=redis://…)")
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
    redis_url: Annotated[str, typer.Option(
        "--redis-url", help="Redis to use when it answers a PING (empty: none).")
    ] = DEFAULT_REDIS_URL,
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
    if redis_url and (problem := redis_url_problem(redis_url)) is not None:
        # a URL without a scheme was probed at 127.0.0.1:6379 and written, and every command
        # then stopped on it (a hostile-input trial's --redis-url notaurl)
        typer.echo(f"error: --redis-url {redis_url!r} {problem}: expected redis://host:port/db, "
                   "rediss://… or unix://…; nothing written", err=True)
        raise typer.Exit(2)
    # the data folder and the file must be writable: a break-it trial's --file under /proc
    # ended in a FileNotFoundError traceback, and --data-dir /proc/x was written and exited 0
    # (ingest then failed in the embedded Qdrant)
    try:
        Path(data).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        typer.echo(f"error: the data folder {data} cannot be created ({exc.strerror or exc}); "
                   "nothing written", err=True)
        raise typer.Exit(2) from None
    redis = redis_url if redis_url and redis_answers(redis_url) else None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(settings_text(Path(data), model, port, redis), encoding="utf-8")
    except OSError as exc:
        typer.echo(f"error: {target} cannot be written ({exc.strerror or exc})", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"settings written to {target}")
    typer.echo(f"data lives in        {data}")
    typer.echo(f"embedding model      {model or 'none (keyword-only)'}")
    if redis:
        typer.echo(f"redis                {redis} answers: answer cache and sessions there "
                   f"(they survive a restart), keys under {install_prefix(Path(data))}")
    elif not redis_url:  # --redis-url "": the user chose no Redis
        typer.echo("redis                none (--redis-url \"\"): cache and sessions "
                   "in-process, lost on restart")
    else:
        typer.echo(f"redis                none answers at {redis_url}: cache and "
                   "sessions in-process, lost on restart; to enable, start Redis "
                   "(redis-server) and run init --force, or set LOOPGATE_REDIS_URL=redis://HOST:"
                   "6379/0 in the file")
    typer.echo(f"use it from anywhere: export LOOPGATE_ENV_FILE={target}")
    typer.echo(f"then: loopgate ingest DIR --collection NAME; loopgate serve → "
               f"http://127.0.0.1:{port}/")


def register(app: typer.Typer) -> None:
    """Add ``init`` to the ``loopgate`` command line."""
    app.command("init")(init_command)
