"""Durable background ingest jobs for ``POST /v1/documents`` and deletions for ``DELETE``.

One job = one upload request. Its files wait (fsynced) in ``<data_dir>/uploads/.staging/<job_id>/``
and its record is persisted (``gateway.ingest.job_store``: Redis when configured, else
``<data_dir>/jobs``) before the request is answered 202; every change of state is persisted too,
so job URLs answer after a restart. Jobs of one collection run one at a time, in order (a lock
per collection: one collection's large job does not hold up another's). A job moves its staged
files into the collection's upload folder and ingests them one file at a time
(``corpus.ingest.Ingestor`` in a daemon thread), persisting the report after each file, so
progress (``phase``: moving files, parsing, embedding, switching; ``file``, files done of total,
``chunks_done`` of ``chunks_total`` of the file being written, pages, chunks) is never empty;
a large file is written in batches (memory for its vectors bounded by the batch size).

At start-up (:meth:`IngestJobs.start`, ``gateway.ingest.recovery``) queued jobs resume, jobs
cut short run again (files already reported keep their result), jobs whose files are gone are
reported ``failed``, orphan staging folders are removed and each upload folder is reconciled
with the index. On shutdown (:meth:`IngestJobs.aclose`) no new file is started; the running
one gets half of ``LOOPGATE_INGEST_DRAIN_S`` to finish, then is cancelled between two write
batches (rolled back: its staged chunks deleted), or, when even that takes longer than the other
half, abandoned (its staged chunks never become visible and are purged at the next run); its
job runs again after the restart.
A change of a collection retires its cached corpus version and cached answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import shutil
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpus.errors import IngestCancelled
from gateway.errors import is_lock_error, public_error
from gateway.ingest.job import IngestJob, new_job_id
from gateway.ingest.job_store import JobStore
from gateway.ingest.recovery import recover
from gateway.ingest.writer import CollectionWriter, Drained, IngestHost

if TYPE_CHECKING:
    from corpus.ingest import Ingestor

__all__ = ["IngestJob", "IngestJobs", "new_job_id"]

log = logging.getLogger("loopgate.gateway")
_KEEP_JOBS = 200


class IngestJobs:
    """Runs, persists and recovers ingest jobs and deletions for one gateway process.

    :param components: the process's ``gateway.wiring.Components`` (store, embedder, cache,
        settings, corpus versions: :class:`gateway.ingest.writer.IngestHost`).
    :param ingestor: builds the ``corpus.ingest.Ingestor`` the jobs run (called on first use).
    """

    def __init__(self, components: IngestHost, *, ingestor: Callable[[], Ingestor]) -> None:
        self.c = components
        s = components.settings
        self.data_dir = Path(s.data_dir).resolve()
        self.writer = CollectionWriter(components, ingestor, self.data_dir)
        scope = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:10]
        self.store = JobStore(self.data_dir / "jobs", s.redis_url,
                              prefix=f"{s.redis_key_prefix}ingest:{scope}:",
                              timeout_s=max(1.0, s.timeout_cache_s * 4), keep=_KEEP_JOBS)
        self.drain_s = float(getattr(s, "ingest_drain_s", 4.0))
        self.held_wait_s = float(getattr(s, "ingest_held_wait_s", 600.0))
        self._held_since: dict[str, float] = {}
        self.jobs: OrderedDict[str, IngestJob] = OrderedDict()
        self.recovered: dict[str, Any] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # --- paths ---------------------------------------------------------------------------
    def staging_dir(self, job_id: str) -> Path:
        """``<data_dir>/uploads/.staging/<job_id>``."""
        return self.writer.staging_dir(job_id)

    def upload_root(self, collection: str) -> Path:
        """``<data_dir>/uploads/<collection>``."""
        return self.writer.upload_root(collection)

    # --- public API ----------------------------------------------------------------------
    async def start(self) -> None:
        """Recover after a restart (see module docstring); call once the event loop runs."""
        resume, collections, self.recovered = await asyncio.to_thread(recover, self)
        for job in resume:
            self._spawn(self._run(job))
        for name in collections:
            self._spawn(self._reconcile(name))

    async def submit(self, collection: str, job_id: str, names: list[str],
                     refused: Sequence[dict[str, Any]] = ()) -> IngestJob:
        """Persist and queue the ingest of the files already fsynced in
        :meth:`staging_dir` ``(job_id)``; returns once the record is durable.

        :param names: the file names to ingest (staged).
        :param refused: files of the same upload that are not ingested (empty, a type not
            accepted), each a ``corpus.ingest.FileResult`` as a dict (status ``failed``, a
            code): the job's report starts with them.
        :raises OSError: the job record could not be written (the upload is not accepted).
        """
        job = IngestJob(job_id, collection, list(names))
        if refused:
            from corpus.ingest import FileResult, IngestReport

            job.report = IngestReport(
                collection, f"uploads/{collection}", [FileResult(**f) for f in refused],
                keyword_only=self.c.embedder is None,
            ).to_dict()
        await asyncio.to_thread(self.persist, job)
        self.remember(job)
        self._spawn(self._run(job))
        return job

    def get(self, job_id: str) -> IngestJob | None:
        """The job, or ``None`` when unknown (or long forgotten)."""
        return self.jobs.get(job_id)

    def recent(self, collection: str, limit: int = 20) -> list[IngestJob]:
        """The latest jobs of ``collection``, newest first."""
        return [j for j in reversed(self.jobs.values()) if j.collection == collection][:limit]

    def remember(self, job: IngestJob) -> None:
        """Keep ``job`` in memory (the newest ``_KEEP_JOBS``, active ones never dropped)."""
        self.jobs[job.job_id] = job
        self.jobs.move_to_end(job.job_id)
        for old in [j for j in self.jobs.values() if j.status in ("done", "failed")]:
            if len(self.jobs) <= _KEEP_JOBS:
                break
            self.jobs.pop(old.job_id, None)

    # --- running -------------------------------------------------------------------------
    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _lock(self, collection: str) -> asyncio.Lock:
        return self._locks.setdefault(collection, asyncio.Lock())

    def persist(self, job: IngestJob) -> None:
        """Write ``job``'s record, stamped now (blocking)."""
        job.updated_at = time.time()
        self.store.save(job.to_dict())

    async def _save(self, job: IngestJob) -> None:
        try:
            await asyncio.to_thread(self.persist, job)
        except Exception as exc:  # noqa: BLE001 - the run goes on; said in the log
            log.error("job %s: record not persisted: %s", job.job_id, exc)

    def _wait_held(self, job: IngestJob, exc: BaseException) -> bool:
        """True (the job is queued again, with a note) when ``exc`` says another process holds
        the collection and the job has waited less than ``ingest_held_wait_s`` for it (a
        hostile-input trial: an upload made while ``loopgate ingest`` wrote a new collection
        failed at once and was never tried again)."""
        if not is_lock_error(exc):
            return False
        since = self._held_since.setdefault(job.job_id, time.monotonic())
        if time.monotonic() - since >= self.held_wait_s:
            self._held_since.pop(job.job_id, None)
            return False
        job.status = "queued"
        job.note = (f"collection {job.collection!r} is held by another LoopGate process (a "
                    "`loopgate ingest`?): tried again until it is free, for at most "
                    f"{self.held_wait_s:g} s")
        return True

    async def _run_later(self, job: IngestJob, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        await self._run(job)

    async def _run(self, job: IngestJob) -> None:
        retry = False
        async with self._lock(job.collection):
            if self.writer.closing:
                return  # stays queued in the job store: resumes at the next start
            job.status, job.attempts = "running", job.attempts + 1
            job.progress = {**job.progress, "phase": "moving files"}
            await self._save(job)
            try:
                await self.writer.ingest(job, self._save)
            except (Drained, IngestCancelled):
                job.status = "queued"
                job.note = (f"interrupted by a shutdown after {job.progress.get('files_done', 0)} "
                            f"of {len(job.files)} files; resumes at the next start")
            except Exception as exc:  # noqa: BLE001 - reported through the job
                if self._wait_held(job, exc):
                    retry = True
                else:
                    job.status, job.error = "failed", public_error(exc)
                    job.finished_at = time.time()
                    log.error("ingest job %s failed: %s: %s", job.job_id, type(exc).__name__,
                              exc)
            finally:
                self.c.forget(job.collection)
            await self._save(job)
        if retry:
            self._spawn(self._run_later(job, min(30.0, 2.0 ** job.attempts)))
            return
        self._held_since.pop(job.job_id, None)  # not waiting (any more)
        if job.status in ("done", "failed"):
            await asyncio.to_thread(shutil.rmtree, self.staging_dir(job.job_id), True)
            await asyncio.to_thread(self.store.trim)

    async def _reconcile(self, collection: str) -> None:
        """Make the index of ``collection`` match its upload folder (start-up)."""
        async with self._lock(collection):
            if self.writer.closing:
                return
            counts = await self.writer.reconcile(collection)
            if counts is not None:
                self.recovered.setdefault("reconciled", {})[collection] = counts

    async def delete(self, collection: str, doc: str) -> dict[str, Any] | None:
        """Remove a document (path, file name or ``doc_id``): its uploaded file first (fsynced),
        then its chunks and catalogue entry, so a crash between the two is finished by the
        start-up reconciliation. ``None`` when the collection has no such document."""
        async with self._lock(collection):
            return await self.writer.delete(collection, doc)

    async def wait_idle(self) -> None:
        """Wait until every job (and the start-up reconciliation) has finished (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Drain: start no new file, give the running one half of ``drain_s`` to finish, then
        cancel it (rolled back between two write batches) and wait the other half; leave the
        rest queued in the job store (they resume at the next start)."""
        self.writer.closing = True
        if self._tasks:
            _, pending = await asyncio.wait(list(self._tasks), timeout=self.drain_s / 2)
            if pending:
                self.writer.cancel.set()
                _, pending = await asyncio.wait(pending, timeout=self.drain_s / 2)
            for task in pending:
                task.cancel()
