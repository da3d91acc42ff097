"""Background ingest jobs for ``POST /v1/documents`` and deletions for ``DELETE``.

One job = one upload request: the request's files wait in a staging folder of their own; the job
moves them into the collection's upload folder and ingests them with ``corpus.ingest.Ingestor``
in a worker thread, both inside one critical section (jobs run one at a time: the store has one
writer), so a job always ingests and reports its own bytes, even when two uploads of the same
file name run at once. Progress (files done of total, pages, chunks, last file) is readable
through ``GET /v1/documents/jobs/{job_id}``. Any failure of a job (a store error, a collection
held by another process …) ends it as ``failed`` with the error, never a stuck ``running``. When
a job or a deletion changes a collection, the gateway forgets its cached corpus version and tells the
answer cache (``on_corpus_change``: entries citing replaced or removed documents and entries of
older corpus versions are retired), so the next question is a miss that sees the change.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
import uuid
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["IngestJob", "IngestJobs"]

log = logging.getLogger("loopgate.gateway")
_KEEP_JOBS = 200


@dataclass
class IngestJob:
    """One upload's ingest: ``status`` queued | running | done | failed."""

    job_id: str
    collection: str
    files: list[str]
    status: str = "queued"
    progress: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] | None = None
    error: str = ""
    created_at: float = field(default_factory=time.time)
    finished_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (API)."""
        return asdict(self)


class IngestJobs:
    """Runs ingest jobs and deletions for one gateway process.

    :param components: the process's ``gateway.app_state.Components`` (store, tokenizer,
        embedder, cache).
    """

    def __init__(self, components: Any) -> None:
        self.c = components
        self.jobs: OrderedDict[str, IngestJob] = OrderedDict()
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._ingestor: Any = None

    def _get_ingestor(self) -> Any:
        if self._ingestor is None:
            from corpus.ingest import Ingestor

            self._ingestor = Ingestor(self.c.store, self.c.tokenizer, self.c.embedder, workers=1)
        return self._ingestor

    def submit(self, collection: str, staged: list[Path], root: Path) -> IngestJob:
        """Queue the ingest of ``staged`` files; returns the job at once.

        :param staged: files saved under their final names in a staging folder of this upload
            alone (removed when the job ends); the job moves them into ``root`` right before it
            ingests them, inside the jobs' critical section.
        :param root: the collection's upload folder (document paths are relative to it).
        """
        job = IngestJob(uuid.uuid4().hex[:16], collection, [p.name for p in staged])
        self.jobs[job.job_id] = job
        while len(self.jobs) > _KEEP_JOBS:
            self.jobs.popitem(last=False)
        task = asyncio.create_task(self._run(job, staged, root))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    def get(self, job_id: str) -> IngestJob | None:
        """The job, or ``None`` when unknown (or long forgotten)."""
        return self.jobs.get(job_id)

    def recent(self, collection: str, limit: int = 20) -> list[IngestJob]:
        """The latest jobs of ``collection``, newest first."""
        return [j for j in reversed(self.jobs.values()) if j.collection == collection][:limit]

    async def _run(self, job: IngestJob, staged: list[Path], root: Path) -> None:
        try:
            async with self._lock:
                job.status = "running"
                try:
                    await self._ingest(job, staged, root)
                finally:
                    self.c.forget(job.collection)
        except asyncio.CancelledError:
            self._fail(job, "cancelled (the gateway shut down)")
            raise
        except Exception as exc:  # noqa: BLE001 - reported through the job
            self._fail(job, f"{type(exc).__name__}: {exc}")
        finally:
            for folder in {p.parent for p in staged}:
                await asyncio.to_thread(shutil.rmtree, folder, True)

    def _fail(self, job: IngestJob, error: str) -> None:
        job.status, job.error = "failed", error
        job.finished_at = time.time()
        log.error("ingest job %s failed: %s", job.job_id, error)

    async def _ingest(self, job: IngestJob, staged: list[Path], root: Path) -> None:
        """Move the staged files into ``root``, ingest and report (the caller holds the lock)."""
        ingestor = self._get_ingestor()
        before = await asyncio.to_thread(self._doc_ids, job.collection)
        await asyncio.to_thread(root.mkdir, parents=True, exist_ok=True)
        paths = [root / p.name for p in staged]
        for src, dest in zip(staged, paths, strict=True):
            await asyncio.to_thread(os.replace, src, dest)

        def progress(p: Any) -> None:
            job.progress = asdict(p)

        report = await asyncio.to_thread(
            ingestor.ingest_paths, paths, job.collection, root=root, progress=progress
        )
        job.report = report.to_dict()
        changed = [before[f.path] for f in report.files
                   if f.status in ("replaced", "removed") and f.path in before]
        await self._retire(job.collection, str(report.corpus_version), changed)
        bad = [f for f in report.files if f.status == "failed"]
        if report.files and len(bad) == len(report.files):  # as `loopgate ingest` exits 1
            job.status = "failed"
            job.error = f"no file could be ingested: {bad[0].error_code}: {bad[0].error_message}"
        else:
            job.status = "done"
        job.finished_at = time.time()

    def _doc_ids(self, collection: str) -> dict[str, str]:
        """``{path: doc_id}`` of the collection's documents now."""
        from corpus.catalogue import Catalogue

        return {p: e.info.doc_id for p, e in Catalogue(self.c.store).entries(collection).items()}

    async def _retire(self, collection: str, version: str, doc_ids: list[str]) -> None:
        """Tell the answer cache that ``collection`` changed (best effort: a cache that is down
        cannot serve stale answers either, because keys carry the corpus version)."""
        cache = self.c.cache
        if cache is None:
            return
        try:
            await cache.on_corpus_change(collection, version, doc_ids)
        except Exception as exc:  # noqa: BLE001
            log.warning("answer cache not told about the change of %s: %s", collection, exc)

    async def delete(self, collection: str, doc: str) -> dict[str, Any] | None:
        """Remove a document (path, file name or ``doc_id``) from both indexes; ``None`` when
        the collection has no such document."""
        async with self._lock:
            ingestor = self._get_ingestor()
            try:
                res = await asyncio.to_thread(ingestor.remove_document, collection, doc)
            finally:
                self.c.forget(collection)
            if res is None:
                return None
            version = await asyncio.to_thread(self.c.corpus_version, collection)
            await self._retire(collection, version, [res.doc_id])
            return asdict(res)

    async def wait_idle(self) -> None:
        """Wait until every queued job has finished (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """Let running jobs finish (an ingest is never cut half-way)."""
        await self.wait_idle()
