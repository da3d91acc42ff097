"""One run of :meth:`corpus.ingest.Ingestor.ingest_paths` over the files it collected: what each
file needs (nothing, its dense vectors, a ``duplicate`` result, or to be read), in which order
and where the files are read (worker processes, or this process as a stream), then each
prepared document written, and the documents whose files are gone removed (module docstring of
``corpus.ingest``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from threading import Event

from corpus._ingest_files import file_size, gone_from, hash_files
from corpus._ingest_prepare import Failure, ParseFn, Prepared
from corpus._ingest_report import FileResult, IngestProgress, IngestReport
from corpus._ingest_worker import embed_prepared, run_prepare
from corpus._ingest_write import DocumentWriter, StepFn
from corpus.catalogue import Catalogue
from corpus.catalogue_entry import CatalogueEntry
from corpus.embed_probe import runtime_name, vectors_differ
from corpus.errors import IngestCancelled
from corpus.qdrant_store import QdrantChunkStore
from corpus.types import PassageEmbedder

__all__ = ["POOL_MIN_BYTES", "STREAM_ANY_BYTES", "STREAM_TEXT_BYTES", "IngestRun"]

#: text-like files above this many bytes (and any file above :data:`STREAM_ANY_BYTES`) are
#: prepared in this process as a chunk stream, after the others: a worker process returns a
#: whole document's chunks and vectors (2 MB of text ≈ 1,700 chunks ≈ 25 MB with e5 vectors
#: as Python lists, times the ``2 × workers`` documents in flight)
STREAM_TEXT_BYTES = 2_000_000
STREAM_ANY_BYTES = 32_000_000
_TEXT_LIKE = (".txt", ".text", ".md", ".markdown", ".html", ".htm")
#: the worker pool (parse processes, and embed processes that each load the embedding model,
#: ~0.55 GB, tens of seconds on a loaded 2-core machine) starts only when the files for it hold
#: at least this many bytes together; below that they are read in this process. Measured here
#: (2 cores, load 11-14, e5-small, see docs/ingest.md, "Speed"): 4 Markdown files of 98 bytes
#: took 91 s with the pool against 7.8 s in one process in a new-user trial; here 26.9 s against
#: 17.1 s (wall, loopgate ingest); the 8 zh PDFs (9.9 MB) keep the pool and its speed. The cut
#: lies between; 500 kB keeps the 5 FinanceBench filings (0.71 MB) of the determinism and
#: signal tests on the pool. Not a measured break-even point.
POOL_MIN_BYTES = 500_000

Jobs = list[tuple[str, str]]  # (absolute path, stored path) of each file to read


def _streamed(path: str, size: int) -> bool:
    """True when ``path`` (of ``size`` bytes) is prepared in this process as a stream."""
    return size > STREAM_ANY_BYTES or (size > STREAM_TEXT_BYTES
                                       and path.lower().endswith(_TEXT_LIKE))


class IngestRun:
    """The state of one ingest run into ``collection``: its report, filled as files finish
    (each result also reported to ``progress``), and :attr:`interruptible`, True while the run
    only waits for, parses or embeds the next document.

    :param writer: writes, duplicates and removes documents (staged protocol).
    :param workers: parse (and embed) worker processes asked for (used from 4 files read that
        hold :data:`POOL_MIN_BYTES` together).
    :param parse: the parser function, or ``None`` for ``corpus.parsers.parse_file``.
    :param embed_task: chunks per task of an embed worker.
    """

    def __init__(
        self,
        store: QdrantChunkStore,
        catalogue: Catalogue,
        writer: DocumentWriter,
        embedder: PassageEmbedder | None,
        *,
        workers: int,
        parse: ParseFn | None,
        embed_task: int,
        collection: str,
        report: IngestReport,
        t0: float,
        progress: Callable[[IngestProgress], None] | None,
        step: StepFn | None,
        cancel: Event | None,
    ) -> None:
        self.store, self.catalogue, self.writer, self.embedder = store, catalogue, writer, embedder
        self.workers, self.parse, self.embed_task = workers, parse, embed_task
        self.collection, self.report, self.t0 = collection, report, t0
        self.progress, self.step, self.cancel = progress, step, cancel
        self.interruptible = False
        self.total = 0
        self.work = [0, 0]  # bytes of the files to read: done, total (the time-left estimate)

    def done(self, res: FileResult) -> None:
        """One file's result: into the report, then to ``progress``."""
        report = self.report
        report.files.append(res)
        if self.progress is not None:
            self.progress(
                IngestProgress(
                    len(report.files), self.total, report.pages, report.chunks, res.path,
                    res.status, self.work[0], self.work[1], time.perf_counter() - self.t0
                )
            )

    def _check_runtime(self, probe: list[float], *, empty: bool) -> None:
        """Store the embedding runtime's fingerprint ``probe`` (the embedder's ``fingerprint()``,
        ``corpus.embed_probe``; an embedder without one is not checked) with a collection that
        holds no document yet; for one that holds a fingerprint of another runtime, say so in
        the report (``embed_runtime_differs``): the new vectors will not match the old ones
        exactly. A collection built before fingerprints were stored is left without one."""
        meta = self.store.collection_meta(self.collection)
        stored = meta.get("embed_probe")
        if stored is None:
            if empty:
                self.store.update_meta(self.collection, embed_probe=probe,
                                       embed_runtime=runtime_name())
        elif vectors_differ(stored, probe):
            self.report.warnings.append(
                f"embed_runtime_differs: the collection's vectors were made by "
                f"{meta.get('embed_runtime') or 'another runtime'}, these by "
                f"{runtime_name() or 'this one'}, and differ (int8 model, runtime kernels): "
                f"dense search mixes the two; re-ingest into a new collection to make them one")

    def run(self, files: list[Path], rels: list[str], dirs: list[Path]) -> IngestReport:
        """Ingest ``files`` (stored as ``rels``; ``dirs`` the walked folders)."""
        collection, emb = self.collection, self.embedder
        self.store.ensure_collection(collection, dense_dim=emb.dim if emb else None,
                                     embed_model=emb.model_name if emb else None)
        self.store.purge_staged(collection)
        entries = self.catalogue.entries(collection)
        fingerprint = getattr(emb, "fingerprint", None)  # a runtime's (rag.embedder), not a stub's
        if callable(fingerprint):
            self._check_runtime(fingerprint(), empty=not entries)
        self.total, seen = len(files), set[str]()
        jobs = self._sort_out(hash_files(files, rels, seen, self.done), entries)
        # text keys of the documents kept; a path being re-read no longer vouches for its text
        rereads = {rel for _, rel in jobs}
        kept = [(p, e.info) for p, e in entries.items() if p not in rereads]
        by_text = {i.text_key: p for p, i in kept if i.text_key}
        by_loose = {i.loose_key: p for p, i in kept if i.loose_key}
        jobs, sizes, n_pool, workers = self._schedule(jobs)
        for i, result in self._between_writes(self._prepared(jobs, n_pool, workers)):
            rel = jobs[i][1]
            self.work[0] += sizes[i]
            if isinstance(result, Failure):
                # name the file by its stored path: reports reach HTTP clients, which must not
                # learn the server's directory layout
                message = result.message.replace(jobs[i][0], rel)
                self.done(FileResult(rel, "failed", error_code=result.code,
                                     error_message=message))
                continue
            same = by_text.get(result.text_key) if result.text_key else None
            if same is not None:
                self.done(
                    self.writer.duplicate(
                        collection, rel, result.doc_id, same, "the same text", entries.get(rel)
                    )
                )
                continue
            probable = by_loose.get(result.loose_key) if result.loose_key else None
            if probable is not None:
                result.warnings.append(
                    f"probable_duplicate: the same text as {probable!r} in another layout or "
                    "format; indexed as its own document"
                )
            res = self.writer.write(collection, rel, result, entries.get(rel), Path(jobs[i][0]),
                                    self.step, self.cancel)
            if res.status != "failed":
                by_text.setdefault(result.text_key, rel)
                by_loose.setdefault(result.loose_key, rel)
            self.done(res)
        for rel in sorted(set(entries) - seen):
            # Remove only what this walk can vouch for: a document read from under a walked
            # folder whose file is gone. Documents from other folders or uploads stay.
            if gone_from(entries[rel].source, dirs):
                removed = self.writer.remove(collection, rel)
                if removed is not None:
                    self.done(removed)
        self.store.flush()
        self.report.corpus_version = self.catalogue.corpus_version(collection)
        return self.report

    def _sort_out(self, hashed: list[tuple[Path, str, str]],
                  entries: dict[str, CatalogueEntry]) -> Jobs:
        """The hashed files to read; the others reported here: ``unchanged`` (or embedded, in
        a collection given an embedder since) and duplicates of a document's bytes."""
        collection, emb, cancel = self.collection, self.embedder, self.cancel
        jobs: Jobs = []
        # a path whose file changed in this run no longer vouches for its old bytes
        now = {rel: digest for _, rel, digest in hashed}
        by_doc = {
            e.info.doc_id: p
            for p, e in entries.items()
            if now.get(p, e.info.doc_id) == e.info.doc_id
        }
        for f, rel, digest in hashed:
            old = entries.get(rel)
            if old is not None and old.info.doc_id == digest:
                if emb is not None and not old.info.has_dense:
                    if cancel is not None and cancel.is_set():
                        raise IngestCancelled(f"cancelled before embedding {rel}")
                    self.done(self.writer.embed_existing(collection, old))
                else:
                    self.done(FileResult(rel, "unchanged", old.info.page_count,
                                         old.info.chunk_count, digest))
            elif digest in by_doc and by_doc[digest] != rel:
                self.done(self.writer.duplicate(collection, rel, digest, by_doc[digest],
                                                "the same bytes", old))
            else:
                by_doc[digest] = rel
                jobs.append((str(f), rel))
        return jobs

    def _schedule(self, jobs: Jobs) -> tuple[Jobs, list[int], int, int]:
        """``(jobs, sizes, n_pool, workers)``: the first ``n_pool`` jobs for the worker pool of
        ``workers`` processes (1 = this process: fewer than 4 files, or less than
        :data:`POOL_MIN_BYTES` of them together), largest first; then the
        large files, read here as streams (a worker returns whole chunk lists)."""
        sizes = [file_size(p) for p, _ in jobs]
        big = [j for j in range(len(jobs)) if _streamed(jobs[j][0], sizes[j])]
        pool = [j for j in range(len(jobs)) if j not in set(big)]
        n_pool = len(pool)
        big_enough = n_pool >= 4 and sum(sizes[j] for j in pool) >= POOL_MIN_BYTES
        workers = self.workers if big_enough else 1
        if workers > 1:  # largest first: the last file to finish is a small one
            pool.sort(key=lambda j: -sizes[j])
        jobs, sizes = [jobs[j] for j in pool + big], [sizes[j] for j in pool + big]
        self.work[1] = sum(sizes)
        return jobs, sizes, n_pool, workers

    def _prepared(self, jobs: Jobs, n_pool: int,
                  workers: int) -> Iterator[tuple[int, Prepared | Failure]]:
        """Every job's prepared document (or failure) by job index: the pool's as they finish,
        then the streamed ones in order."""
        emb = self.embedder
        # parse workers hold no model; embed workers (as many) embed every document's chunks
        factory = getattr(emb, "worker_factory", None) if workers > 1 else None
        embed = factory(max(1, getattr(emb, "threads", 1) // workers)) if factory else None

        def parsing(i: int) -> None:
            if self.cancel is not None and self.cancel.is_set():
                raise IngestCancelled(f"cancelled before {jobs[i][1]}")
            if self.step is not None:
                self.step("parsing", jobs[i][1], 0, 0)

        parsed = run_prepare(jobs[:n_pool], workers=workers, parse=self.parse, on_start=parsing)
        yield from (embed_prepared(parsed, workers=workers, embed=embed,
                                   batch=self.embed_task) if embed is not None else parsed)
        for k, res in run_prepare(jobs[n_pool:], workers=1, parse=self.parse,
                                  on_start=lambda k: parsing(n_pool + k)):
            yield n_pool + k, res

    def _between_writes(self, results: Iterator[tuple[int, Prepared | Failure]]
                        ) -> Iterator[tuple[int, Prepared | Failure]]:
        """``results``, :attr:`interruptible` while the next one is awaited; stops with
        :class:`IngestCancelled` when ``cancel`` was set during a write (the generators' own
        handlers stop their worker processes)."""
        it = iter(results)
        try:
            while True:
                self.interruptible = True
                if self.cancel is not None and self.cancel.is_set():
                    raise IngestCancelled("cancelled before the next document")
                try:
                    item = next(it)
                except StopIteration:
                    return
                finally:
                    self.interruptible = False
                yield item
        finally:
            close = getattr(it, "close", None)
            if callable(close):
                close()  # stops the worker processes now, not when collected
