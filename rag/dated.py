"""Answers computed on the RAG path before the extractive answer (``rag.decision`` step 0):

- a fiscal period's start or end asked relative to today, from the fiscal calendar a document
  defines (``corpus.fiscal_calendar``): the retrieved chunks first, else one keyword search of
  the collection (inside the retrieval's filter); flag ``fiscal_date``;
- how many numbered items a document has ("这部法律共有多少条？", "How many articles …?"),
  counted from the labels of the document of the first retrieved chunk numbering items of
  that kind (``corpus.item_count``); flag ``item_count``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

from corpus.fiscal_calendar import asked_date, calendar_search, dated_answer
from corpus.item_count import asked_count, count_answer
from corpus.types import ChunkStore, Citation
from rag.types import Retrieval

__all__ = ["ComputedStep", "computed_step", "count_decision", "dated_decision"]

#: ``(step name, flag, blocking function -> (answer, citation) | None)``
ComputedStep = tuple[str, str, Callable[[], "tuple[str, Citation] | None"]]


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


def computed_step(retrieval: Retrieval, store: ChunkStore | None, tokenizer: Any,
                  today: date | None) -> ComputedStep | None:
    """The computed answer the retrieval's question asks (module docstring), or ``None``:
    a fiscal date needs ``today``, a count needs the ``store``."""
    if today is not None and asked_date(retrieval.question) is not None:
        return "dated", "fiscal_date", partial(dated_decision, retrieval, store, tokenizer, today)
    if store is not None and asked_count(retrieval.question) is not None:
        return "item_count", "item_count", partial(count_decision, retrieval, store)
    return None
