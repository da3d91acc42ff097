"""Small adapters between the gateway's components and the protocols that use them.

- :class:`CacheAdapter` – ``gateway.cache.AnswerCache`` behind the router's ``AnswerCache``
  protocol; a cache that is down raises ``ServiceUnavailable`` subclasses, which the router
  turns into the ``cache_unavailable`` flag.
- :class:`RetrieverSearch` – the hybrid retriever as the LoopAgent's ``search`` backend
  (``loop.types.SearchBackend``).
"""

from __future__ import annotations

from typing import Any

from corpus.types import SearchFilter, SearchHit
from gateway.cache import AnswerCache
from gateway.engines.rag_engine import to_hits
from rag.retriever import HybridRetriever

__all__ = ["CacheAdapter", "RetrieverSearch"]


class CacheAdapter:
    """``gateway.cache.AnswerCache`` behind the router's ``AnswerCache`` protocol."""

    def __init__(self, cache: AnswerCache) -> None:
        self.cache = cache

    def peek(self, question: str, collection: str, mode: str,
             corpus_version: str) -> dict[str, Any] | None:
        """The near-cache payload (in process, no I/O) or ``None``; see ``AnswerCache.peek``."""
        entry = self.cache.peek(question, collection=collection, mode=mode,
                                corpus_version=corpus_version)
        return None if entry is None else dict(entry.answer)

    async def get(self, question: str, collection: str, mode: str,
                  corpus_version: str) -> dict[str, Any] | None:
        """The cached payload or ``None``."""
        entry = await self.cache.get(question, collection=collection, mode=mode,
                                     corpus_version=corpus_version)
        return None if entry is None else dict(entry.answer)

    async def put(self, question: str, collection: str, mode: str, corpus_version: str,
                  payload: dict[str, Any]) -> None:
        """Store the payload with the documents its citations name."""
        doc_ids = [c.get("doc_id", "") for c in payload.get("citations", ())]
        await self.cache.put(question, payload, collection=collection, mode=mode,
                             corpus_version=corpus_version, found=bool(payload.get("found")),
                             doc_ids=[d for d in doc_ids if d])


class RetrieverSearch:
    """``loop.types.SearchBackend`` over the hybrid retriever (the LoopAgent's ``search`` tool)."""

    def __init__(self, retriever: HybridRetriever) -> None:
        self.retriever = retriever

    def search(self, query: str, collection: str, top_k: int,
               flt: SearchFilter | None = None) -> list[SearchHit]:
        """Hybrid hits for ``query`` (one per chunk of each merged item), at most ``top_k``."""
        return to_hits(self.retriever.run(query, collection, top_k=top_k, flt=flt))[:top_k]
