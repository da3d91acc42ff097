"""Reading the :class:`~gateway.settings.model.Settings` of a process: the settings file named by
``LOOPGATE_ENV_FILE`` (read once, environment variables win over it; :func:`get_settings`),
relative folder paths made absolute against that file's folder (:func:`resolve_paths`), and
the file's ``LOOPGATE_*`` names that are no setting (:func:`unknown_settings`).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from gateway.settings.model import Settings

__all__ = ["SettingsFileError", "get_settings", "resolve_paths", "unknown_settings"]


class SettingsFileError(ValueError):
    """The settings file named by ``LOOPGATE_ENV_FILE`` cannot be read as settings (not UTF-8
    text, or a line that is no ``NAME=value``); the message names the file and the line."""


_PATH_FIELDS = ("data_dir", "embed_model_path")


def resolve_paths(settings: Settings, base: Path) -> Settings:
    """``settings`` with its relative folder paths (``data_dir``, ``embed_model_path``) made
    absolute against ``base`` (``~`` expanded)."""
    update: dict[str, Path] = {}
    for name in _PATH_FIELDS:
        value = getattr(settings, name, None)
        if isinstance(value, Path) and not value.is_absolute():
            update[name] = (base / value.expanduser()).resolve()
        elif isinstance(value, Path) and str(value).startswith("~"):
            update[name] = value.expanduser()
    return settings.model_copy(update=update) if update else settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; tests call ``get_settings.cache_clear()``).

    The file named by ``LOOPGATE_ENV_FILE`` is read now (environment variables win over it);
    relative paths are taken relative to that file's folder, so a command gives the same
    answers from any working directory (without a settings file: the working directory).

    :raises FileNotFoundError: ``LOOPGATE_ENV_FILE`` names a file that does not exist.
    :raises SettingsFileError: that file is not UTF-8 text, or holds a line that is neither
        ``NAME=value``, a comment nor blank.

    Also sets ``LOOPGATE_OCR_LANGUAGES`` in the process environment to ``ocr_languages`` (the
    PDF parser, ``corpus.parsers._pdf_ocr``, reads it there, also in ingest worker processes).
    """
    settings = _read()
    # the PDF parser (corpus, in ingest worker processes too) reads its OCR languages from the
    # environment; a value written in the settings file was ignored there (new-user trial)
    os.environ["LOOPGATE_OCR_LANGUAGES"] = settings.ocr_languages
    return settings


def _read() -> Settings:
    env_file = os.environ.get("LOOPGATE_ENV_FILE", "").strip()
    if not env_file:
        return resolve_paths(Settings(), Path.cwd())
    path = Path(env_file).expanduser().resolve()
    if not path.is_file():
        raise FileNotFoundError(f"LOOPGATE_ENV_FILE={env_file}: no such settings file "
                                "(`loopgate init` writes one)")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:  # pydantic-settings would raise it from deep inside
        line = data[: exc.start].count(b"\n") + 1
        raise SettingsFileError(f"LOOPGATE_ENV_FILE={env_file}: line {line} is not UTF-8 "
                                "text; a settings file holds NAME=value lines in UTF-8") from None
    if (bad := _unparsed_line(text)) is not None:
        # python-dotenv warns "could not parse statement starting at line N" (no file name)
        # and skips the line: a setting written there would be silently ignored
        raise SettingsFileError(f"LOOPGATE_ENV_FILE={env_file}: line {bad} is not a NAME=value "
                                "line (nor a comment or a blank line)")
    return resolve_paths(Settings(_env_file=path), path.parent)


def _unparsed_line(text: str) -> int | None:
    """The 1-based number of the first line python-dotenv (which pydantic-settings reads the
    file with) cannot parse, else ``None``."""
    import io

    from dotenv.parser import parse_stream

    return next((b.original.line for b in parse_stream(io.StringIO(text)) if b.error), None)


def unknown_settings(path: Path) -> list[tuple[str, str | None]]:
    """The ``LOOPGATE_*`` names of the settings file ``path`` that are no setting (a typo such
    as ``LOOPGATE_RAG_TOPK`` was ignored without a word), each with the closest setting's name
    or ``None``; other names (``COMPOSE_…``) are left alone. Read with python-dotenv, as
    pydantic-settings reads the file; ``[]`` when the file cannot be read as UTF-8."""
    import difflib

    from dotenv import dotenv_values

    try:
        names = [k for k in dotenv_values(path) if k and k.upper().startswith("LOOPGATE_")]
    except (OSError, UnicodeDecodeError):
        return []
    known = {f"LOOPGATE_{f.upper()}" for f in Settings.model_fields} | {"LOOPGATE_ENV_FILE"}
    return [(k, next(iter(difflib.get_close_matches(k.upper(), sorted(known), n=1)), None))
            for k in names if k.upper() not in known]
