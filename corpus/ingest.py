"""Ingest: files and folders → parsed, chunked, keyword- (and optionally dense-) vectorised
documents in a collection, with a per-file report (issue 2, items 7–9).

Per run: walk the given paths (folders recursively, supported suffixes only, hidden entries
skipped), hash every file (sha256 = ``doc_id``), skip files whose path already holds that hash,
parse + chunk + tokenize the others (in worker processes when there are several), embed
``chunk.context_text()`` when an embedder is given, and write each document by the catalogue's
staged-switch protocol (``corpus.catalogue``). Documents under a walked folder that are no longer
there are removed. A bad file yields one ``failed`` result with a code from
``corpus.errors.PARSE_ERROR_CODES`` (or ``store_error``) and the batch goes on. A run that
created its collection and leaves no document in it drops the collection again (the report
warns ``collection_not_created``): an ingest whose every file failed leaves nothing behind.

Large files are written in batches of ``write_batch`` chunks: parsed in this process (one
worker), a document is chunked as a stream (``corpus.chunker.DocumentChunks``: the same chunks
and ids as ``chunk_document``, never all in memory; the parsed blocks are held) and its chunks,
keyword and dense vectors are computed one batch at a time and written staged as they come, so
memory for chunks and vectors is bounded by the batch size (a text-like file above
``STREAM_TEXT_BYTES``, any file above ``STREAM_ANY_BYTES`` — both in ``corpus._ingest_run``,
one run's work — is taken out of the worker processes for this, after the other files);
``step(phase, path, done, total)`` reports ``parsing``,
``embedding`` (chunks written of the document's total) and ``switching``; a ``cancel`` event set
by another thread (or a signal handler) stops the run between two batches, or before the next
document, with ``corpus.errors.IngestCancelled``, the document being written rolled back and the
worker processes stopped. While :attr:`Ingestor.interruptible` (no store write under way), any
exception raised in the ingesting thread stops the run as cleanly (``loopgate ingest`` raises
one from its SIGINT / SIGTERM handler: ``gateway.cli._ingest_stop``).

Duplicates (case 16) add no chunks: a file with the bytes of a document already in the collection
(sha256), or whose parsed text equals one's after normalisation
(``corpus.text_identity.document_key``: CRLF, trailing blanks, NFKC), is ``skipped`` with
``error_code="duplicate"`` and ``duplicate_of`` naming the kept document (``removed`` instead
when its path held another version before, which is then deleted). Within one run the first
file in walk order is kept (with several worker processes: the first parsed; large files —
``STREAM_TEXT_BYTES`` — come after the others). A document whose
words equal another's but not its layout (``loose_key``: the same text as PDF) is indexed with a
``probable_duplicate:`` warning.

Usage example::

    ingestor = Ingestor(store, Tokenizer())            # keyword-only; pass embedder= for dense
    report = ingestor.ingest_paths([Path("docs")], "manuals")
    print(report.counts, report.pages, report.chunks)
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from threading import Event

from corpus._ingest_files import collect_files, default_root, printable_path, relative_path
from corpus._ingest_prepare import ParseFn
from corpus._ingest_report import FileResult, FileStatus, IngestProgress, IngestReport
from corpus._ingest_run import IngestRun
from corpus._ingest_write import DocumentWriter, StepFn
from corpus.catalogue import Catalogue
from corpus.directory_build import DirectoryBuilder
from corpus.errors import StoreError
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import PassageEmbedder

__all__ = [
    "FileResult",
    "FileStatus",
    "IngestProgress",
    "IngestReport",
    "Ingestor",
    "StepFn",
    "collect_files",
    "printable_path",
    "usable_cores",
]


class Ingestor:
    """Ingests files into a collection of a :class:`QdrantChunkStore`.

    :param store: the chunk store.
    :param tokenizer: keyword tokenizer (the worker processes build their own, same settings).
    :param embedder: dense embedder, or ``None`` for a keyword-only collection.
    :param workers: worker processes that parse and chunk (default: the usable cores; 1 = all
        in this process, the embedder here), and as many that embed when the embedder offers
        ``worker_factory(threads)`` (``rag.embedder.FastEmbedEmbedder``), each with its share of
        ``embedder.threads``, in tasks of ``embed_task`` chunks
        (``corpus._ingest_worker.embed_prepared``). Largest files go first, at most
        ``2 × workers`` parsed ahead.
    :param parse: parser function (default ``corpus.parsers.parse_file``); must be picklable.
    :param directory: builds each written document's directory entries
        (``corpus.directory_build.DirectoryBuilder``); ``None`` = none stored (the loop then
        builds extractive entries when it first reads a document's directory).
    :param write_batch: chunks embedded and written per batch (module docstring).
    :param embed_task: chunks per task of an embed worker (at least 1).
    """

    def __init__(
        self,
        store: QdrantChunkStore,
        tokenizer: Tokenizer,
        embedder: PassageEmbedder | None = None,
        *,
        workers: int | None = None,
        parse: ParseFn | None = None,
        directory: DirectoryBuilder | None = None,
        write_batch: int = 64,
        embed_task: int = 32,
    ) -> None:
        self.store, self.tokenizer, self.embedder = store, tokenizer, embedder
        self.embed_task = max(1, embed_task)
        self.write_batch = max(1, write_batch)
        self.directory = directory
        self.catalogue = Catalogue(store)
        self.writer = DocumentWriter(store, self.catalogue, tokenizer, embedder, directory,
                                     write_batch)
        self.workers = workers if workers is not None else usable_cores()
        self.parse = parse
        #: the report of the running or last run, filled as files finish: after a run that
        #: raised (cancelled, interrupted) it says what was done before
        self.report: IngestReport | None = None
        self._current: IngestRun | None = None  # the running ingest_paths

    @property
    def interruptible(self) -> bool:
        """True while :meth:`ingest_paths` only waits for, parses or embeds the next document
        (in worker processes or here) and writes nothing: an exception raised in the ingesting
        thread now — by a signal handler, e.g. ``loopgate ingest`` on SIGTERM — stops the run
        with the store as it was (the worker processes are stopped, the documents written so
        far stay). Otherwise set the ``cancel`` event: the document being written is rolled
        back at its next batch, or the run stops before the next document."""
        return self._current is not None and self._current.interruptible

    def ingest_paths(
        self,
        paths: Sequence[Path | str],
        collection: str,
        *,
        root: Path | str | None = None,
        progress: Callable[[IngestProgress], None] | None = None,
        step: StepFn | None = None,
        cancel: Event | None = None,
    ) -> IngestReport:
        """Ingest files and folders into ``collection`` (created if missing).

        :param paths: files and/or folders.
        :param root: paths are stored relative to it; default = the common parent of the given
            folders (a lone folder is its own root; a file's folder counts for a file).
        :param progress: called after each file with an :class:`IngestProgress`.
        :param step: called within a file (:data:`StepFn`).
        :param cancel: when set (by another thread or a signal handler), the run stops before
            the next write batch or the next document, and its worker processes are stopped.
        :returns: the per-file :class:`IngestReport` (also :attr:`report`, filled as files
            finish, so a run that raised still tells what it did).
        :raises OutsideRootError: a path lies outside ``root`` (a ``ValueError``). A file whose
            name or folder is not valid UTF-8 is a ``failed`` result (``undecodable_name``).
        :raises StoreError: the store cannot be opened or written at all.
        :raises IngestCancelled: ``cancel`` was set; the file being written was rolled back.
        """
        from corpus.parsers import SUPPORTED_SUFFIXES

        t0 = time.perf_counter()
        # abspath also folds `a/../b` (Path.absolute does not), links left as they are
        given = [Path(os.path.abspath(p)) for p in paths]
        base = Path(os.path.abspath(root)) if root is not None else default_root(given)
        files, dirs, ignored = collect_files(given, list(SUPPORTED_SUFFIXES))
        # OutsideRootError before anything is written
        rels = [relative_path(f, base) for f in files]
        report = self.report = IngestReport(
            collection, printable_path(str(base)), ignored=ignored,
            keyword_only=self.embedder is None
        )
        created = collection not in self.store.list_collections()  # the run creates it
        self._current = IngestRun(
            self.store, self.catalogue, self.writer, self.embedder, workers=self.workers,
            parse=self.parse, embed_task=self.embed_task, collection=collection, report=report,
            t0=t0, progress=progress, step=step, cancel=cancel)
        try:
            self._current.run(files, rels, dirs)
        except Exception:  # cancelled, a store error (a KeyboardInterrupt: as kill -9)
            if created:
                self._drop_if_empty(collection, report)
            raise
        finally:
            self._current = None
            report.elapsed_s = time.perf_counter() - t0
            if not report.corpus_version:  # the run raised: the version it left
                with contextlib.suppress(StoreError):
                    report.corpus_version = self.catalogue.corpus_version(collection)
        if created:
            self._drop_if_empty(collection, report)
        return report

    def _drop_if_empty(self, collection: str, report: IngestReport) -> None:
        """Drop ``collection``, which this run created, when it holds no document at the end
        (every file failed, none was found, the run was cancelled or failed before the first
        was written; a KeyboardInterrupt leaves the store as it is), saying so in
        ``report.warnings`` (``collection_not_created``): an empty collection left behind was
        listed as known, queried and reconciled as if it held something (new-user trial: a
        folder of one corrupt PDF). Best effort: a store error leaves it."""
        with contextlib.suppress(StoreError):
            if collection not in self.store.list_collections() or \
                    self.catalogue.has_documents(collection):
                return
            self.store.drop_collection(collection)
            report.corpus_version = 0
            report.warnings.append(
                f"collection_not_created: no document could be ingested, so the new "
                f"collection {collection!r} was not kept")

    def remove_document(self, collection: str, doc: str) -> FileResult | None:
        """Remove a document (by stored path or ``doc_id``) from both indexes and the catalogue;
        ``None`` when the collection holds no such document."""
        entry = self.catalogue.find(collection, doc)
        if entry is None:
            return None
        removed = self.writer.remove(collection, entry.info.path)
        self.store.flush()
        return removed


def usable_cores() -> int:
    """CPU cores this process may run on (its affinity mask; ``os.cpu_count`` elsewhere)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)

