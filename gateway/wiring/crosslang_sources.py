"""What :class:`gateway.conversation.crosslang.CrossLanguage` reads, over the chunk store and
the catalogue: a keyword search (:func:`store_search`), one document's chunk texts
(:func:`document_texts`), the documents' paths and languages (:func:`catalogue_documents`) and
the number of documents per language (:func:`catalogue_languages`), both from the document
profiles (``corpus.profile``). All blocking; the conversation stage runs them in a thread.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from corpus.catalogue import Catalogue
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer

__all__ = ["catalogue_documents", "catalogue_languages", "document_texts", "store_search"]


def catalogue_documents(store: QdrantChunkStore
                        ) -> Callable[[str], dict[str, tuple[str, str]]]:
    """``collection -> {doc_id: (path, language)}`` (``doc_names``); a document without a
    language in its profile counts as ``en``."""
    cat = Catalogue(store)

    def documents(collection: str) -> dict[str, tuple[str, str]]:
        return {p.doc_id: (p.path, p.language or "en")
                for p in cat.profiles(collection)}

    return documents


def store_search(store: QdrantChunkStore, tokenizer: Tokenizer
                 ) -> Callable[[str, str], list[tuple[str, str]]]:
    """``(collection, term) -> [(doc_id, normalised chunk text)]``: the BM25 index's 10 best
    hits (``search``)."""

    def search(collection: str, term: str) -> list[tuple[str, str]]:
        hits = store.keyword_search(collection, tokenizer.sparse_query(term), 10)
        return [(h.chunk.doc_id, tokenizer.normalize(h.chunk.text)) for h in hits]

    return search


def document_texts(store: QdrantChunkStore) -> Callable[[str, str], list[str]]:
    """``(collection, doc_id) -> the document's chunk texts`` (``doc_texts``)."""

    def texts(collection: str, doc_id: str) -> list[str]:
        return [c.text for c in store.document_chunks(collection, doc_id)]

    return texts


def catalogue_languages(store: QdrantChunkStore) -> Callable[[str], dict[str, int]]:
    """``collection -> {language: documents}`` (``languages``); a document without a language
    in its profile counts as ``en``."""
    cat = Catalogue(store)

    def languages(collection: str) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for p in cat.profiles(collection):
            counts[p.language or "en"] += 1
        return dict(counts)

    return languages
