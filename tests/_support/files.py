"""Small documents written by a test into a folder of its own."""

from __future__ import annotations

from pathlib import Path


def write_texts(folder: Path, files: dict[str, str]) -> Path:
    """Write each ``name → text`` (UTF-8) into ``folder`` (made when missing); ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder
