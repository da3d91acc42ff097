"""The progress bar of ``loopgate ingest``: files done, pages and chunks so far, pages per
second, then ``0:00:12 elapsed · 0:01:40 left``.

The bar advances with the bytes of the files being read (unchanged files are skipped and cost
nothing). The time left is the bytes still to read at the run's average rate so far (bytes read
/ seconds since the run started). On the whole eval corpus (301 files, 19 min; replayed from
that run's progress lines) rich's own estimate (``Task.time_remaining``, the rate of the last
30 s) said 0:02:26, 0:16:47 and 0:05:23 left when 14:38, 7:01 and 5:15 were left, jumping as
one large PDF or a run of small files finished; the average since the start said 0:10:23,
0:08:20 and 0:06:21. The largest files are read first. "left" is shown only once two files are read; before, the elapsed time stood
right before the word "left" (``0:00:01 left``) and read as the time left.

Off a terminal (piped, CI, ``nohup``, ``docker logs``, ``TERM=dumb``) rich draws no bar and
printed nothing until the end; :class:`PlainProgress` prints the same figures as plain lines
instead: ``ingest: 3/8 files · 41 pages · 2.3 pages/s · 33 chunks · 0:00:18 elapsed · 0:00:40
left``, when a file is done (at most one line every :data:`FILE_LINE_GAP_S`; the first and the
last file always) and every :data:`HEARTBEAT_S` while no file finishes (a model loading, a long
PDF), the estimate being rich's, from the same task.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import timedelta
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from corpus.ingest import IngestProgress

__all__ = ["FILE_LINE_GAP_S", "HEARTBEAT_S", "ElapsedAndLeft", "PlainProgress",
           "ingest_progress", "progress_for"]

#: at most one progress line per this many seconds as files finish (the first, the last always)
FILE_LINE_GAP_S = 5.0
#: a progress line after this many seconds without one (nothing finished meanwhile)
HEARTBEAT_S = 10.0


class ElapsedAndLeft(ProgressColumn):
    """``0:00:12 elapsed``, then ``· 0:01:40 left`` once two files are read: the bytes left
    at the run's average rate so far (task fields ``run_s``, the run's seconds, and
    ``files_done``; module docstring); when finished, the elapsed time alone."""

    def render(self, task: Task) -> Text:
        """The column's text for ``task``."""
        elapsed = task.finished_time if task.finished else task.elapsed
        text = Text(f"{timedelta(seconds=int(elapsed or 0))} elapsed", style="progress.elapsed")
        left = None
        if (not task.finished and task.total and task.completed > 0
                and task.fields.get("files_done", 0) >= 2):
            left = task.fields.get("run_s", 0.0) * (task.total - task.completed) / task.completed
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
    task = progress.add_task("ingest", total=None, files="", detail="scanning …",
                             files_done=0, run_s=0.0)

    def on_progress(ev: IngestProgress) -> None:
        rate = ev.pages / ev.elapsed_s if ev.elapsed_s > 0 else 0.0
        total = max(ev.bytes_total, 1)
        progress.update(
            task,
            total=total,
            completed=min(ev.bytes_done, total) if ev.bytes_total else 0,
            files=f"{ev.files_done}/{ev.files_total} files", files_done=ev.files_done,
            run_s=ev.elapsed_s,
            detail=f"{ev.pages} pages · {rate:.1f} pages/s · {ev.chunks} chunks",
        )

    return progress, on_progress


class PlainProgress:
    """Progress as plain lines on ``console`` (stderr), for output that is not a terminal.

    Use it as a context manager (it starts and stops the heartbeat thread) and pass it as
    ``Ingestor.ingest_paths(progress=…)``: it takes ``corpus.ingest.IngestProgress`` events.
    The figures and the time-left estimate come from a rich ``Progress`` task that is never
    drawn (:func:`ingest_progress` with ``disable=True``). A line is printed when the run
    starts (``ingest into 'demo': started``), when a file is done (the first and the last
    always, else at most one every ``file_gap_s``) and after ``heartbeat_s`` without a line.
    """

    def __init__(self, console: Console, collection: str, *,
                 file_gap_s: float | None = None, heartbeat_s: float | None = None) -> None:
        self.console, self.collection = console, collection
        self.file_gap_s = FILE_LINE_GAP_S if file_gap_s is None else file_gap_s
        self.heartbeat_s = HEARTBEAT_S if heartbeat_s is None else heartbeat_s
        self.progress, self._update = ingest_progress(console, disable=True)
        self._column = ElapsedAndLeft()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._last = time.monotonic()
        self._thread = threading.Thread(target=self._beat, name="ingest-progress", daemon=True)

    def line(self) -> str:
        """The current figures as one line (``ingest: 3/8 files · 41 pages · … left``)."""
        (task,) = self.progress.tasks
        parts = [task.fields["files"], task.fields["detail"], str(self._column.render(task))]
        return "ingest: " + " · ".join(p for p in parts if p)

    def _print(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)
        self._last = time.monotonic()

    def __call__(self, ev: IngestProgress) -> None:
        with self._lock:
            first = not self.progress.tasks[0].fields["files"]
            self._update(ev)
            last = ev.files_done >= ev.files_total
            if first or last or time.monotonic() - self._last >= self.file_gap_s:
                self._print(self.line())

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.heartbeat_s)):
            with self._lock:
                if time.monotonic() - self._last >= self.heartbeat_s:
                    self._print(self.line())

    def __enter__(self) -> PlainProgress:
        self._print(f"ingest into {self.collection!r}: started (progress every "
                    f"{self.heartbeat_s:g} s at least)")
        self._thread.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()


def progress_for(console: Console, collection: str
                 ) -> tuple[AbstractContextManager[object], Callable[[IngestProgress], None]]:
    """What ``loopgate ingest`` shows on ``console`` (stderr, also with ``--json``, whose
    stdout it never touches): the rich bar on a terminal, :class:`PlainProgress` lines
    elsewhere (not a terminal, or ``TERM=dumb``, where rich would draw nothing until the end).
    Returns the context manager to run the ingest in and the ``progress=`` callback."""
    if console.is_terminal and not console.is_dumb_terminal:
        return ingest_progress(console, disable=False)
    plain = PlainProgress(console, collection)
    return plain, plain
