"""How ``loopgate ingest`` stops on SIGINT (Ctrl-C) and SIGTERM (systemd, ``docker stop``, a CI
timeout): promptly, its worker processes with it, the collection consistent.

While :class:`StopOnSignals` is active, the first of these signals sets its ``cancel`` event
(``Ingestor.ingest_paths(cancel=…)``) and, when the run writes nothing at that moment
(``Ingestor.interruptible``: it waits for its workers, parses or embeds the next document, or
has not started), raises :class:`IngestInterrupted` at once; the ingest pipeline then stops its
parse and embed processes (``corpus._ingest_worker``). During a store write the run instead stops
at the next write batch (the document being written is rolled back: its staged chunks deleted,
the previous version still the one searched) or before the next document, with
``corpus.errors.IngestCancelled``. Either way every document written before stays complete and a
rerun skips it (unchanged bytes); the command prints what was done and exits
``128 + signal`` (130 for SIGINT, 143 for SIGTERM). Later signals are ignored while it stops.
"""

from __future__ import annotations

import signal
import threading
from threading import Event
from types import FrameType
from typing import Protocol

__all__ = ["IngestInterrupted", "StopOnSignals"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _Run(Protocol):
    @property
    def interruptible(self) -> bool: ...


class IngestInterrupted(KeyboardInterrupt):
    """The ingest was stopped by signal ``signum`` where nothing was being written. A
    ``KeyboardInterrupt`` (not an ``Exception``), so no ``except Exception`` of a parser or
    a worker pool takes it for a failed file."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopOnSignals:
    """Context manager installing the handlers of SIGINT and SIGTERM described in the module
    docstring (in the main thread; elsewhere it installs nothing), the previous handlers put
    back on exit.

    Usage example::

        with StopOnSignals() as stop:
            stop.run = ingestor
            ingestor.ingest_paths(paths, "manuals", cancel=stop.cancel)

    :ivar cancel: set by the first signal.
    :ivar signum: the first signal received, or ``None``.
    :ivar run: the running ingest (its ``interruptible``); ``None``: nothing written yet.
    """

    def __init__(self) -> None:
        self.cancel = Event()
        self.signum: int | None = None
        self.run: _Run | None = None
        self._raised = False
        self._old: dict[int, object] = {}

    @property
    def exit_code(self) -> int:
        """``128 + signal`` (the shell's convention), 1 when no signal was received."""
        return 128 + self.signum if self.signum is not None else 1

    @property
    def name(self) -> str:
        """The first signal's name (``SIGTERM``), ``""`` when none."""
        return signal.Signals(self.signum).name if self.signum is not None else ""

    def __enter__(self) -> StopOnSignals:
        if threading.current_thread() is not threading.main_thread():
            return self  # only the main thread may handle signals: nothing installed
        for sig in SIGNALS:
            self._old[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)  # type: ignore[arg-type]
        self._old.clear()

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        self.cancel.set()
        if self._raised:
            return
        if self.run is None or self.run.interruptible:
            self._raised = True
            raise IngestInterrupted(signum)
