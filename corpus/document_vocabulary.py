"""Which key terms a document holds, asked of the keyword index (``doc_cov`` / ``doc_name_cov``
of ``corpus.answer_support``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from corpus.presence import KnownTerms, TermSearch
from corpus.term_match import holds_term
from corpus.types import SearchFilter, SparseVector

__all__ = ["DocumentVocabulary"]

_DIGIT = re.compile(r"\d")


class DocumentVocabulary:
    """Which key terms a document holds, asked of the keyword index: one BM25 query per term
    restricted to the document; a term without a digit is held when any chunk matches its
    index term (the index stems as the key terms are stemmed), a term with a digit when a
    matching chunk's text holds it whole (``holds_term``: the index splits ``gpt-4o`` into
    parts). Answers are remembered per ``(doc_id, term)`` (a ``doc_id`` is a content hash).

    Usage example::

        vocab = DocumentVocabulary(store, tokenizer.sparse_query, tokenizer.normalize)
        vocab.held("manuals", doc_id, ["oakland", "gpt-4o"])   # -> {"gpt-4o"}

    :param store: anything with ``keyword_search`` (``corpus.presence.TermSearch``).
    :param sparse_query: text → BM25 query vector (``Tokenizer.sparse_query``).
    :param normalize: text → the key terms' normal form (``Tokenizer.normalize``).
    :param cache_size: ``(doc_id, term)`` answers remembered (LRU).
    """

    def __init__(self, store: TermSearch, sparse_query: Callable[[str], SparseVector],
                 normalize: Callable[[str], str], *, cache_size: int = 8192) -> None:
        self.store, self.sparse_query, self.normalize = store, sparse_query, normalize
        self._known = KnownTerms(cache_size)

    def holds(self, collection: str, doc_id: str, term: str) -> bool:
        """True when some chunk of ``doc_id`` holds ``term`` (an empty query: ``True``).

        :raises Exception: whatever the store raises.
        """
        digit = bool(_DIGIT.search(term))

        def search(query: SparseVector) -> bool:
            hits = self.store.keyword_search(collection, query, 20 if digit else 1,
                                             SearchFilter(doc_ids=(doc_id,)))
            return (any(holds_term(term, self.normalize(f"{h.chunk.title}\n{h.chunk.text}"))
                        for h in hits) if digit else bool(hits))

        return self._known.answer(doc_id, term, self.sparse_query, search)

    def held(self, collection: str, doc_id: str, terms: Sequence[str]) -> set[str]:
        """The ``terms`` some chunk of ``doc_id`` holds.

        :raises Exception: whatever the store raises (callers run this under a timeout).
        """
        return {t for t in dict.fromkeys(terms) if t and self.holds(collection, doc_id, t)}
