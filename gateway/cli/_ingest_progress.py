"""The progress bar of ``loopgate ingest``: files done, pages and chunks so far, pages per
second, then ``0:00:12 elapsed · 0:01:40 left``.

The bar advances with the bytes of the files being read (unchanged files are skipped and cost
nothing), so rich's time-left estimate (``Task.time_remaining``, from the rate of the last 30 s)
holds for folders of very different file sizes; the largest files are read first, so the
estimate is pessimistic early on rather than optimistic. "left" is shown only once rich can
estimate it (two files read); before, the elapsed time stood right before the word "left"
(``0:00:01 left``, rich's remaining-time column empty) and read as the time left.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from corpus.ingest import IngestProgress

__all__ = ["ElapsedAndLeft", "ingest_progress"]


class ElapsedAndLeft(ProgressColumn):
    """``0:00:12 elapsed``, then ``· 0:01:40 left`` while rich can estimate the time left
    (a known total and a rate; when finished, the elapsed time alone)."""

    def render(self, task: Task) -> Text:
        """The column's text for ``task``."""
        elapsed = task.finished_time if task.finished else task.elapsed
        text = Text(f"{timedelta(seconds=int(elapsed or 0))} elapsed", style="progress.elapsed")
        left = None if task.finished or task.total is None else task.time_remaining
        if left is not None:
            text.append(f" · {timedelta(seconds=int(left))} left", style="progress.remaining")
        return text


def ingest_progress(console: Console, *, disable: bool
                    ) -> tuple[Progress, Callable[[IngestProgress], None]]:
    """A rich ``Progress`` (use it as a context manager) and the callback to pass as
    ``Ingestor.ingest_paths(progress=…)``; the callback takes ``corpus.ingest.IngestProgress``."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[files]}"),
        TextColumn("{task.fields[detail]}"),
        ElapsedAndLeft(),
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
