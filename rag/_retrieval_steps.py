"""The index queries of one retrieval (``rag.retriever``) as steps run side by side, and what
the flow reads from their outcomes."""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from typing import Any

from corpus.types import ChunkStore, SearchFilter, SearchHit, SparseVector
from rag.steps import Outcome, Step
from rag.types import RetrievalConfig

__all__ = ["by_name", "elapsed_ms", "fusion_kwargs", "hits", "index_steps"]


def index_steps(store: ChunkStore, cfg: RetrievalConfig, collection: str,
                vector: Sequence[float] | None, sparse: SparseVector, prefetch: int,
                flt: SearchFilter | None, *, server: bool, want_kw: bool) -> list[Step]:
    """The dense and keyword queries (``prefetch`` candidates each), or the one server-side
    hybrid query when ``server`` and a ``vector`` is at hand; without a vector the server path
    falls back to the keyword query. Each runs under ``cfg.search_timeout_s``."""
    timeout = cfg.search_timeout_s
    keyword = Step("keyword_search",
                   partial(store.keyword_search, collection, sparse, prefetch, flt), timeout)
    steps: list[Step] = []
    if vector is not None and server:
        steps.append(Step("hybrid_search",
                          partial(store.hybrid_search, collection, vector, sparse, prefetch,
                                  prefetch_k=prefetch, flt=flt, **fusion_kwargs(store, cfg)),
                          timeout))
    elif vector is not None:
        steps.append(Step("dense_search",
                          partial(store.dense_search, collection, vector, prefetch, flt), timeout))
    elif server and want_kw:  # embedding failed: the server path falls back to keywords
        steps.append(keyword)
    if want_kw and not server:  # the keyword query runs beside the dense query
        steps.append(keyword)
    return steps


def fusion_kwargs(store: ChunkStore, cfg: RetrievalConfig) -> dict[str, Any]:
    """RRF ``k`` and weights for stores whose ``hybrid_search`` accepts them (``QdrantChunkStore``
    does; the ``ChunkStore`` protocol does not require it)."""
    import inspect

    params = inspect.signature(store.hybrid_search).parameters
    out: dict[str, Any] = {}
    if "rrf_k" in params:
        out["rrf_k"] = cfg.rrf_k
    if "weights" in params:
        out["weights"] = (cfg.dense_weight, cfg.keyword_weight)
    return out


def elapsed_ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000.0


def by_name(
    outcomes: Sequence[Outcome], timings: dict[str, float], flags: list[str]
) -> dict[str, Outcome]:
    """Record each outcome's time and flag; return them by step name."""
    for o in outcomes:
        timings[o.name] = o.ms
        if not o.ok:
            flags.append(o.flag)
    return {o.name: o for o in outcomes}


def hits(outcome: Outcome | None) -> list[SearchHit]:
    return list(outcome.value) if outcome is not None and outcome.ok and outcome.value else []
