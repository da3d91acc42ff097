"""Wire the components of one gateway process from settings: LLM client, hybrid retriever,
RAG and LoopAgent engines, answer cache, route log, metrics, router and ingest jobs.

Called by :func:`gateway.app_state.build_components` after the store, tokenizer and embedder
are open; also used by ``loopgate ask --mode auto`` (same wiring, no HTTP).
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["assemble", "build_retriever", "llm_config", "retrieval_config"]

log = logging.getLogger("loopgate.gateway")


def llm_config(settings: Any) -> Any:
    """``loop.types.LLMConfig`` from settings, or ``None`` when no LLM is configured."""
    if not settings.llm_base_url:
        return None
    from loop.types import LLMConfig

    return LLMConfig(base_url=settings.llm_base_url, model=settings.llm_model or "local",
                     api_key=settings.llm_api_key, timeout_s=settings.llm_timeout_s,
                     protocol=settings.llm_protocol, temperature=settings.llm_temperature,
                     max_tokens=settings.llm_max_tokens)


def retrieval_config(settings: Any) -> Any:
    """``rag.types.RetrievalConfig`` from settings."""
    from rag.types import RetrievalConfig

    return RetrievalConfig(
        top_k=settings.rag_top_k, prefetch_k=settings.rag_prefetch_k, rrf_k=settings.rag_rrf_k,
        dense_weight=settings.rag_dense_weight, keyword_weight=settings.rag_keyword_weight,
        doc_weight=settings.rag_doc_weight, fusion=settings.rag_fusion,
        page_weight=settings.rag_page_weight,
        embed_timeout_s=settings.timeout_embed_s, search_timeout_s=settings.timeout_search_s,
    )


def build_retriever(settings: Any, store: Any, tokenizer: Any, embedder: Any) -> Any:
    """``rag.retriever.HybridRetriever`` from settings, with document resolution when enabled."""
    from rag.resolve import ProfileSource
    from rag.retriever import HybridRetriever

    resolver = (
        ProfileSource(store, tokenizer.terms, max_docs=settings.rag_resolve_max_docs)
        if settings.rag_resolve_documents else None
    )
    from rag.expand import QueryExpander

    expander = (QueryExpander(tokenizer.query_terms, tokenizer.normalize)
                if settings.rag_expand_queries else None)
    from rag.pages import PageNavigator

    pages = PageNavigator(store) if resolver is not None and settings.rag_page_weight > 0 else None
    return HybridRetriever(store, tokenizer, embedder, config=retrieval_config(settings),
                           resolver=resolver, expander=expander, pages=pages)


def assemble(c: Any) -> None:
    """Fill ``c`` (a :class:`gateway.app_state.Components`) with engines, cache and router."""
    from gateway.engines import CacheAdapter, HybridRagEngine, LoopAgentEngine, RetrieverSearch
    from gateway.router import Router

    s = c.settings
    cfg = llm_config(s)
    if cfg is not None:
        from loop.llm_breaker import CircuitBreaker
        from loop.llm_client import AsyncLLMClient

        # one breaker per process: the RAG path and the LoopAgent share the client
        c.llm = AsyncLLMClient(cfg, breaker=CircuitBreaker(s.llm_breaker_failures, s.llm_retry_s))
    rag = loop = None
    if c.store is not None:
        from loop.agent import LoopAgent
        from loop.types import LoopConfig
        retriever = build_retriever(s, c.store, c.tokenizer, c.embedder)
        rag = HybridRagEngine(retriever, llm=c.llm, answer_floor=s.rag_answer_floor)
        c.agent = LoopAgent(
            c.store, RetrieverSearch(retriever), llm=c.llm, key_terms=c.tokenizer,
            documents=_directory(c.store), embedder=c.embedder,
            config=LoopConfig(max_loops=s.loop_max_loops, tool_timeout_s=s.timeout_tool_s,
                              token_budget=s.loop_token_budget, deadline_s=s.loop_deadline_s,
                              min_coverage=s.loop_min_coverage,
                              directory_scan=s.loop_directory_scan),
        )
        loop = LoopAgentEngine(c.agent, c.store, deadline_s=s.loop_deadline_s,
                               llm_reserve_s=s.llm_deadline_reserve_s)
        c.retriever = retriever
    try:
        from gateway.cache import build_answer_cache

        c.cache = build_answer_cache(s)
    except Exception as exc:  # noqa: BLE001 - serve without cache, flagged in /readyz
        log.error("answer cache unavailable: %s", exc)
    from gateway.metrics import GatewayMetrics
    from gateway.routelog import RouteRecorder, build_route_log

    c.route_log = build_route_log(s)
    c.metrics = GatewayMetrics()
    from gateway.conversation.assemble import build_conversation

    conversation = build_conversation(c)
    c.router = Router(s, rag=rag, loop=loop,
                      cache=CacheAdapter(c.cache) if c.cache is not None else None,
                      sink=RouteRecorder(c.route_log, c.metrics),
                      corpus_version=c.corpus_version, cached_version=c.cached_version,
                      conversation=conversation)
    from gateway.ingest_jobs import IngestJobs

    c.ingest = IngestJobs(c)


class _CatalogueDirectory:
    """``loop.types.DocumentDirectory`` over ``corpus.catalogue.Catalogue``."""

    def __init__(self, catalogue: Any) -> None:
        self.catalogue = catalogue

    def list_documents(self, collection: str) -> list[Any]:
        """Every document of ``collection`` (catalogue order: by path)."""
        return list(self.catalogue.documents(collection))


def _directory(store: Any) -> Any:
    """The catalogue as the LoopAgent's document directory."""
    from corpus.catalogue import Catalogue

    return _CatalogueDirectory(Catalogue(store))
