"""The progress bar of ``loopgate ingest``: files done, pages and chunks so far, pages per
second, elapsed time and time left.

The bar advances with the bytes of the files being read (unchanged files are skipped and cost
nothing), so rich's time-left estimate (``TimeRemainingColumn``, from the recent rate) holds for
folders of very different file sizes; the largest files are read first, so the estimate is
pessimistic early on rather than optimistic.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from corpus.ingest import IngestProgress

__all__ = ["ingest_progress"]


def ingest_progress(console: Console, *, disable: bool
                    ) -> tuple[Progress, Callable[[IngestProgress], None]]:
    """A rich ``Progress`` (use it as a context manager) and the callback to pass as
    ``Ingestor.ingest_paths(progress=…)``; the callback takes ``corpus.ingest.IngestProgress``."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[files]}"),
        TextColumn("{task.fields[detail]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        disable=disable,
        transient=False,
    )
    task = progress.add_task("ingest", total=None, files="", detail="scanning …")

    def on_progress(ev: IngestProgress) -> None:
        rate = ev.pages / ev.elapsed_s if ev.elapsed_s > 0 else 0.0
        total = max(ev.bytes_total, 1)
        progress.update(
            task,
            total=total,
            completed=min(ev.bytes_done, total) if ev.bytes_total else 0,
            files=f"{ev.files_done}/{ev.files_total} files",
            detail=f"{ev.pages} pages · {rate:.1f} pages/s · {ev.chunks} chunks",
        )

    return progress, on_progress
