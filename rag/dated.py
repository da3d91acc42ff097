"""A fiscal period's start or end asked relative to today, answered on the RAG path from the
fiscal calendar a document defines (``corpus.fiscal_calendar``): the retrieved chunks first,
else one keyword search of the collection (inside the retrieval's filter)."""

from __future__ import annotations

from datetime import date
from typing import Any

from corpus.fiscal_calendar import calendar_search, dated_answer
from corpus.types import ChunkStore, Citation
from rag.types import Retrieval

__all__ = ["dated_decision"]


def dated_decision(retrieval: Retrieval, store: ChunkStore | None, tokenizer: Any,
                   today: date) -> tuple[str, Citation] | None:
    """``(answer, citation)`` of ``corpus.fiscal_calendar.dated_answer`` for the retrieval's
    question, or ``None`` (no such date asked, no calendar found). Blocking (one keyword
    query when the retrieved chunks hold no calendar); may raise the store's errors."""
    sparse = getattr(tokenizer, "sparse_query", None)
    search = (calendar_search(store, retrieval.collection, sparse, retrieval.filter)
              if store is not None and sparse is not None else None)
    return dated_answer(retrieval.question, today, retrieval.chunks, search)
