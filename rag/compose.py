"""The answer of a found RAG answer when the question asks for a figure of a statement table
(issue 15, items 3 and 6): computed from cited rows, or the one row that holds it.

- A question with a computable form (a defined formula, a change between two years:
  :func:`corpus.derived.computable`) is answered by the computed figure; a line item the
  retrieved chunks do not hold is searched for inside the document the formula reads
  (:func:`corpus.derived.document_search`).
- A question asking one year's figure is answered by the statement row whose label it names
  wholly, with that year's cell (:func:`corpus.derived.looked_up_answer`), read only in the
  documents the question was resolved to (``Retrieval.resolved_filter``) or, unresolved, in the
  document of the best evidence: a look-alike filing's row would answer with another company's
  figure.

Both cite every row they use; the caller puts the other evidence under ``related``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from corpus.derived import computable, looks_up, statement_figure
from corpus.types import Chunk, ChunkStore, Citation
from rag.types import Evidence, Retrieval

__all__ = ["asks_figure", "figure_answer"]


def asks_figure(question: str) -> bool:
    """True when :func:`figure_answer` may answer (a computable form, or one year's figure):
    a cheap test, so that the store is read only for such questions."""
    return computable(question) or looks_up(question)


def figure_answer(
    retrieval: Retrieval,
    evidence: Sequence[Evidence],
    make_citation: Callable[[Chunk, str], Citation | None],
    tokenizer: object,
    phrases: Callable[[str], Sequence[str]] | None,
    store: ChunkStore | None,
) -> tuple[str, list[Citation], str] | None:
    """``(answer, citations, flag)`` with flag ``computed`` or ``looked_up``, or ``None`` when
    the question asks no such figure or no row answers it.

    :param retrieval: the retrieval (items best first; ``collection``, ``resolved_filter``).
    :param evidence: the extractive evidence, best first (its first unit's document is read
        when resolution was unsure).
    :param tokenizer: ``corpus.tokenizer.Tokenizer`` (``key_terms``, ``normalize``,
        ``sparse_query``); without ``sparse_query`` no document search is made.
    :param phrases: field phrases a text expands to (``rag.expand.QueryExpander.phrases``).
    :param store: the chunk store searched for a formula's missing line item and read above a
        row without a period header (``None``: neither).
    :raises corpus.errors.StoreError: when that search fails.
    """
    key_terms = getattr(tokenizer, "key_terms")  # noqa: B009 - a protocol-free tokenizer
    normalize = getattr(tokenizer, "normalize")  # noqa: B009
    question = retrieval.question
    resolved = retrieval.resolved_filter
    docs = set(resolved.doc_ids) if resolved is not None and resolved.doc_ids else (
        {evidence[0].citation.doc_id} if evidence and evidence[0].citation.doc_id else set())
    if computable(question):
        first = next(iter(sorted(docs))) if len(docs) == 1 else None
        got = statement_figure(question, [it.chunks for it in retrieval.items], key_terms,
                               normalize, make_citation, phrases, store, retrieval.collection,
                               getattr(tokenizer, "sparse_query", None), first)
        return (got[0], got[1], "computed") if got is not None else None
    if not docs:
        return None
    groups = [it.chunks for it in retrieval.items if it.chunk.doc_id in docs]
    got = statement_figure(question, groups, key_terms, normalize, make_citation, phrases, store,
                           retrieval.collection)
    return (got[0], got[1], "looked_up") if got is not None else None
