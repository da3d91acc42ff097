"""Answers computed on the RAG path before the extractive answer (``rag.decision`` step 0):

- a fiscal period's start or end asked relative to today, from the fiscal calendar a document
  defines (``corpus.fiscal_calendar``): the retrieved chunks first, else one keyword search of
  the collection (inside the retrieval's filter); flag ``fiscal_date``;
- how many numbered items a document has ("这部法律共有多少条？", "How many articles …?"),
  counted from the labels of the document of the first retrieved chunk numbering items of
  that kind (``corpus.item_count``); flag ``item_count``;
- which debt securities a filer has registered on an exchange, read off the Section 12(b)
  table of the cover page of the first retrieved chunk's document
  (``corpus.registered_securities``); flag ``registered_securities``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

from corpus.fiscal_calendar import asked_date, calendar_search, dated_answer
from corpus.item_count import asked_count, count_answer
from corpus.registered_securities import asks_registered_debt, registered_debt_answer
from corpus.types import ChunkStore, Citation
from rag.types import Retrieval

__all__ = ["ComputedStep", "computed_step", "count_decision", "dated_decision",
           "securities_decision"]

#: ``(step name, flag, blocking function -> (answer, citations) | None)``
ComputedStep = tuple[str, str, Callable[[], "tuple[str, list[Citation]] | None"]]


def _listed(answer: Callable[[], tuple[str, Citation] | None]) -> tuple[str, list[Citation]] | None:
    """``answer()`` with its one citation in a list (the form of :data:`ComputedStep`)."""
    got = answer()
    return None if got is None else (got[0], [got[1]])


def dated_decision(retrieval: Retrieval, store: ChunkStore | None, tokenizer: Any,
                   today: date) -> tuple[str, Citation] | None:
    """``(answer, citation)`` of ``corpus.fiscal_calendar.dated_answer`` for the retrieval's
    question, or ``None`` (no such date asked, no calendar found). Blocking (one keyword
    query when the retrieved chunks hold no calendar); may raise the store's errors."""
    sparse = getattr(tokenizer, "sparse_query", None)
    search = (calendar_search(store, retrieval.collection, sparse, retrieval.filter)
              if store is not None and sparse is not None else None)
    return dated_answer(retrieval.question, today, retrieval.chunks, search)


def count_decision(retrieval: Retrieval, store: ChunkStore) -> tuple[str, Citation] | None:
    """``(answer, citation)`` of ``corpus.item_count.count_answer`` for the retrieval's
    question, or ``None``. Blocking (reads one document's chunks); may raise the store's
    errors."""
    return count_answer(retrieval.question, retrieval.chunks,
                        partial(store.document_chunks, retrieval.collection))


def securities_decision(retrieval: Retrieval,
                        store: ChunkStore) -> tuple[str, list[Citation]] | None:
    """``(answer, citations)`` of ``corpus.registered_securities.registered_debt_answer`` for
    the retrieval's question, or ``None``. Blocking (may read one document's chunks); may raise
    the store's errors."""
    return registered_debt_answer(retrieval.question, retrieval.chunks,
                                  partial(store.document_chunks, retrieval.collection))


def computed_step(retrieval: Retrieval, store: ChunkStore | None, tokenizer: Any,
                  today: date | None) -> ComputedStep | None:
    """The computed answer the retrieval's question asks (module docstring), or ``None``:
    a fiscal date needs ``today``, a count or the registered securities need the ``store``."""
    if today is not None and asked_date(retrieval.question) is not None:
        return "dated", "fiscal_date", partial(
            _listed, partial(dated_decision, retrieval, store, tokenizer, today))
    if store is not None and asked_count(retrieval.question) is not None:
        return "item_count", "item_count", partial(
            _listed, partial(count_decision, retrieval, store))
    if store is not None and asks_registered_debt(retrieval.question):
        return ("registered_securities", "registered_securities",
                partial(securities_decision, retrieval, store))
    return None
