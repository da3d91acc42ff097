"""A LoopAgent answer that quotes a statement row leads with how the row reads under its
period header (``corpus.statement_rows.row_reading``): "Gross profit — 2023: 2,725; 2022:
2,820; 2021: 2,732 — Gross profit 2,725 2,820 2,732", or the asked year's cell — as the RAG
path's answer does (``rag.extractive.answer_text``). A row's bare numbers do not say which year
each is (a new-user trial). The header is read in the cited chunk above the row, else in the
chunk before it. A row whose reading states years and none the question pins
(``corpus.period_scope.other_period``) answers another period: "not found" (flag
``other_period:<years>``), as the RAG path judges a row by its reading (``rag.answerability``):
"What was the net income in 2019?" was answered by a 2013–2017 row of another filing when the
filing asked about was not in the collection (``benchmarks/absent_documents.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

from corpus.citations import display_quote
from corpus.period_scope import other_period
from corpus.presence import specific_terms
from corpus.statement_rows import asked_years, parse_row, row_reading
from corpus.types import ChunkStore
from loop.answer_checks import refuse
from loop.results import LoopResult

__all__ = ["labelled_row"]


async def labelled_row(question: str, collection: str, res: LoopResult, *, store: ChunkStore,
                       tokenizer: Any, timeout_s: float = 0.0) -> LoopResult:
    """``res`` whose answer is its one cited statement row, led by the row's reading, or "not
    found" when that reading states only years the question does not pin (module docstring);
    ``res`` unchanged for any other answer, or when the chunks cannot be read within
    ``timeout_s`` (0: no limit).

    :param tokenizer: has ``key_terms`` and ``normalize`` (the asked years); without them no
        year is asked and every cell is labelled.
    """
    if not res.found or res.computed or len(res.citations) != 1:
        return res
    cit = res.citations[0]
    if res.answer != display_quote(cit.quote) or parse_row(cit.quote) is None:
        return res
    key_terms = getattr(tokenizer, "key_terms", None)
    normalize = getattr(tokenizer, "normalize", None)
    years = (asked_years(specific_terms(key_terms(question), normalize(question)))
             if callable(key_terms) and callable(normalize) else [])

    def read() -> str:
        (chunk,) = store.get_chunks(collection, [cit.chunk_id]) or (None,)
        if chunk is None:
            return ""
        above = chunk.text[: max(chunk.text.find(cit.quote), 0)]
        got = row_reading(cit.quote, above, years)
        if not got and chunk.prev_id:  # the header may head the chunk before
            before = store.get_chunks(collection, [chunk.prev_id])
            got = row_reading(cit.quote, "\n".join([*(c.text for c in before), above]), years)
        return got

    try:
        reading = await asyncio.wait_for(asyncio.to_thread(read), timeout_s or None)
    except Exception:  # noqa: BLE001 - a failed read keeps the answer
        return res
    if reading and (period := other_period(question, reading)):
        refuse(res)
        res.out_of_scope.append("other_period:" + period)
    elif reading:
        res.answer = f"{reading} — {res.answer}"
    return res
