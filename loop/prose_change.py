"""A change between two amounts asked of prose, answered by the LoopAgent as by the RAG path
(``corpus.derived.prose_amounts``; ``rag.amount_change``): "By how much did PepsiCo increase its
unsecured five year revolving credit agreement on May 26, 2023?" (FinanceBench dev, gold
"$400,000,000 increase") was answered by the offline reading with the new agreement's sentence
alone, where the RAG path gave the difference of the two amounts and cited both sentences.
"""

from __future__ import annotations

import asyncio
from typing import Any

from corpus.derived.prose_amounts import amount_change, asks_amount_change, from_to_change
from corpus.types import Chunk, ChunkStore
from loop.citations import make_citation
from loop.results import LoopResult

__all__ = ["amount_changed"]


async def amount_changed(question: str, collection: str, res: LoopResult, *,
                         store: ChunkStore, tokenizer: Any, timeout_s: float = 0.0) -> LoopResult:
    """``res`` answered with the change between the two amounts of the thing ``question`` asks
    "by how much" it increased or decreased (flag ``res.computed``; the reading's citations to
    ``related``): the first citation's own "from $A to $B" when it states one, else both
    amounts' units, read in that citation's chunk, the chunks next to it in its document and
    the chunks read; ``res`` unchanged when the question asks no such change, ``res`` is no
    found offline or evidence answer (or already computed), not exactly two amounts of the
    thing are there, or the read fails or takes longer than ``timeout_s`` (0: no limit).

    :param tokenizer: has ``key_terms`` (``corpus.tokenizer.Tokenizer``).
    """
    key_terms = getattr(tokenizer, "key_terms", None)
    if (not asks_amount_change(question) or not res.found or res.fallback or res.computed
            or not res.citations or key_terms is None
            or not (res.brain == "offline" or res.evidence_answer)):
        return res
    first, quote = res.citations[0].chunk_id, res.citations[0].quote

    def change() -> Any:
        ids = list(dict.fromkeys([first, *res.read_chunk_ids]))
        read = store.get_chunks(collection, ids)
        own = next((c for c in read if c.chunk_id == first), None)
        said = from_to_change(question, quote, own, make_citation) if own is not None else None
        if said is not None:  # the answer unit states the change: "from $0.70 to $0.79"
            return said
        near: list[Chunk] = [c for step in (-1, 1)
                             if (c := store.neighbour(collection, first, step)) is not None]
        return amount_change(question, first, [*read, *near], key_terms, make_citation)

    try:
        got = await asyncio.wait_for(asyncio.to_thread(change), timeout_s or None)
    except Exception:  # noqa: BLE001 - a failed read keeps the answer
        return res
    if got is not None:
        res.replace_answer(*got)
    return res
