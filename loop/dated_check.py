"""The LoopAgent's computed answers, as the RAG path's (``rag.dated``): a fiscal period's start
or end asked relative to the day — the date computed from the fiscal calendar a document
defines (``corpus.fiscal_calendar``), found in the chunks read and the RAG candidates the loop
started from, else by one keyword search (inside the loop's filter) — and how many numbered
items a document has (``corpus.item_count``: the document of the first RAG candidate, else
chunk read, numbering items of the asked kind) — and the debt securities a filer has registered
(``corpus.registered_securities``: the cover page of the first RAG candidate's document, else
chunk read's). It replaces the reading policy's answer, whose citations go to ``related``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import date
from functools import partial
from typing import Any

from corpus.fiscal_calendar import asked_date, calendar_search, dated_answer
from corpus.item_count import asked_count, count_answer
from corpus.registered_securities import asks_registered_debt, registered_debt_answer
from corpus.types import ChunkStore, Citation, SearchFilter
from loop.results import LoopResult

__all__ = ["dated"]


async def dated(question: str, collection: str, res: LoopResult, *, today: date,
                store: ChunkStore, tokenizer: Any, seeds: Sequence[str] = (),
                flt: SearchFilter | None = None, timeout_s: float = 0.0) -> LoopResult:
    """``res`` answered with the date, the count of items or the registered debt securities
    ``question`` asks (flag: ``res.computed``), or ``res`` unchanged when it asks none, no
    calendar, numbered document or cover-page table is found, or the lookup fails or takes
    longer than ``timeout_s`` (0: no limit).

    :param today: the day the question is asked on (the caller's ``current_date``).
    :param tokenizer: has ``sparse_query`` (text → BM25 query) for the keyword search; without
        it only the chunks read are looked at.
    :param seeds: chunk ids of the RAG candidates the loop started from (read after the chunks
        the loop read).
    """
    asks_date = asked_date(question) is not None
    asks_debt = asks_registered_debt(question)
    if res.fallback or (not asks_date and not asks_debt and asked_count(question) is None):
        return res
    sparse = getattr(tokenizer, "sparse_query", None)

    def lookup() -> Any:
        if not asks_date:  # a count or the securities: the ranked candidates first
            ids = list(dict.fromkeys([*seeds, *res.read_chunk_ids]))
            chunks = store.get_chunks(collection, ids) if ids else []
            if asks_debt:
                return registered_debt_answer(question, chunks,
                                              partial(store.document_chunks, collection))
            return _listed(count_answer(question, chunks,
                                        partial(store.document_chunks, collection)))
        ids = list(dict.fromkeys([*res.read_chunk_ids, *seeds]))
        chunks = store.get_chunks(collection, ids) if ids else []
        search = calendar_search(store, collection, sparse, flt) if sparse else None
        return _listed(dated_answer(question, today, chunks, search))

    try:
        got = await asyncio.wait_for(asyncio.to_thread(lookup), timeout_s or None)
    except Exception:  # noqa: BLE001 - a failed lookup keeps the answer
        return res
    if got is None:
        return res
    res.replace_answer(*got)
    return res


def _listed(got: tuple[str, Citation] | None) -> tuple[str, list[Citation]] | None:
    """``got`` with its one citation in a list (the registered securities may cite several)."""
    return None if got is None else (got[0], [got[1]])
