"""Start-up recovery of ingest jobs (``gateway.ingest.jobs.IngestJobs.start``), blocking: run it
in a thread.

1. Every persisted job record is loaded (job URLs answer after a restart).
2. A ``queued`` job whose files are all there (in its staging folder or already moved into the
   upload folder) is queued again; a ``running`` one (the process died mid-run) is queued to run
   again, files it already reported keeping their result (re-ingesting a file is idempotent:
   unchanged bytes are skipped by sha256); when ``MAX_ATTEMPTS`` runs in a row were cut short on
   the same file (a file that brings the process down), or a file is gone, the job is reported
   ``failed`` saying so.
3. Staging folders no job owns (a request cut before its 202) are removed.
4. Every collection upload folder is listed for reconciliation: after the resumed jobs, the
   folder is ingested as a whole (new or changed files indexed, documents whose file is gone
   removed), so index = catalogue = upload folder.
"""

from __future__ import annotations

import logging
import shutil
import time
from pathlib import Path
from typing import Protocol

from gateway.ingest.job import IngestJob
from gateway.ingest.job_store import JobStore
from gateway.ingest.writer import IngestHost

__all__ = ["MAX_ATTEMPTS", "JobBook", "recover"]

log = logging.getLogger("loopgate.gateway")

#: Runs cut short on one file before a restart reports the job failed (a poison file).
MAX_ATTEMPTS = 5


class JobBook(Protocol):
    """What recovery reads and writes of :class:`gateway.ingest.jobs.IngestJobs`."""

    @property
    def store(self) -> JobStore:
        """The persisted job records."""

    @property
    def data_dir(self) -> Path:
        """The data directory (``uploads/`` below it)."""

    @property
    def c(self) -> IngestHost:
        """The process's components."""

    def remember(self, job: IngestJob) -> None:
        """Keep ``job`` in memory."""

    def staging_dir(self, job_id: str) -> Path:
        """Where the job's files wait."""

    def upload_root(self, collection: str) -> Path:
        """The collection's upload folder."""

    def persist(self, job: IngestJob) -> None:
        """Write the job's record (blocking)."""


def recover(jobs: JobBook) -> tuple[list[IngestJob], list[str], dict[str, int]]:
    """Load and sort out the records of ``jobs`` (an ``IngestJobs``).

    :returns: ``(jobs to run again, collections to reconcile, summary)``; the summary counts
        ``resumed``, ``rerun``, ``failed``, ``staging_removed``.
    """
    summary = {"resumed": 0, "rerun": 0, "failed": 0, "staging_removed": 0}
    resume: list[IngestJob] = []
    try:
        jobs.store.files.remove_torn()
        records = jobs.store.load_all()
    except Exception as exc:  # noqa: BLE001 - start anyway, said in the log
        log.error("ingest job records unreadable: %s", exc)
        records = []
    active: set[str] = set()
    for rec in records:
        job = IngestJob.from_record(rec)
        if job.status in ("queued", "running"):
            _sort_out(jobs, job, summary)
            if job.status == "queued":
                active.add(job.job_id)
                resume.append(job)
        jobs.remember(job)
    staging = jobs.data_dir / "uploads" / ".staging"
    for folder in sorted(staging.iterdir()) if staging.is_dir() else []:
        if folder.name not in active:
            shutil.rmtree(folder, ignore_errors=True)
            summary["staging_removed"] += 1
    uploads = jobs.data_dir / "uploads"
    collections = sorted(p.name for p in uploads.iterdir()
                         if p.is_dir() and not p.name.startswith(".")) if uploads.is_dir() else []
    if jobs.c.store is None:
        collections = []
    if any(summary.values()):
        log.warning("ingest jobs recovered at start-up: %s", summary)
    return resume, collections, summary


def _sort_out(jobs: JobBook, job: IngestJob, summary: dict[str, int]) -> None:
    """Decide what a job found queued or running does now; persist the decision."""
    was = job.status
    staged, root = jobs.staging_dir(job.job_id), jobs.upload_root(job.collection)
    reported = {f["path"] for f in (job.report or {}).get("files", [])}
    missing = [n for n in job.files
               if n not in reported and not (staged / n).is_file() and not (root / n).is_file()]
    if missing:
        job.status, job.finished_at = "failed", time.time()
        job.error = (f"{len(missing)} file(s) of this upload were lost before the restart: "
                     + ", ".join(missing[:5]))
        summary["failed"] += 1
    elif was == "running" and job.stalls + 1 >= MAX_ATTEMPTS:
        job.status, job.finished_at = "failed", time.time()
        job.error = (f"interrupted {job.stalls + 1} times on {job.progress.get('file', '?')!r} "
                     "(the process stopped while reading it each time)")
        summary["failed"] += 1
    elif was == "running":
        job.status, job.stalls = "queued", job.stalls + 1
        job.note = f"run {job.attempts} was cut short by a restart; it runs again"
        summary["rerun"] += 1
    else:
        job.note = job.note or "resumed after a restart"
        summary["resumed"] += 1
    try:
        jobs.persist(job)
    except Exception as exc:  # noqa: BLE001
        log.error("job %s: record not persisted: %s", job.job_id, exc)
