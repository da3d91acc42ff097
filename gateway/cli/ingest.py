"""``loopgate ingest PATH... --collection NAME [--json]``: add, update and remove documents.

Folders are walked recursively (supported types only); unchanged files are skipped by content
hash; documents gone from a walked folder are removed. Progress goes to stderr: a bar of files,
pages and chunks on a terminal, plain progress lines elsewhere (piped, CI, nohup); the end
prints a summary table (or, with ``--json``, the same summary as JSON on stdout). Exit code: 0
when anything could be ingested (or was already there), 1 when nothing could (every file
failed, no supported file found, or the store is unavailable), 2 on usage errors. Stopped by
SIGINT or SIGTERM, it stops its worker processes, keeps the documents finished, prints what
was done and exits 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from corpus.ingest import IngestReport, printable_path
from gateway.cli._ingest_stop import IngestInterrupted, StopOnSignals

if TYPE_CHECKING:
    from rich.table import Table

    from corpus.types import PassageEmbedder
    from gateway.settings import Settings

__all__ = ["ingest_command", "register", "warnings_table"]

_OK = ("ingested", "replaced", "unchanged", "embedded")


def _embedder(settings: Settings, no_embed: bool) -> PassageEmbedder | None:
    """The dense embedder from ``gateway.wiring.get_embedder``, or ``None``."""
    if no_embed:
        return None
    from gateway.wiring import get_embedder

    return get_embedder(settings, bulk=True)


def _summary(report: IngestReport, console: Console) -> None:
    from rich.table import Table

    counts = report.counts
    table = Table(title=f"ingest into {report.collection!r}", show_edge=False)
    # "embedded" counts unchanged documents that only got their missing dense vectors now
    # (ingested keyword-only before); new documents are embedded as part of "ingested", so the
    # column is shown only when there are such documents (a new-user trial read "vectors added
    # 0" after 404 chunks were embedded as "nothing was embedded")
    cols = [("ingested", "ingested"), ("replaced", "replaced"), ("unchanged", "unchanged"),
            ("vectors added to unchanged", "embedded"), ("removed", "removed"),
            ("skipped", "skipped"), ("failed", "failed")]
    cols = [(name, key) for name, key in cols if key != "embedded" or counts[key]]
    for name, _ in cols:
        table.add_column(name, justify="right")
    table.add_row(*(str(counts[key]) for _, key in cols))
    console.print(table)
    bad = [f for f in report.files if f.status in ("failed", "skipped")]
    if bad:
        errors = Table(title="not ingested", show_lines=False)
        for col in ("file", "status", "code", "reason"):
            errors.add_column(col, overflow="fold")
        for f in bad:
            errors.add_row(f.path, f.status, f.error_code, f.error_message)
        console.print(errors)
    notes = warnings_table(report)
    if notes is not None:
        console.print(notes)
    for warning in report.warnings:  # about the whole collection (embed_runtime_differs)
        console.print(f"[yellow]warning: {warning}[/]")
    mode = "keyword-only (no embedding model)" if report.keyword_only else "dense + keyword"
    console.print(
        f"{_count(report.pages, 'page')}, {_count(report.chunks, 'chunk')} from "
        f"{_count(len(report.files), 'file')} ({_count(report.ignored, 'other file')} ignored)"
        f" · {mode} · corpus version "
        f"{report.corpus_version} · {report.elapsed_s:.1f} s"
        + ("" if report.changed else " · nothing changed")
    )


_CODE = re.compile(r"[a-z][a-z0-9_]*")


def _count(n: int, noun: str) -> str:
    """``"1 page"``, ``"3 pages"``: a count with its noun in the singular only for one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def warnings_table(report: IngestReport) -> Table | None:
    """The "ingested with warnings" table (file, code, note), ``None`` without warnings.

    Every warning the parsers and the ingest write is ``"code: note"`` (codes in
    ``corpus.errors.WARNING_CODES``: ``repaired_pdf``, ``read_by_ocr``,
    ``replacement_characters`` …), shown as its code and its note. Text before the first
    ``": "`` that is no identifier is not taken for a code: such a warning (none is written
    any more) would stand whole in the note column."""
    from rich.table import Table

    warned = [(f.path, w) for f in report.files for w in f.warnings]
    if not warned:  # ingested, with a finding: read by content, repaired, probable duplicate
        return None
    notes = Table(title="ingested with warnings", show_lines=False)
    for col in ("file", "code", "note"):
        notes.add_column(col, overflow="fold")
    for path, w in warned:
        code, sep, note = w.partition(": ")
        if sep and _CODE.fullmatch(code):
            notes.add_row(path, code, note)
        else:
            notes.add_row(path, "", w)
    return notes


def _stopped(stop: StopOnSignals, report: IngestReport | None, as_json: bool,
             err: Console) -> None:
    """Print what a run stopped by a signal did: the summary of the files finished (complete
    in the collection) and how to go on."""
    total = report.files if report is not None else []
    if as_json and report is not None:
        out = report.to_dict()
        out["stopped_by"] = stop.name
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    elif report is not None:
        _summary(report, Console())
    err.print(f"[yellow]stopped by {stop.name}[/] after {len(total)} files: those listed are "
              "complete in the collection; the others were not written (a document being "
              "written was rolled back). Run the same command again to go on: unchanged files "
              "are skipped.")


def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="Files and/or folders to ingest.")],
    collection: Annotated[str, typer.Option("--collection", "-c", help="Target collection.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    root: Annotated[
        Path | None,
        typer.Option(help="Store paths relative to this folder (default: the common parent)."),
    ] = None,
    no_embed: Annotated[
        bool, typer.Option("--no-embed", help="Keyword-only: do not compute dense vectors.")
    ] = False,
    workers: Annotated[
        int | None, typer.Option(min=1, max=16, help="Parse processes, and as many that embed "
                                 "(default: the usable cores).")
    ] = None,
) -> None:
    """Ingest files and folders into a collection (unchanged files are skipped)."""

    from corpus._store_common import check_collection_name
    from corpus.errors import IngestCancelled, OutsideRootError, StoreError
    from corpus.ingest import Ingestor
    from corpus.tokenizer import Tokenizer
    from gateway.cli._ingest_progress import progress_for
    from gateway.settings import get_settings
    from gateway.wiring import directory_builder, open_store

    missing = [printable_path(str(p)) for p in paths if not p.exists()]
    if missing:
        raise typer.BadParameter(f"no such file or folder: {', '.join(missing)}", param_hint="PATH")
    try:
        check_collection_name(collection)
    except StoreError as exc:
        raise typer.BadParameter(str(exc), param_hint="--collection") from exc
    err = Console(stderr=True)
    settings = get_settings()
    # SIGINT / SIGTERM: stop promptly, workers too, the collection consistent (_ingest_stop)
    with StopOnSignals() as stop:
        try:
            try:
                embedder = _embedder(settings, no_embed)
            except Exception as exc:  # model missing offline: say so once, go on keyword-only
                err.print(f"[yellow]embedding model unavailable ({exc}); ingesting "
                          "keyword-only[/]")
                embedder = None
            store = open_store(settings)
        except IngestInterrupted:
            err.print(f"stopped by {stop.name} before any file was read; nothing was written")
            raise typer.Exit(stop.exit_code) from None
        progress, on_progress = progress_for(err, collection)  # stderr: bar or plain lines
        ingestor: Ingestor | None = None
        try:
            with progress:
                tok = Tokenizer()  # lazy engines
                ingestor = Ingestor(store, tok, embedder, workers=workers,
                                    directory=directory_builder(settings, tok))
                stop.run = ingestor
                report = ingestor.ingest_paths(paths, collection, root=root,
                                               progress=on_progress, cancel=stop.cancel)
        except (IngestInterrupted, IngestCancelled):
            _stopped(stop, ingestor.report if ingestor is not None else None, as_json, err)
            raise typer.Exit(stop.exit_code) from None
        except StoreError as exc:
            err.print(f"[red]error:[/] {exc}")
            raise typer.Exit(1) from exc
        except OutsideRootError as exc:
            raise typer.BadParameter(str(exc), param_hint="--root") from exc
        finally:
            try:
                store.close()
            except StoreError as exc:
                err.print(f"[red]error while closing the store:[/] {exc}")
    assert ingestor is not None  # set before the run, which returned
    directory = ingestor.directory
    stats = directory.stats if directory is not None else None
    if as_json:
        out = report.to_dict()
        if stats is not None:  # what the directory builder did (LLM calls, cache hits)
            out["directory"] = {k: getattr(stats, k) for k in (
                "entries", "llm_written", "cached", "fallbacks", "short", "llm_calls",
                "seconds")}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        _summary(report, Console())
        if directory is not None and stats is not None and stats.entries \
                and directory.writer is None:
            err.print(f"directory: {stats.entries} extractive entries in {stats.seconds:.1f} s")
        elif stats is not None and stats.entries:
            err.print(f"directory: {stats.entries} entries ({stats.llm_written} written by the "
                      f"LLM in {stats.llm_calls} calls, {stats.cached} from its cache, "
                      f"{stats.fallbacks} extractive after a model fault, {stats.short} short "
                      f"chunks kept extractive) in {stats.seconds:.1f} s")
    if not report.files:
        err.print("[red]no supported files found[/] (pdf, md, txt, docx, html)")
        raise typer.Exit(1)
    if not any(f.status in _OK for f in report.files) and report.counts["removed"] == 0:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add the ``ingest`` command to the ``loopgate`` app."""
    app.command("ingest", help=__doc__.split("\n\n")[1].replace("\n", " "))(ingest_command)
