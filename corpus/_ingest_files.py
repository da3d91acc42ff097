"""The folder walk and the file checks of an ingest run (used by ``corpus.ingest`` and
``corpus._ingest_run``): which files a run reads (:func:`collect_files`), their sha256 and the
files that cannot be read (:func:`hash_files`, reported as ``failed`` :class:`FileResult` s),
and the stored form of their paths (:func:`relative_path`, :func:`printable_path`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from corpus._ingest_report import FileResult
from corpus.errors import OutsideRootError

__all__ = [
    "collect_files",
    "default_root",
    "file_size",
    "gone_from",
    "hash_files",
    "printable_path",
    "relative_path",
    "sha256_file",
]


def collect_files(
    paths: Sequence[Path], suffixes: Sequence[str]
) -> tuple[list[Path], list[Path], int]:
    """Files to ingest: explicit files as given, folders walked recursively for ``suffixes``
    (hidden files and folders skipped; symbolic links whose target lies outside the walked
    folder are not followed and count as ignored, so linking ``/etc/passwd`` into a folder does
    not index it, and neither are symbolic link loops; ``os.walk`` does not descend into linked
    folders). Returns ``(files, folders,
    ignored_count)``; a path that does not exist is returned among the files (it becomes a
    ``vanished`` result)."""
    files: list[Path] = []
    dirs: list[Path] = []
    ignored = 0
    wanted = {s.lower() for s in suffixes}
    for p in paths:
        if not p.is_dir():
            files.append(p)
            continue
        dirs.append(p)
        root = p.resolve()
        for base, subdirs, names in os.walk(p):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(names):
                if name.startswith("."):
                    continue
                f = Path(base) / name
                if f.is_symlink() and not _link_inside(f, root):
                    ignored += 1
                    continue
                if Path(name).suffix.lower() in wanted:
                    files.append(f)
                else:
                    ignored += 1
    return list(dict.fromkeys(files)), dirs, ignored


def _link_inside(link: Path, root: Path) -> bool:
    """Whether the symbolic link ``link`` resolves to a place inside ``root``; a link loop (or a
    target that cannot be resolved) is not: it holds nothing to read, so it counts as ignored
    rather than stopping the batch (``Path.resolve`` raises ``RuntimeError`` on a loop before
    Python 3.13, ``OSError`` after)."""
    try:
        return link.resolve().is_relative_to(root)
    except (RuntimeError, OSError):
        return False


def sha256_file(path: Path) -> tuple[str, int]:
    """sha256 hex digest and size in bytes of a file, read in 1 MiB blocks."""
    h = hashlib.sha256()
    size = 0
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


# C0 and C1 control characters and DEL: a break-it trial's "new\nline.txt" was ingested but could
# not be deleted by name over HTTP (uploads refuse such names already)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def hash_files(files: Sequence[Path], rels: Sequence[str], seen: set[str],
               done: Callable[[FileResult], None]) -> list[tuple[Path, str, str]]:
    """``(file, stored path, sha256)`` of each file that can be ingested, its stored path added
    to ``seen``; a file that is no regular file, cannot be read or is empty is reported to
    ``done`` as ``failed`` (``undecodable_name``, ``control_char_name``, ``unsupported_type``,
    ``vanished``,
    ``empty_file``) instead."""
    hashed: list[tuple[Path, str, str]] = []
    for f, rel in zip(files, rels, strict=True):
        seen.add(rel)
        if not _utf8(str(f)):  # before anything reads it: its name cannot be stored
            done(_undecodable_name(f, rel))
            continue
        if _CONTROL.search(rel):  # "new\nline.txt": no API path or log line can name it
            shown = rel.encode("unicode_escape").decode("ascii")
            done(FileResult(shown, "failed", error_code="control_char_name",
                            error_message=f"{shown}: its name holds a control character (a line "
                            "break, tab …): rename it and ingest again"))
            continue
        if f.exists() and not f.is_file():  # a FIFO or device would block or never end
            done(
                FileResult(
                    rel,
                    "failed",
                    error_code="unsupported_type",
                    error_message=f"{rel}: not a regular file (pipe, device or socket)",
                )
            )
            continue
        try:
            digest, size = sha256_file(f)
        except OSError as exc:
            done(
                FileResult(
                    rel,
                    "failed",
                    error_code="vanished",
                    error_message=f"{rel}: cannot read ({exc.strerror or exc})",
                )
            )
            continue
        if size == 0:  # before the duplicate check: all empty files share one digest
            done(
                FileResult(
                    rel, "failed", error_code="empty_file", error_message=f"{rel}: zero bytes"
                )
            )
            continue
        hashed.append((f, rel, digest))
    return hashed


def file_size(path: str) -> int:
    """Size of ``path`` in bytes; 0 when it cannot be read (gone, no permission)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def default_root(given: Sequence[Path]) -> Path:
    """The ingest root of ``given``: the common folder of its folders and its files' folders
    (the working directory when nothing is given)."""
    bases = [p if p.is_dir() else p.parent for p in given]
    if not bases:
        return Path.cwd()
    return Path(os.path.commonpath([str(b) for b in bases]))


def relative_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` in POSIX form (``""`` for the root itself).

    :raises OutsideRootError: ``path`` is not under ``root``."""
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError as exc:
        raise OutsideRootError(f"{printable_path(str(path))} is not under the ingest root "
                               f"{printable_path(str(root))}") from exc
    return "" if rel == "." else rel


def printable_path(path: str) -> str:
    """``path`` as valid UTF-8 text: a name's bytes that are not UTF-8 (on Linux a file name is
    any bytes; Python holds them as lone surrogates, ``os.fsdecode``) written ``\\xe9`` as
    ``ls -b`` does, so reports, JSON and terminals can show it. Valid names are unchanged."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _utf8(text: str) -> bool:
    """True when ``text`` holds no lone surrogate (a file name byte that is not UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _undecodable_name(path: Path, rel: str) -> FileResult:
    """The ``failed`` result of a file whose name, or a folder above it, is not valid UTF-8.

    Such a name cannot be stored (chunk payloads, the catalogue and every report are UTF-8), and
    an escaped or guessed name would no longer lead back to the file (the citation viewer and the
    removal of vanished files open the stored source path), so the file is reported, not read."""
    shown = printable_path(rel)
    where = "its name" if _utf8(str(path.parent)) else "a folder above it"
    return FileResult(
        shown,
        "failed",
        error_code="undecodable_name",
        error_message=(
            f"{shown}: {where} is not valid UTF-8 (bytes not UTF-8 shown as \\xNN); rename it "
            "to UTF-8, e.g. convmv -f latin1 -t utf8 --notest NAME, and ingest again"
        ),
    )


def gone_from(source: str, dirs: Sequence[Path]) -> bool:
    """True when ``source`` (an absolute path) lies under one of ``dirs`` and no longer exists."""
    if not source:
        return False
    src = Path(source)
    return any(src.is_relative_to(d.absolute()) for d in dirs) and not src.exists()
