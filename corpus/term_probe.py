"""Which specific terms a document lacks, asked of the keyword index (``corpus.presence``):
:class:`DocumentTermProbe` runs one keyword query per term restricted to the document and
remembers the answer per ``(doc_id, term)`` (:class:`KnownTerms`; a ``doc_id`` is the document's
content hash, so an answer never goes stale).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol

from corpus.term_forms import holds_specific, index_blind, written_marks
from corpus.types import Chunk, SearchFilter, SearchHit, SparseVector

__all__ = ["DocumentTermProbe", "KnownTerms", "TermSearch"]


def _chunk_text(c: Chunk) -> str:
    return f"{c.title}\n{' '.join(c.section_path)}\n{c.text}"


class TermSearch(Protocol):
    """The store call the probe needs (``corpus.qdrant_store.QdrantChunkStore.keyword_search``)."""

    def keyword_search(
        self, collection: str, query: SparseVector, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]: ...


class KnownTerms:
    """``(doc_id, term) -> held`` answers remembered, least recently used dropped past ``size``
    (a ``doc_id`` is a content hash: an answer never goes stale)."""

    def __init__(self, size: int) -> None:
        self._known: OrderedDict[tuple[str, str], bool] = OrderedDict()
        self._size = size

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def get(self, key: tuple[str, str]) -> bool | None:
        """The remembered answer (now the most recently used), or ``None``."""
        if key not in self._known:
            return None
        self._known.move_to_end(key)
        return self._known[key]

    def put(self, key: tuple[str, str], held: bool) -> bool:
        """Remember ``held`` for ``key``; returns it."""
        self._known[key] = held
        if len(self._known) > self._size:
            self._known.popitem(last=False)
        return held

    def answer(self, doc_id: str, term: str, query_of: Callable[[str], SparseVector],
               search: Callable[[SparseVector], bool]) -> bool:
        """Whether ``doc_id`` holds ``term``: remembered, else ``search`` of the term's keyword
        query (remembered); ``True`` without asking when the query is empty (nothing to look
        for). Whatever ``search`` raises propagates."""
        known = self.get((doc_id, term))
        if known is not None:
            return known
        query = query_of(term)
        if query.is_empty():
            return True
        return self.put((doc_id, term), search(query))


class DocumentTermProbe:
    """Which specific terms a document lacks, asked of the keyword index.

    Usage example::

        probe = DocumentTermProbe(store, tokenizer.sparse_query, tokenizer.normalize)
        probe.absent("manuals", doc_id, ["2022", "fw-301"])   # -> ["2022"] when never written

    One BM25 query per term not yet known, restricted to the document, ``top_k`` hits whose
    chunk text, title and section path are checked with ``holds_term`` (the sparse query
    splits ``50-shot`` into its index terms, so a hit is not yet an occurrence). A year the
    keyword index cannot see on its own — inside one token such as ``31.03.2001`` or
    ``fy2001`` — is looked up in the document's years, read once from all its chunks.

    :param store: anything with ``keyword_search`` (:class:`TermSearch`).
    :param sparse_query: text → BM25 query vector (``Tokenizer.sparse_query``).
    :param normalize: text → the key terms' normal form (``Tokenizer.normalize``).
    :param top_k: hits checked per term (1..100).
    :param cache_size: ``(doc_id, term)`` answers remembered (LRU).
    """

    def __init__(
        self,
        store: TermSearch,
        sparse_query: Callable[[str], SparseVector],
        normalize: Callable[[str], str],
        *,
        top_k: int = 20,
        cache_size: int = 4096,
    ) -> None:
        self.store = store
        self.sparse_query = sparse_query
        self.normalize = normalize
        self.top_k = max(1, min(100, top_k))
        self._known = KnownTerms(cache_size)
        self._doc_marks: OrderedDict[str, frozenset[str]] = OrderedDict()

    def holds(self, collection: str, doc_id: str, term: str) -> bool:
        """True when some chunk of ``doc_id`` holds ``term`` (an empty query: ``True``)."""

        def search(query: SparseVector) -> bool:
            hits = self.store.keyword_search(
                collection, query, self.top_k, SearchFilter(doc_ids=(doc_id,))
            )
            found = any(holds_specific(term, self.normalize(_chunk_text(h.chunk)))
                        for h in hits)
            if not found and index_blind(term):
                # a year inside one index token ("31.03.2001", "fy2001") is no BM25 term; a
                # label's number is in too many chunks for the top hits to hold the caption;
                # a date or a dotted identifier is several index terms
                found = term in self._marks(collection, doc_id)
            return found

        return self._known.answer(doc_id, term, self.sparse_query, search)

    def in_collection(self, collection: str, term: str) -> bool:
        """True when some chunk of ``collection`` matches ``term``'s index terms (a stem match,
        as ``corpus.document_vocabulary``; an empty query: ``True``). Asked anew each time: a
        collection, unlike a document, changes. Whatever the store raises propagates."""
        query = self.sparse_query(term)
        return query.is_empty() or bool(self.store.keyword_search(collection, query, 1))

    def _marks(self, collection: str, doc_id: str) -> frozenset[str]:
        """Every four-digit year (1900–2099), figure / table label, date and dotted identifier
        the document writes (:func:`corpus.term_forms.written_marks`, as the terms of
        :func:`corpus.presence.specific_terms`: ``2017``, ``figure 7``, ``表 3``), read once
        from its chunks (``document_chunks``) and remembered per ``doc_id``; empty when the
        store cannot list a document's chunks."""
        if doc_id in self._doc_marks:
            return self._doc_marks[doc_id]
        list_chunks = getattr(self.store, "document_chunks", None)
        chunks = list_chunks(collection, doc_id) if callable(list_chunks) else []
        marks = written_marks([_chunk_text(c) for c in chunks], self.normalize)
        self._doc_marks[doc_id] = frozenset(marks)
        if len(self._doc_marks) > 256:
            self._doc_marks.popitem(last=False)
        return self._doc_marks[doc_id]

    def absent(self, collection: str, doc_id: str, terms: Sequence[str]) -> list[str]:
        """The ``terms`` no chunk of ``doc_id`` holds, in order.

        :raises Exception: whatever the store raises (callers run this under a timeout and
            keep the answer, flagged, when it fails).
        """
        return [t for t in terms if not self.holds(collection, doc_id, t)]
