"""The write side of an ingest run (``corpus.ingest``): one prepared document written to the
store batch by batch by the catalogue's staged-switch protocol, a duplicate's result, and dense
vectors added to a document ingested keyword-only."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from threading import Event

from corpus._ingest_prepare import Prepared
from corpus._ingest_report import FileResult, FileStatus
from corpus.catalogue import Catalogue
from corpus.catalogue_entry import CatalogueEntry, bounded_outline, outline_from_chunks
from corpus.chunker import DocumentChunks
from corpus.directory_build import DirectoryBuilder
from corpus.errors import IngestCancelled, StoreError
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk, DocumentInfo, PassageEmbedder, SparseVector

__all__ = ["DocumentWriter", "StepFn"]

#: ``step(phase, path, done, total)``: ``parsing`` (0, 0), ``embedding`` (chunks written of
#: the document's chunks), ``switching`` (all, all) — called from the ingesting thread.
StepFn = Callable[[str, str, int, int], None]


class DocumentWriter:
    """Writes prepared documents into a collection (see the module docstring).

    :param store: the chunk store; ``catalogue`` its catalogue.
    :param tokenizer: keyword tokenizer (sparse vectors a worker did not compute).
    :param embedder: dense embedder, or ``None`` for keyword-only.
    :param directory: builds each written document's directory entries (``None``: none).
    :param write_batch: chunks embedded and written per batch (at least 1).
    """

    def __init__(self, store: QdrantChunkStore, catalogue: Catalogue, tokenizer: Tokenizer,
                 embedder: PassageEmbedder | None, directory: DirectoryBuilder | None,
                 write_batch: int) -> None:
        self.store, self.catalogue, self.tokenizer = store, catalogue, tokenizer
        self.embedder, self.directory = embedder, directory
        self.write_batch = max(1, write_batch)

    def remove(self, collection: str, path: str) -> FileResult | None:
        """Delete the document stored at ``path`` (its chunks unless another path shares them,
        and its entry); its ``removed`` result, or ``None`` when the path holds none."""
        removed = self.catalogue.remove(collection, path)
        if removed is None:
            return None
        info = removed.info
        return FileResult(path, "removed", info.page_count, info.chunk_count, info.doc_id)

    def duplicate(
        self,
        collection: str,
        rel: str,
        doc_id: str,
        kept: str,
        same: str,
        previous: CatalogueEntry | None,
    ) -> FileResult:
        """The result for a duplicate of the document at ``kept``: ``skipped``, or ``removed``
        when ``rel`` held another version, which is deleted now (the file no longer says it)."""
        message = f"{same} as {kept!r}, indexed once"
        if previous is not None and previous.info.doc_id != doc_id:
            try:
                self.catalogue.remove(collection, rel)
            except StoreError as exc:
                return FileResult(
                    rel, "failed", error_code="store_error", error_message=f"{rel}: {exc}"
                )
            return FileResult(
                rel,
                "removed",
                previous.info.page_count,
                previous.info.chunk_count,
                previous.info.doc_id,
                "duplicate",
                f"{message}; its earlier version was removed",
                kept,
            )
        return FileResult(rel, "skipped", 0, 0, doc_id, "duplicate", message, kept)

    def batches(
        self, rel: str, prep: Prepared, step: StepFn | None, cancel: Event | None
    ) -> Iterator[tuple[list[Chunk], list[SparseVector], list[list[float]] | None]]:
        """``(chunks, sparse, dense)`` per :attr:`write_batch` chunks of ``prep``, each batch
        chunked (a :class:`~corpus.chunker.DocumentChunks` stream) and vectorised only when
        asked for (vectors a worker already computed are sliced).

        :raises IngestCancelled: ``cancel`` is set before a batch.
        """
        chunks, n = prep.chunks, len(prep.chunks)
        have_sparse = len(prep.sparse) == n
        have_dense = prep.dense is not None and len(prep.dense) == n
        batches = (chunks.batches(self.write_batch) if isinstance(chunks, DocumentChunks)
                   else (chunks[i:i + self.write_batch] for i in range(0, n, self.write_batch)))
        start = 0
        for batch in batches:
            if cancel is not None and cancel.is_set():
                raise IngestCancelled(f"{rel}: cancelled after {start} of {n} chunks")
            end = start + len(batch)
            texts = [c.context_text() for c in batch]
            sparse = (prep.sparse[start:end] if have_sparse
                      else [self.tokenizer.sparse(t) for t in texts])
            dense = (prep.dense[start:end] if have_dense and prep.dense is not None
                     else self.embed(texts))
            yield batch, sparse, dense
            start = end
            if step is not None:
                step("embedding", rel, end, n)
        if step is not None:
            step("switching", rel, n, n)

    def write(
        self, collection: str, rel: str, prep: Prepared, previous: CatalogueEntry | None,
        path: Path, step: StepFn | None = None, cancel: Event | None = None,
    ) -> FileResult:
        try:
            size = path.stat().st_size if path.exists() else 0
            n = len(prep.chunks)  # a stream counts its chunks once (the progress total)
            info = DocumentInfo(
                prep.doc_id,
                rel,
                prep.title,
                prep.media_type,
                prep.page_count,
                n,
                time.time(),
                self.embedder is not None or prep.dense is not None,
                prep.text_key,
                prep.loose_key,
            )
            outline, cut = bounded_outline(prep.outline or outline_from_chunks(prep.chunks))
            if cut:
                prep.warnings.append(cut)
            entry = CatalogueEntry(info, outline, size, prep.warnings, str(path.absolute()))
            self.catalogue.commit_streamed(
                collection, entry, prep.chunks, self.batches(rel, prep, step, cancel),
                previous=previous,
            )
            if self.directory is not None:  # after the commit: never blocks the document
                old = previous.info.doc_id if previous is not None else None
                if warn := self.directory.write(self.store, collection, prep.doc_id,
                                                prep.chunks, old):
                    prep.warnings.append(warn)
        except StoreError as exc:
            return FileResult(
                rel, "failed", error_code="store_error", error_message=f"{rel}: {exc}"
            )
        status: FileStatus = "replaced" if previous is not None else "ingested"
        return FileResult(
            rel, status, prep.page_count, n, prep.doc_id, warnings=prep.warnings
        )

    def embed(self, texts: list[str]) -> list[list[float]] | None:
        return None if self.embedder is None else self.embedder.embed_passages(texts)

    def embed_existing(self, collection: str, entry: CatalogueEntry) -> FileResult:
        """Add dense vectors to an unchanged document ingested keyword-only."""
        info = entry.info
        try:
            chunks = self.store.document_chunks(collection, info.doc_id)
            dense = self.embed([c.context_text() for c in chunks])
            sparse = [self.tokenizer.sparse(c.context_text()) for c in chunks]
            self.store.upsert_chunks(collection, chunks, sparse, dense)
            self.catalogue.set_has_dense(collection, entry)
        except StoreError as exc:
            return FileResult(
                info.path, "failed", error_code="store_error", error_message=f"{info.path}: {exc}"
            )
        return FileResult(info.path, "embedded", info.page_count, len(chunks), info.doc_id)

