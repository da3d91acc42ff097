"""``loopgate serve``: run the HTTP gateway (FastAPI app from ``gateway.main.create_app``) under
uvicorn, with httptools and uvloop when installed.

The embedded Qdrant engine belongs to one process: with no ``LOOPGATE_QDRANT_URL`` the server
runs one worker and first checks that no other process holds the data directory (it exits
with a clear message when one does). With a Qdrant server, ``--workers N`` runs N processes.
A malformed setting (non-JSON ``LOOPGATE_API_KEYS``, a Redis URL without a scheme …) ends the
command with one line naming the variable and what it expects, exit code 2; so does a
non-loopback ``--host`` with no API keys unless ``--allow-anonymous`` (issue 20 item 6). On
SIGTERM open connections get ``GRACEFUL_S`` seconds, then the running ingest file
``LOOPGATE_INGEST_DRAIN_S`` (queued ingest jobs resume after the restart).
"""

from __future__ import annotations

import importlib.util
from typing import Annotated, Any

import typer

from gateway.cli.init import redis_url_problem

__all__ = ["GRACEFUL_S", "load_settings", "log_config", "register", "serve_command"]

#: Seconds open connections get after SIGTERM before the app shuts down (then ingest drains).
GRACEFUL_S = 4


def _expected(field: str) -> str:
    """What the environment variable of ``field`` must hold, from its type."""
    from typing import get_origin

    from gateway.settings import Settings

    info = Settings.model_fields.get(field)
    origin = get_origin(info.annotation) if info else None
    if origin is list:
        example = '[".pdf", ".md"]' if field == "upload_extensions" else '["k1", "k2"]'
        return f"a JSON list, e.g. {example}"
    if origin is dict:
        return 'a JSON object, e.g. {"KEY": ["*"]}'
    return "a valid value"


def load_settings() -> Any:
    """The settings, or one clear line on stderr and exit code 2 when one is malformed."""
    from pydantic import ValidationError
    from pydantic_settings import SettingsError

    from gateway.settings import SettingsFileError, get_settings

    try:
        s = get_settings()
    except SettingsError as exc:
        import re

        m = re.search(r'field "([^"]+)"', str(exc))
        field = m.group(1) if m else "?"
        typer.echo(f"error: LOOPGATE_{field.upper()} is malformed: expected {_expected(field)}",
                   err=True)
        raise typer.Exit(2) from None
    except (FileNotFoundError, SettingsFileError) as exc:  # no such file, or not UTF-8 text
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err.get("loc") else "?"
        typer.echo(f"error: LOOPGATE_{field.upper()} is invalid: {err['msg']}", err=True)
        raise typer.Exit(2) from None
    if s.redis_url and (said := redis_url_problem(s.redis_url)) is not None:
        typer.echo(f"error: LOOPGATE_REDIS_URL {s.redis_url!r} {said}: expected "
                   "redis://host:port/db, rediss://… or unix://…", err=True)
        raise typer.Exit(2)
    return s


def _loopback(host: str) -> bool:
    """True when ``host`` is a loopback address (``127.x``, ``::1``, ``localhost``)."""
    import ipaddress

    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _check_data_dir(settings: object) -> str | None:
    """The store's error when the embedded data directory cannot be used, else ``None``."""
    from corpus.errors import StoreError
    from gateway.wiring import open_store

    try:
        store = open_store(settings)  # type: ignore[arg-type]
    except StoreError as exc:
        return str(exc)
    try:
        for name in store.list_collections():
            store.collection_meta(name)  # opens the shard: a held one raises
    except StoreError as exc:
        return str(exc)
    finally:
        store.close()
    return None


def log_config(access_log: bool) -> dict[str, Any]:
    """uvicorn's logging config plus the ``loopgate.access`` logger (JSON lines on stdout; INFO
    when ``access_log``, else WARNING) and ``loopgate.gateway`` (INFO, uvicorn's format, stderr)."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    cfg = copy.deepcopy(LOGGING_CONFIG)
    cfg["formatters"]["loopgate_line"] = {"format": "%(message)s"}
    cfg["handlers"]["loopgate_access"] = {"class": "logging.StreamHandler",
                                          "formatter": "loopgate_line",
                                          "stream": "ext://sys.stdout"}
    cfg["loggers"]["loopgate.access"] = {"handlers": ["loopgate_access"], "propagate": False,
                                         "level": "INFO" if access_log else "WARNING"}
    # start-up facts (the LLM budgets sized from the model's speed) and warnings, on stderr
    cfg["loggers"]["loopgate.gateway"] = {"handlers": ["default"], "propagate": False,
                                          "level": "INFO"}
    return cfg


def serve_command(
    host: Annotated[str | None, typer.Option(help="Bind address (default: LOOPGATE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(
        min=1, max=65535, help="Port (default: LOOPGATE_PORT).")] = None,
    workers: Annotated[int, typer.Option(min=1, help="Processes (needs a Qdrant server).")] = 1,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
    access_log: Annotated[bool, typer.Option(
        help="One JSON line per request on stdout (client, method, path, status, ms, route, "
             "final path, trace id); replaces uvicorn's access log.")] = True,
    allow_anonymous: Annotated[bool, typer.Option(
        help="Serve a non-loopback address with no API keys (anyone may query, upload, delete)."
    )] = False,
) -> None:
    """Serve the LoopGate HTTP API (query, chat completions, documents, routes, metrics)."""
    import uvicorn

    s = load_settings()
    bind = host or s.host
    if not s.api_keys and not (allow_anonymous or s.allow_anonymous) and not _loopback(bind):
        typer.echo(f"error: refusing to serve {bind} with no API keys: anyone could query, upload "
                   "and delete. Set LOOPGATE_API_KEYS (and LOOPGATE_ADMIN_KEYS), bind 127.0.0.1, "
                   "or pass --allow-anonymous (LOOPGATE_ALLOW_ANONYMOUS=true)", err=True)
        raise typer.Exit(2)
    if workers > 1 and not s.qdrant_url:
        typer.echo("error: the embedded Qdrant engine is single-process; set LOOPGATE_QDRANT_URL "
                   "to a Qdrant server to run several workers", err=True)
        raise typer.Exit(2)
    if not s.qdrant_url:
        problem = _check_data_dir(s)
        if problem:
            typer.echo(f"error: {problem}", err=True)
            raise typer.Exit(1)
    options: dict[str, Any] = {
        "host": bind,
        "port": port or s.port,
        "log_level": log_level,
        "access_log": False,  # replaced by gateway.api.access_log (adds latency and route)
        "log_config": log_config(access_log),
        "http": "httptools" if importlib.util.find_spec("httptools") else "auto",
        "loop": "uvloop" if importlib.util.find_spec("uvloop") else "auto",
        # SIGTERM: open connections get this long, then ingest drains (LOOPGATE_INGEST_DRAIN_S)
        "timeout_graceful_shutdown": GRACEFUL_S,
    }
    if workers > 1:
        uvicorn.run("gateway.main:create_app", factory=True, workers=workers, **options)
    else:
        from gateway.main import create_app

        uvicorn.run(create_app(s), **options)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``loopgate`` command line."""
    app.command("serve")(serve_command)
