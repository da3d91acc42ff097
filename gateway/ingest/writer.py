"""What changes a collection's index for :class:`gateway.ingest.jobs.IngestJobs`: one job's
staged files moved into the upload folder and ingested one at a time (:meth:`CollectionWriter
.ingest`, ``corpus.ingest.Ingestor`` in a daemon thread), the start-up reconciliation of an
upload folder with the index (:meth:`CollectionWriter.reconcile`), a document's removal
(:meth:`CollectionWriter.delete`), and the answer cache told of each change
(:meth:`CollectionWriter.retire`). The upload folder of a collection that ends up not existing
(none of its files could be ingested) is removed when empty. The caller holds the
collection's lock.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from corpus.catalogue import Catalogue
from gateway.cache import AnswerCache
from gateway.ingest.job import IngestJob, run_in_daemon, totals
from gateway.ingest.job_store import fsync_dir
from gateway.settings import Settings

if TYPE_CHECKING:  # parsers (PyMuPDF …) load with the first upload, not at start-up
    from corpus.ingest import Ingestor

__all__ = ["CollectionWriter", "Drained", "IngestHost"]

log = logging.getLogger("loopgate.gateway")


class Drained(Exception):
    """The gateway is shutting down: stop before the next file."""


class IngestHost(Protocol):
    """What ingest jobs read of the process's components (``gateway.wiring.Components``)."""

    @property
    def settings(self) -> Settings:
        """``data_dir``, ``redis_url``, ``redis_key_prefix``, ``timeout_cache_s``,
        ``ingest_drain_s``."""

    @property
    def store(self) -> Any:
        """The chunk store the catalogue reads (``None`` when it cannot open)."""

    @property
    def embedder(self) -> object | None:
        """The embedder (``None``: the collection is written keyword-only)."""

    @property
    def cache(self) -> AnswerCache | None:
        """The answer cache, told of every change."""

    def corpus_version(self, collection: str) -> str:
        """The collection's corpus version now (blocking)."""

    def forget(self, collection: str | None = None) -> None:
        """Drop the cached corpus version (and collection names) after a change."""


class CollectionWriter:
    """Writes collections for the ingest jobs (module docstring).

    :param host: the process's components.
    :param ingestor: builds the ``corpus.ingest.Ingestor`` (called on first use).
    :param data_dir: the data directory (``uploads/`` below it).
    """

    def __init__(self, host: IngestHost, ingestor: Callable[[], Ingestor],
                 data_dir: Path) -> None:
        self.host, self._make_ingestor, self.data_dir = host, ingestor, data_dir
        self._ingestor: Ingestor | None = None
        self.closing = False  # set on shutdown: no new file starts
        self.cancel = threading.Event()  # set on shutdown: the running file rolls back

    def staging_dir(self, job_id: str) -> Path:
        """``<data_dir>/uploads/.staging/<job_id>``."""
        return self.data_dir / "uploads" / ".staging" / job_id

    def upload_root(self, collection: str) -> Path:
        """``<data_dir>/uploads/<collection>``."""
        return self.data_dir / "uploads" / collection

    def ingestor(self) -> Ingestor:
        """The ingestor, built on first use."""
        if self._ingestor is None:
            self._ingestor = self._make_ingestor()
        return self._ingestor

    def _move_staged(self, job: IngestJob) -> Path:
        """Move the job's staged files into the upload folder (durably); returns the folder."""
        root, staged = self.upload_root(job.collection), self.staging_dir(job.job_id)
        root.mkdir(parents=True, exist_ok=True)
        for name in job.files:
            if (staged / name).is_file():
                if (root / name).is_file():  # kept until the new file is ingested
                    keep = self.previous_file(job.job_id, name)
                    keep.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(root / name, keep)
                    fsync_dir(keep.parent)
                os.replace(staged / name, root / name)
        fsync_dir(root)
        fsync_dir(staged)
        return root

    def previous_file(self, job_id: str, name: str) -> Path:
        """Where the file an upload replaces waits until its replacement is ingested:
        ``<staging>/<job_id>/.previous/<name>`` (removed with the staging folder)."""
        return self.staging_dir(job_id) / ".previous" / name

    async def ingest(self, job: IngestJob, save: Callable[[IngestJob], Awaitable[None]]) -> None:
        """Move the staged files in, ingest them one by one and report, ``save`` -ing the job
        after each file (the caller holds the collection's lock).

        :raises Drained: the gateway is shutting down (before the next file).
        """
        from corpus.ingest import FileResult, IngestReport

        ingestor = self.ingestor()
        root = await asyncio.to_thread(self._move_staged, job)
        before = await asyncio.to_thread(self._doc_ids, job.collection)
        done = {f["path"]: f for f in (job.report or {}).get("files", [])}
        notes = dict.fromkeys((job.report or {}).get("warnings", []))  # the runs' warnings
        t0, version = time.perf_counter(), 0
        for i, name in enumerate(job.files):
            if name in done:
                continue
            if self.closing:
                raise Drained
            job.progress = {**totals(done), "phase": "ingesting", "file": name,
                            "files_done": i, "files_total": len(job.files)}
            rep = await run_in_daemon(ingestor.ingest_paths, [root / name], job.collection,
                                      root=root, step=self._stepper(job),
                                      cancel=self.cancel)
            version, job.stalls = rep.corpus_version, 0
            for f in rep.files:
                done[f.path] = asdict(f)
            notes.update(dict.fromkeys(rep.warnings))
            report = IngestReport(job.collection, f"uploads/{job.collection}",
                                  [FileResult(**f) for f in done.values()],
                                  keyword_only=self.host.embedder is None, corpus_version=version,
                                  elapsed_s=time.perf_counter() - t0, warnings=list(notes))
            job.report = report.to_dict()
            job.progress = {**totals(done), "phase": "ingesting", "file": name,
                            "files_done": i + 1, "files_total": len(job.files), "path": name,
                            "status": rep.files[0].status if rep.files else "skipped"}
            await save(job)
        files = (job.report or {}).get("files", [])
        changed = [before[f["path"]] for f in files
                   if f["status"] in ("replaced", "removed") and f["path"] in before]
        await self.retire(job.collection, str(version or self.host.corpus_version(job.collection)),
                           changed)
        bad = [f for f in files if f["status"] == "failed"]
        await asyncio.to_thread(self._drop_failed, root, bad, before, job.job_id)
        gone = await asyncio.to_thread(self._drop_unused_folder, job.collection, root)
        if gone is False and job.report is not None:  # a later file's run created it again
            job.report["warnings"] = [w for w in job.report.get("warnings", [])
                                      if not w.startswith("collection_not_created:")]
        if files and len(bad) == len(files):  # as `loopgate ingest` exits 1
            job.status = "failed"
            job.error = (f"no file could be ingested: {bad[0]['error_code']}: "
                         f"{bad[0]['error_message']}"
                         + (f" (the new collection {job.collection!r} was not kept)"
                            if gone else ""))
        else:
            job.status = "done"
        job.progress["phase"] = "done"
        job.finished_at = time.time()

    def _drop_failed(self, root: Path, bad: list[dict[str, Any]], before: dict[str, Any],
                     job_id: str) -> None:
        """Remove from the upload folder the new files that could not be ingested, noting it
        in their report (``upload_removed``): kept there, unlisted by ``GET /v1/documents``
        and beyond the API's reach, they were tried again at every restart's reconciliation
        and failed again (break-it trial: encrypted, truncated and image-only PDFs stayed). A
        file that replaced an indexed document gives its place back to that document's file
        (``upload_restored``: the index still holds it; a break-it trial's failed replacement
        had destroyed the only copy, the viewer then refused the document as changed and the
        next start's reconciliation indexed a duplicate of it)."""
        for f in bad:
            if f["path"] in before:
                keep = self.previous_file(job_id, f["path"])
                if keep.is_file():
                    os.replace(keep, root / f["path"])
                    f["warnings"] = [*f.get("warnings", []), "upload_restored: the file could "
                                     "not be ingested; the document's previous file was kept"]
                continue
            (root / f["path"]).unlink(missing_ok=True)
            f["warnings"] = [*f.get("warnings", []), "upload_removed: the file could not be "
                             "ingested and was removed from the upload folder"]
        if bad:
            fsync_dir(root)

    def _drop_unused_folder(self, collection: str, root: Path) -> bool | None:
        """Remove the upload folder of a collection the job did not leave in the store (the
        ingest drops a new collection none of whose files could be ingested:
        ``collection_not_created``) when the folder is empty: kept, it made the start-up
        reconciliation create the collection again, empty. Whether the collection is gone
        (``None``: the store could not say)."""
        try:
            if collection in self.host.store.list_collections():
                return False
        except Exception:  # noqa: BLE001 - a folder left is what happened before
            return None
        try:
            root.rmdir()  # only when empty
        except OSError:
            return True
        fsync_dir(root.parent)
        return True

    @staticmethod
    def _stepper(job: IngestJob) -> Callable[[str, str, int, int], None]:
        """The ``step`` callback (``corpus.ingest.StepFn``) that shows a file's phase and chunks
        written in ``job.progress`` (called from the ingest thread; one dict swap)."""

        def step(phase: str, _path: str, done: int, total: int) -> None:
            job.progress = {**job.progress, "phase": phase, "chunks_done": done,
                            "chunks_total": total}

        return step

    async def reconcile(self, collection: str) -> dict[str, int] | None:
        """Make the index of ``collection`` match its upload folder (start-up; the caller
        holds the collection's lock): the counts of what changed (``None``: it failed, the
        next start tries again)."""
        root = self.upload_root(collection)
        try:
            rep = await run_in_daemon(self.ingestor().ingest_paths, [root], collection,
                                      root=root, cancel=self.cancel)
        except Exception as exc:  # noqa: BLE001 - the next start tries again
            log.error("reconciling %s failed: %s", collection, exc)
            return None
        finally:
            self.host.forget(collection)
        await asyncio.to_thread(self._drop_unused_folder, collection, root)
        counts = {k: v for k, v in rep.counts.items() if v and k != "unchanged"}
        if counts:
            log.warning("start-up reconciliation of %s: %s", collection, counts)
            await self.retire(collection, str(rep.corpus_version), [])
        return counts

    def _doc_ids(self, collection: str) -> dict[str, str]:
        """``{path: doc_id}`` of the collection's documents now."""
        return {p: e.info.doc_id for p, e in Catalogue(self.host.store).entries(collection).items()}

    async def retire(self, collection: str, version: str, doc_ids: list[str]) -> None:
        """Tell the answer cache that ``collection`` changed (best effort: keys carry the
        corpus version, so a cache that is down cannot serve stale answers either)."""
        cache = self.host.cache
        if cache is None:
            return
        try:
            await cache.on_corpus_change(collection, version, doc_ids)
        except Exception as exc:  # noqa: BLE001
            log.warning("answer cache not told about the change of %s: %s", collection, exc)

    async def delete(self, collection: str, doc: str) -> dict[str, Any] | None:
        """Remove a document (path, file name or ``doc_id``): its uploaded file first (fsynced),
        then its chunks and catalogue entry, so a crash between the two is finished by the
        start-up reconciliation (the caller holds the collection's lock). ``None`` when the
        collection has no such document."""
        ingestor = self.ingestor()
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
            self.host.forget(collection)
        if res is None:
            return None
        version = await asyncio.to_thread(self.host.corpus_version, collection)
        await self.retire(collection, version, [res.doc_id])
        return asdict(res)
