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
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

from corpus.errors import IngestCancelled
from gateway.errors import public_error
from gateway.ingest.job import IngestJob, new_job_id, run_in_daemon, totals
from gateway.ingest.job_store import JobStore, fsync_dir

__all__ = ["IngestJob", "IngestJobs", "new_job_id"]

log = logging.getLogger("loopgate.gateway")
_KEEP_JOBS = 200


class _Drained(Exception):
    """The gateway is shutting down: stop before the next file."""


class IngestJobs:
    """Runs, persists and recovers ingest jobs and deletions for one gateway process.

    :param components: the process's ``gateway.wiring.Components`` (store, embedder, cache,
        settings, corpus versions).
    :param ingestor: builds the ``corpus.ingest.Ingestor`` the jobs run (called on first use).
    """

    def __init__(self, components: Any, *, ingestor: Callable[[], Any]) -> None:
        self.c = components
        self._make_ingestor = ingestor
        s = components.settings
        self.data_dir = Path(s.data_dir).resolve()
        scope = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:10]
        self.store = JobStore(self.data_dir / "jobs", s.redis_url,
                              prefix=f"{s.redis_key_prefix}ingest:{scope}:",
                              timeout_s=max(1.0, s.timeout_cache_s * 4), keep=_KEEP_JOBS)
        self.drain_s = float(getattr(s, "ingest_drain_s", 4.0))
        self.jobs: OrderedDict[str, IngestJob] = OrderedDict()
        self.recovered: dict[str, Any] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing, self._ingestor = False, cast(Any, None)
        self._cancel = threading.Event()  # set on shutdown: the running file rolls back

    # --- paths ---------------------------------------------------------------------------
    def staging_dir(self, job_id: str) -> Path:
        """``<data_dir>/uploads/.staging/<job_id>``."""
        return self.data_dir / "uploads" / ".staging" / job_id

    def upload_root(self, collection: str) -> Path:
        """``<data_dir>/uploads/<collection>``."""
        return self.data_dir / "uploads" / collection

    def _get_ingestor(self) -> Any:
        if self._ingestor is None:
            self._ingestor = self._make_ingestor()
        return self._ingestor

    # --- public API ----------------------------------------------------------------------
    async def start(self) -> None:
        """Recover after a restart (see module docstring); call once the event loop runs."""
        from gateway.ingest.recovery import recover

        resume, collections, self.recovered = await asyncio.to_thread(recover, self)
        for job in resume:
            self._spawn(self._run(job))
        for name in collections:
            self._spawn(self._reconcile(name))

    async def submit(self, collection: str, job_id: str, names: list[str]) -> IngestJob:
        """Persist and queue the ingest of the files already fsynced in
        :meth:`staging_dir` ``(job_id)``; returns once the record is durable.

        :raises OSError: the job record could not be written (the upload is not accepted).
        """
        job = IngestJob(job_id, collection, list(names))
        await asyncio.to_thread(self._persist, job)
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
    def _spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _lock(self, collection: str) -> asyncio.Lock:
        return self._locks.setdefault(collection, asyncio.Lock())

    def _persist(self, job: IngestJob) -> None:
        job.updated_at = time.time()
        self.store.save(job.to_dict())

    async def _save(self, job: IngestJob) -> None:
        try:
            await asyncio.to_thread(self._persist, job)
        except Exception as exc:  # noqa: BLE001 - the run goes on; said in the log
            log.error("job %s: record not persisted: %s", job.job_id, exc)

    async def _run(self, job: IngestJob) -> None:
        async with self._lock(job.collection):
            if self._closing:
                return  # stays queued in the job store: resumes at the next start
            job.status, job.attempts = "running", job.attempts + 1
            job.progress = {**job.progress, "phase": "moving files"}
            await self._save(job)
            try:
                await self._ingest(job)
            except (_Drained, IngestCancelled):
                job.status = "queued"
                job.note = (f"interrupted by a shutdown after {job.progress.get('files_done', 0)} "
                            f"of {len(job.files)} files; resumes at the next start")
            except Exception as exc:  # noqa: BLE001 - reported through the job
                job.status, job.error = "failed", public_error(exc)
                job.finished_at = time.time()
                log.error("ingest job %s failed: %s: %s", job.job_id, type(exc).__name__, exc)
            finally:
                self.c.forget(job.collection)
            await self._save(job)
        if job.status in ("done", "failed"):
            await asyncio.to_thread(shutil.rmtree, self.staging_dir(job.job_id), True)
            await asyncio.to_thread(self.store.trim)

    def _move_staged(self, job: IngestJob) -> Path:
        """Move the job's staged files into the upload folder (durably); returns the folder."""
        root, staged = self.upload_root(job.collection), self.staging_dir(job.job_id)
        root.mkdir(parents=True, exist_ok=True)
        for name in job.files:
            if (staged / name).is_file():
                os.replace(staged / name, root / name)
        fsync_dir(root)
        fsync_dir(staged)
        return root

    async def _ingest(self, job: IngestJob) -> None:
        """Move the staged files in, ingest them one by one and report (lock held)."""
        from corpus.ingest import FileResult, IngestReport

        ingestor = self._get_ingestor()
        root = await asyncio.to_thread(self._move_staged, job)
        before = await asyncio.to_thread(self._doc_ids, job.collection)
        done = {f["path"]: f for f in (job.report or {}).get("files", [])}
        t0, version = time.perf_counter(), 0
        for i, name in enumerate(job.files):
            if name in done:
                continue
            if self._closing:
                raise _Drained
            job.progress = {**totals(done), "phase": "ingesting", "file": name,
                            "files_done": i, "files_total": len(job.files)}
            rep = await run_in_daemon(ingestor.ingest_paths, [root / name], job.collection,
                                      root=root, step=self._stepper(job),
                                      cancel=self._cancel)
            version, job.stalls = rep.corpus_version, 0
            for f in rep.files:
                done[f.path] = asdict(f)
            report = IngestReport(job.collection, f"uploads/{job.collection}",
                                  [FileResult(**f) for f in done.values()],
                                  keyword_only=self.c.embedder is None, corpus_version=version,
                                  elapsed_s=time.perf_counter() - t0)
            job.report = report.to_dict()
            job.progress = {**totals(done), "phase": "ingesting", "file": name,
                            "files_done": i + 1, "files_total": len(job.files), "path": name,
                            "status": rep.files[0].status if rep.files else "skipped"}
            await self._save(job)
        files = (job.report or {}).get("files", [])
        changed = [before[f["path"]] for f in files
                   if f["status"] in ("replaced", "removed") and f["path"] in before]
        await self._retire(job.collection, str(version or self.c.corpus_version(job.collection)),
                           changed)
        bad = [f for f in files if f["status"] == "failed"]
        if files and len(bad) == len(files):  # as `loopgate ingest` exits 1
            job.status = "failed"
            job.error = (f"no file could be ingested: {bad[0]['error_code']}: "
                         f"{bad[0]['error_message']}")
        else:
            job.status = "done"
        job.progress["phase"] = "done"
        job.finished_at = time.time()

    @staticmethod
    def _stepper(job: IngestJob) -> Callable[[str, str, int, int], None]:
        """The ``step`` callback (``corpus.ingest.StepFn``) that shows a file's phase and chunks
        written in ``job.progress`` (called from the ingest thread; one dict swap)."""

        def step(phase: str, _path: str, done: int, total: int) -> None:
            job.progress = {**job.progress, "phase": phase, "chunks_done": done,
                            "chunks_total": total}

        return step

    async def _reconcile(self, collection: str) -> None:
        """Make the index of ``collection`` match its upload folder (start-up)."""
        async with self._lock(collection):
            if self._closing:
                return
            root = self.upload_root(collection)
            try:
                rep = await run_in_daemon(self._get_ingestor().ingest_paths, [root], collection,
                                          root=root, cancel=self._cancel)
            except Exception as exc:  # noqa: BLE001 - the next start tries again
                log.error("reconciling %s failed: %s", collection, exc)
                return
            finally:
                self.c.forget(collection)
            counts = {k: v for k, v in rep.counts.items() if v and k != "unchanged"}
            self.recovered.setdefault("reconciled", {})[collection] = counts
            if counts:
                log.warning("start-up reconciliation of %s: %s", collection, counts)
                await self._retire(collection, str(rep.corpus_version), [])

    def _doc_ids(self, collection: str) -> dict[str, str]:
        """``{path: doc_id}`` of the collection's documents now."""
        from corpus.catalogue import Catalogue

        return {p: e.info.doc_id for p, e in Catalogue(self.c.store).entries(collection).items()}

    async def _retire(self, collection: str, version: str, doc_ids: list[str]) -> None:
        """Tell the answer cache that ``collection`` changed (best effort: keys carry the
        corpus version, so a cache that is down cannot serve stale answers either)."""
        cache = self.c.cache
        if cache is None:
            return
        try:
            await cache.on_corpus_change(collection, version, doc_ids)
        except Exception as exc:  # noqa: BLE001
            log.warning("answer cache not told about the change of %s: %s", collection, exc)

    async def delete(self, collection: str, doc: str) -> dict[str, Any] | None:
        """Remove a document (path, file name or ``doc_id``): its uploaded file first (fsynced),
        then its chunks and catalogue entry, so a crash between the two is finished by the
        start-up reconciliation. ``None`` when the collection has no such document."""
        async with self._lock(collection):
            ingestor = self._get_ingestor()
            try:
                entry = await asyncio.to_thread(ingestor.catalogue.find, collection, doc)
                if entry is None:
                    return None
                root = self.upload_root(collection).resolve()
                candidate = (root / entry.info.path).resolve()
                if candidate.parent == root and candidate.is_file():
                    await asyncio.to_thread(candidate.unlink)
                    await asyncio.to_thread(fsync_dir, root)
                res = await asyncio.to_thread(ingestor.remove_document, collection,
                                              entry.info.path)
            finally:
                self.c.forget(collection)
            if res is None:
                return None
            version = await asyncio.to_thread(self.c.corpus_version, collection)
            await self._retire(collection, version, [res.doc_id])
            return asdict(res)

    async def wait_idle(self) -> None:
        """Wait until every job (and the start-up reconciliation) has finished (tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Drain: start no new file, give the running one half of ``drain_s`` to finish, then
        cancel it (rolled back between two write batches) and wait the other half; leave the
        rest queued in the job store (they resume at the next start)."""
        self._closing = True
        if self._tasks:
            _, pending = await asyncio.wait(list(self._tasks), timeout=self.drain_s / 2)
            if pending:
                self._cancel.set()
                _, pending = await asyncio.wait(pending, timeout=self.drain_s / 2)
            for task in pending:
                task.cancel()
