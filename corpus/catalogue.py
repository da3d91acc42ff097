"""The catalogue: which documents a collection holds, their outlines, and the corpus version —
kept in Qdrant beside the chunks (record points, see ``corpus._store_common``), so every gateway
replica on a Qdrant cluster sees the same catalogue.

A document is keyed by its path relative to the ingest root and identified by the sha256 of its
bytes (``doc_id``). :meth:`Catalogue.commit_document` writes a new or changed document so that
no reader ever sees it half-written:

1. delete any chunks of the new ``doc_id`` left by an interrupted run;
2. write all new chunks **staged** (search ignores staged chunks);
3. publish them (one update operation clears the ``staged`` flag of the document);
4. point the catalogue entry of the path at the new ``doc_id``;
5. delete the old version's chunks (if no other path still uses that ``doc_id``);
6. move the corpus version on (the answer cache keys on it, so cached answers retire).

Between steps 3 and 5 a reader may see both the complete old and the complete new version for
a moment, never a mix of the two. If the process dies before step 3, the staged chunks stay
invisible and :meth:`QdrantChunkStore.purge_staged` (called at the start of every ingest run)
removes them. One writer per collection at a time is assumed (the embedded engine enforces one
process; with a Qdrant server, run one ingest at a time per collection).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict

from corpus.catalogue_entry import CatalogueEntry
from corpus.directory import delete_directory
from corpus.page_titles import (
    PageHead,
    PageHeadsBuilder,
    heads_from_data,
    heads_to_data,
    page_heads,
)
from corpus.profile import PROFILE_VERSION, DocumentProfile, build_profile, cover_chunks
from corpus.qdrant_store import QdrantChunkStore
from corpus.types import Chunk, DocumentInfo, OutlineEntry, SparseVector

__all__ = ["Catalogue"]

_KIND = "document"
_PAGES = "pages"  # page heads per doc_id (corpus.page_titles)


class Catalogue:
    """Documents, outlines and corpus version of the collections in one chunk store.

    Usage example::

        cat = Catalogue(store)
        entries = cat.entries("manuals")            # {path: CatalogueEntry}
        cat.corpus_version("manuals")               # 7

    :param store: the :class:`QdrantChunkStore` holding the collections.
    """

    def __init__(self, store: QdrantChunkStore) -> None:
        self.store = store

    def entries(self, collection: str) -> dict[str, CatalogueEntry]:
        """Every document of the collection, by path (``{}`` for a missing collection)."""
        recs = self.store.records(collection, _KIND)
        return {path: CatalogueEntry.from_data(d) for path, d in recs.items()}

    def entry(self, collection: str, path: str) -> CatalogueEntry | None:
        """The document stored under ``path`` (reads its one record), ``None`` when none."""
        data = self.store.record(collection, _KIND, path)
        return CatalogueEntry.from_data(data) if data is not None else None

    def has_documents(self, collection: str) -> bool:
        """True when the collection holds at least one document (reads one record)."""
        return bool(self.store.records(collection, _KIND, limit=1))

    def documents(self, collection: str) -> list[DocumentInfo]:
        """The collection's documents, sorted by path."""
        return [e.info for _, e in sorted(self.entries(collection).items())]

    def find(self, collection: str, doc: str) -> CatalogueEntry | None:
        """The entry whose path or ``doc_id`` (or a unique ``doc_id`` prefix ≥ 8 hex digits, or a
        unique path suffix such as the file name) is ``doc``; ``None`` when none or ambiguous."""
        found = self.candidates(collection, doc)
        return found[0] if len(found) == 1 else None

    def candidates(self, collection: str, doc: str) -> list[CatalogueEntry]:
        """Every entry ``doc`` may name, as :meth:`find` reads it: the one of that path, else
        those of that ``doc_id`` (or prefix ≥ 8), else those whose path ends in ``/doc`` —
        more than one means ``doc`` is ambiguous (``readme.md`` of ``a/`` and ``b/``)."""
        entries = self.entries(collection)
        if doc in entries:
            return [entries[doc]]
        found = [
            e
            for e in entries.values()
            if e.info.doc_id == doc or (len(doc) >= 8 and e.info.doc_id.startswith(doc))
        ]
        if not found:
            found = [e for p, e in entries.items() if p.endswith("/" + doc.lstrip("/"))]
        return found

    def outline(self, collection: str, doc: str) -> list[OutlineEntry]:
        """Section tree of a document (path or ``doc_id``, as :meth:`find`); ``[]`` if unknown."""
        entry = self.find(collection, doc)
        return list(entry.outline) if entry else []

    def corpus_version(self, collection: str) -> int:
        """The collection's corpus version (0 for a new or missing collection)."""
        return int(self.store.collection_meta(collection).get("corpus_version") or 0)

    def commit_document(
        self,
        collection: str,
        entry: CatalogueEntry,
        chunks: Sequence[Chunk],
        sparse: Sequence[SparseVector],
        dense: Sequence[Sequence[float]] | None,
        *,
        previous: CatalogueEntry | None = None,
    ) -> int:
        """Write a new or changed document by the protocol in the module docstring.

        :param entry: the new catalogue entry (its ``info.path`` is the key).
        :param previous: the entry the path had before, if any (its chunks are deleted after the
            switch unless another path still uses the same ``doc_id``).
        :returns: the new corpus version.
        :raises StoreError: on backend failure; the new chunks are then deleted again (best
            effort) and the catalogue still points at the previous version.
        """
        return self.commit_streamed(collection, entry, chunks,
                                    [(list(chunks), list(sparse), dense)], previous=previous)

    def commit_streamed(
        self,
        collection: str,
        entry: CatalogueEntry,
        chunks: Iterable[Chunk],
        batches: Iterable[tuple[Sequence[Chunk], Sequence[SparseVector],
                                Sequence[Sequence[float]] | None]],
        *,
        previous: CatalogueEntry | None = None,
    ) -> int:
        """:meth:`commit_document` with the chunks and vectors given batch by batch: each item of
        ``batches`` is ``(chunks, sparse, dense)`` for the document's next chunks in order,
        written staged as it comes (the caller may chunk and embed each batch only when asked
        for it, so a large file's chunks and vectors are never all in memory); the page heads
        are gathered from the batches (``corpus.page_titles.PageHeadsBuilder``); the switch
        happens after the last batch.

        :param chunks: the document's chunks in order, read only for the profile's cover (its
            first chunks: ``corpus.profile.cover_chunks``), so a re-iterable stream will do.
        :returns: the new corpus version.
        :raises StoreError: on backend failure.
        :raises Exception: whatever iterating ``batches`` raised (e.g.
            ``corpus.errors.IngestCancelled``). In both cases the staged chunks are deleted
            again (best effort) and the catalogue still points at the previous version.
        """
        doc_id = entry.info.doc_id
        if entry.profile is None:
            entry.profile = build_profile(entry.info, cover_chunks(chunks))
        self.store.delete_document(collection, doc_id)
        ids: list[str] = []
        heads = PageHeadsBuilder()
        try:
            for batch, sparse, dense in batches:
                self.store.upsert_chunks(collection, batch, sparse, dense, staged=True)
                ids.extend(c.chunk_id for c in batch)
                heads.add(batch)
            self.store.publish_document(collection, doc_id, ids)
            self.store.put_record(collection, _KIND, entry.info.path, entry.to_data())
            self.store.put_record(collection, _PAGES, doc_id, heads_to_data(heads.heads()))
        except Exception:
            try:
                self.store.delete_document(collection, doc_id)
            finally:
                raise
        if previous is not None and previous.info.doc_id != doc_id:
            self._delete_unshared(collection, previous.info.doc_id, keep_path=entry.info.path)
        return self.store.bump_corpus_version(collection)

    def set_has_dense(self, collection: str, entry: CatalogueEntry) -> int:
        """Record that a document's chunks now carry dense vectors; returns the corpus version."""
        info = DocumentInfo(**{**asdict(entry.info), "has_dense": True, "ingested_at": time.time()})
        self.store.put_record(
            collection,
            _KIND,
            info.path,
            CatalogueEntry(
                info, entry.outline, entry.size, entry.warnings, entry.source, entry.profile
            ).to_data(),
        )
        return self.store.bump_corpus_version(collection)

    def profiles(self, collection: str) -> list[DocumentProfile]:
        """Every document's profile (the document-level index), sorted by path.

        Entries written before profiles existed, or by an older :data:`PROFILE_VERSION`, get
        theirs built from the stored chunks of pages 1–2 and saved back (once; the corpus
        version does not move, nothing searchable changed).

        :raises StoreError: on backend failure.
        """
        out: list[DocumentProfile] = []
        for path, entry in sorted(self.entries(collection).items()):
            if entry.profile is None or entry.profile.version != PROFILE_VERSION:
                chunks = self.store.document_chunks(collection, entry.info.doc_id)
                entry.profile = build_profile(entry.info, chunks)
                self.store.put_record(collection, _KIND, path, entry.to_data())
            out.append(entry.profile)
        return out

    def page_heads(self, collection: str, doc_id: str) -> list[PageHead]:
        """The page heads of a document (``corpus.page_titles``), written at ingest; documents
        ingested before, or under another ``PAGES_VERSION``, get theirs built from the stored
        chunks and saved (once).

        :raises StoreError: on backend failure.
        """
        heads = heads_from_data(self.store.record(collection, _PAGES, doc_id))
        if heads is None:
            heads = page_heads(self.store.document_chunks(collection, doc_id))
            self.store.put_record(collection, _PAGES, doc_id, heads_to_data(heads))
        return heads

    def remove(self, collection: str, path: str) -> CatalogueEntry | None:
        """Delete a document (its chunks and its entry); returns the removed entry or ``None``."""
        entry = self.entries(collection).get(path)
        if entry is None:
            return None
        self.store.delete_record(collection, _KIND, path)
        self._delete_unshared(collection, entry.info.doc_id, keep_path=path)
        self.store.bump_corpus_version(collection)
        return entry

    def _delete_unshared(self, collection: str, doc_id: str, *, keep_path: str) -> None:
        others = [
            p
            for p, e in self.entries(collection).items()
            if e.info.doc_id == doc_id and p != keep_path
        ]
        if not others:
            self.store.delete_document(collection, doc_id)
            self.store.delete_record(collection, _PAGES, doc_id)
            delete_directory(self.store, collection, doc_id)  # and its parts
