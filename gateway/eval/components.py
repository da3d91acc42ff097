"""Build the evaluation's answerer for a mode from :class:`gateway.settings.Settings`.

Composition (the gateway's own factories, ``gateway.components``): the chunk store (embedded
engine under ``<data_dir>/qdrant``, or the server at ``qdrant_url``), the shared tokenizer, the
dense embedder (``get_embedder``, else ``rag.embedder.FastEmbedEmbedder`` from settings), ``rag.retriever.HybridRetriever`` with a ``RetrievalConfig`` from
settings, ``rag.pipeline.RagPipeline``, ``loop.agent.LoopAgent`` (LLM when ``llm_base_url`` is
set, else the offline policy) and, for ``auto``, ``gateway.router.Router`` over
``gateway.engines`` with no answer cache and no route sink.

Usage example::

    built = build_answerer("rag", get_settings())
    try:
        run = await run_eval(questions, built.answerer, collection="eval", mode="rag")
    finally:
        await built.aclose()
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from corpus.types import SearchFilter, SearchHit
from gateway.eval.adapters import LoopAgentAnswerer, RagPipelineAnswerer, RouterAnswerer
from gateway.settings import Settings

__all__ = ["BuiltAnswerer", "RetrieverSearch", "build_answerer", "open_store"]


class RetrieverSearch:
    """The hybrid retriever as the LoopAgent's ``search`` backend (``loop.types.SearchBackend``)."""

    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever

    def search(self, query: str, collection: str, top_k: int,
               flt: SearchFilter | None = None) -> list[SearchHit]:
        """Top-k hits, one per chunk, with the item's fused score."""
        r = self.retriever.run(query, collection, top_k=top_k, flt=flt)
        return [SearchHit(c, float(it.score)) for it in r.items for c in it.chunks][:top_k]


@dataclass
class BuiltAnswerer:
    """An answerer with the components it owns (close them with :meth:`aclose`)."""

    answerer: Any
    store: Any
    parts: dict[str, Any] = field(default_factory=dict)

    async def aclose(self) -> None:
        """Close the LLM client and release the store (embedded shard locks)."""
        for name in ("agent",):
            obj = self.parts.get(name)
            if obj is not None and hasattr(obj, "aclose"):
                await obj.aclose()
        client = self.parts.get("llm_client")
        if client is not None:
            await client.aclose()
        self.store.close()


def open_store(settings: Settings) -> Any:
    """The chunk store the settings name (``gateway.components.open_store``)."""
    from gateway.components import open_store as _open

    return _open(settings)


def _embedder(settings: Settings) -> Any:
    """``gateway.components.get_embedder`` when it exists, else a ``FastEmbedEmbedder``."""
    from gateway import components

    factory = getattr(components, "get_embedder", None)
    if factory is not None:
        return factory(settings)
    from rag.embedder import FastEmbedEmbedder

    return FastEmbedEmbedder(settings.embed_model, settings.embed_model_path,
                             threads=settings.embed_threads)


def _llm_config(settings: Settings) -> Any:
    from loop.types import LLMConfig

    if not settings.llm_base_url:
        return None
    return LLMConfig(base_url=settings.llm_base_url, model=settings.llm_model or "local",
                     api_key=settings.llm_api_key, timeout_s=settings.llm_timeout_s,
                     protocol=settings.llm_protocol, temperature=settings.llm_temperature,
                     max_tokens=settings.llm_max_tokens)


def build_answerer(mode: str, settings: Settings, *, offline: bool = False,
                   store: Any = None, embedder: Any = None) -> BuiltAnswerer:
    """Compose the components for ``mode`` (``rag``, ``loop`` or ``auto``).

    :param offline: LoopAgent offline policy even when an LLM is configured.
    :param store: an already open chunk store (default: :func:`open_store`).
    :param embedder: a query embedder (default: ``FastEmbedEmbedder`` from settings; pass one
        to share a loaded model).
    :raises ValueError: unknown mode.
    """
    if mode not in ("rag", "loop", "auto"):
        raise ValueError(f"mode must be rag, loop or auto, got {mode!r}")
    from gateway.components import get_tokenizer
    from loop.agent import LoopAgent
    from loop.types import LoopConfig
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever
    from rag.types import RetrievalConfig

    store = store if store is not None else open_store(settings)
    tokenizer = get_tokenizer()
    if embedder is None:
        embedder = _embedder(settings)
    config = RetrievalConfig(
        top_k=settings.rag_top_k, prefetch_k=settings.rag_prefetch_k, rrf_k=settings.rag_rrf_k,
        dense_weight=settings.rag_dense_weight, keyword_weight=settings.rag_keyword_weight,
        doc_weight=settings.rag_doc_weight, fusion=settings.rag_fusion,
        embed_timeout_s=settings.timeout_embed_s, search_timeout_s=settings.timeout_search_s,
    )
    retriever = HybridRetriever(store, tokenizer, embedder, config=config)
    retriever.warm_up()
    parts: dict[str, Any] = {"retriever": retriever, "tokenizer": tokenizer}
    if mode == "rag":
        pipeline = RagPipeline(retriever, answer_floor=settings.rag_answer_floor)
        return BuiltAnswerer(RagPipelineAnswerer(pipeline), store, parts)
    loop_config = LoopConfig(max_loops=settings.loop_max_loops,
                             tool_timeout_s=settings.timeout_tool_s,
                             token_budget=settings.loop_token_budget,
                             deadline_s=settings.loop_deadline_s)
    llm = None if offline else _llm_config(settings)
    if mode == "loop":
        agent = LoopAgent(store, RetrieverSearch(retriever), llm=llm, config=loop_config,
                          key_terms=tokenizer)
        parts["agent"] = agent
        return BuiltAnswerer(LoopAgentAnswerer(agent, retriever, store, offline=offline),
                             store, parts)
    from gateway.engines import HybridRagEngine, LoopAgentEngine
    from gateway.router import Router

    client = None
    if llm is not None:
        from loop.llm_client import AsyncLLMClient

        client = AsyncLLMClient(llm)
        parts["llm_client"] = client
    agent = LoopAgent(store, RetrieverSearch(retriever), llm=client, config=loop_config,
                      key_terms=tokenizer)
    router = Router(
        settings,
        rag=HybridRagEngine(retriever, llm=client, answer_floor=settings.rag_answer_floor),
        loop=LoopAgentEngine(agent, store), cache=None, sink=None,
        corpus_version=lambda c: str(store.collection_meta(c).get("corpus_version", "")),
    )
    parts.update(agent=agent, router=router)
    return BuiltAnswerer(RouterAnswerer(router, store, mode="auto"), store, parts)
