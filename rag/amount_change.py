"""A change asked of prose on the RAG path: the answer unit's own "from $A to $B", both asked
years' units (``rag.period_pair``), else both amounts' units (``corpus.derived.prose_amounts``:
"By how much did PepsiCo increase its unsecured five year revolving credit agreement on May 26,
2023?"). Pure, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from corpus.derived.prose_amounts import amount_change, from_to_change
from corpus.types import Chunk, Citation
from rag._answer import Evidence
from rag.period_pair import period_pair

__all__ = ["prose_change"]


def prose_change(question: str, evidence: Sequence[Evidence], chunks: Iterable[Chunk],
                 key_terms: Sequence[str], tokenizer: Any,
                 make_citation: Callable[[Chunk, str], Citation | None]
                 ) -> tuple[str, list[Citation], str] | None:
    """A change asked of prose: the answer unit's own "from $A to $B" (``from_to_change``, flag
    ``amount_change``), else both asked years' units (``rag.period_pair``, flag
    ``period_pair``), else both amounts' units (``amount_change``, flag ``amount_change``; both
    ``corpus.derived.prose_amounts``); ``None`` when none answers.

    :param key_terms: the question's key terms; ``tokenizer``: ``corpus.tokenizer.Tokenizer``
        (``normalize``, ``key_terms``).
    """
    chunks = list(chunks)
    if evidence:
        best = next((c for c in chunks if c.chunk_id == evidence[0].citation.chunk_id), None)
        said = (from_to_change(question, evidence[0].text, best, make_citation)
                if best is not None else None)
        if said is not None:  # the answer unit states the change: "from $0.70 to $0.79"
            return said[0], said[1], "amount_change"
    pair = period_pair(question, evidence, key_terms, tokenizer.normalize)
    if pair is not None:
        return pair[0], pair[1], "period_pair"
    if not evidence:
        return None
    got = amount_change(question, evidence[0].citation.chunk_id, chunks, tokenizer.key_terms,
                        make_citation)
    return (got[0], got[1], "amount_change") if got is not None else None
