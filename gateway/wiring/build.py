"""Build every component of one gateway process from settings, once, at start-up.

:func:`build_components` opens the chunk store (with the migration's existing collections
mapped over it), the tokenizer and the embedder, then :func:`assemble` wires the rest: the LLM
client, hybrid retriever, RAG and LoopAgent engines, answer cache, route log, metrics,
conversation service, router, ingest jobs and the migration dispatcher. Used by the HTTP app's
lifespan (``gateway.main``), ``loopgate ask --mode auto`` / ``chat`` and the eval harness.

Start-up never fails because a backend is down (DESIGN.md, issue 6 item 8):

- chunk store cannot open (Qdrant unreachable, or the embedded shard locked by another process)
  → ``store=None``, ``store_error`` says why; ``mode=auto`` questions get a clear "unavailable"
  answer path (the router decides), ``mode=rag`` gets 503, ``/readyz`` says 503;
- no embedding model → keyword-only retrieval, flagged ``keyword_only`` in every route record;
- Redis unreachable → the cache's circuit breaker serves without cache, flagged, retried after
  ``redis_retry_s``;
- LLM unreachable → the LoopAgent runs its offline policy and the RAG path answers extractively,
  flagged ``llm_unavailable``.

A migration mapping that cannot work (``LegacyConfigError``: bad JMESPath, a mode that needs a
legacy service with none configured) does stop start-up: it is a configuration error, not an
outage.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from corpus.types import Chunk, ChunkStore
from gateway.cache import build_answer_cache
from gateway.conversation.cedict import warm_up_in_background
from gateway.conversation.crosslang import CrossLanguage
from gateway.conversation.llm import LLMConversation
from gateway.conversation.memory import MemoryLimits
from gateway.conversation.service import ConversationService
from gateway.conversation.store import SessionStore
from gateway.engines import CacheAdapter, HybridRagEngine, LoopAgentEngine, RetrieverSearch
from gateway.engines.unit_embedder import SharedUnitEmbedder
from gateway.errors import is_lock_error
from gateway.ingest import IngestJobs
from gateway.migration import MigrationDispatcher, MigrationPolicy, build_dispatcher
from gateway.migration.store_overlay import with_existing_collections
from gateway.observe import GatewayMetrics, RouteRecorder, build_route_log
from gateway.redis_support import CircuitBreaker, open_redis
from gateway.routing import Router
from gateway.settings import Settings
from gateway.wiring.components import Components
from gateway.wiring.crosslang_sources import (
    catalogue_documents,
    catalogue_languages,
    document_texts,
    store_search,
)
from gateway.wiring.factories import (
    build_retriever,
    catalogue_directory,
    directory_builder,
    get_embedder,
    get_tokenizer,
    llm_config,
    open_store,
)
from gateway.wiring.llm_budgets import fit_llm_budgets
from gateway.wiring.model_check import dense_without_model
from loop.agent import LoopAgent
from loop.config import LoopConfig
from loop.llm_breaker import CircuitBreaker as LLMBreaker
from loop.llm_client import AsyncLLMClient

__all__ = ["assemble", "build_components", "build_conversation", "build_migration"]

log = logging.getLogger("loopgate.gateway")
#: Texts per embedding call for the LoopAgent's evidence sentences (up to 60 short sentences per
#: answer turn): one call per sentence cost 12–25 % more CPU than batches of 8 (rag.embedder
#: ``FastEmbedEmbedder.with_batch_size``); ``embed_batch_size`` (1) is for chunks at ingest.
UNIT_EMBED_BATCH = 8


def build_components(settings: Settings, *,
                     step: Callable[[str], AbstractContextManager[object]] | None = None
                     ) -> Components:
    """Open every component the settings ask for (blocking; call it from a thread); with an
    LLM configured its speed is probed first (:mod:`gateway.wiring.llm_budgets`), so
    ``components.settings`` holds the budgets in effect.

    :param step: called with what a slow step does (``"loading the embedding model …"``),
        the context manager it returns wraps that step: the CLI shows a status with it
        (``gateway.cli._status.slow_steps``); ``None`` (the server) shows nothing."""
    step = step or _quiet
    # the LLM's speed first: every component below reads the budgets it sizes (issue 14 item 4)
    with step("measuring the LLM's speed …") if settings.llm_base_url else nullcontext():
        settings, budgets = fit_llm_budgets(settings)
    c = Components(settings, llm_budgets=budgets)
    try:
        c.store = open_store(settings)
        if settings.existing_collections:  # issue 7: read collections another pipeline built
            try:
                c.store = with_existing_collections(settings, c.store)
            except Exception as exc:  # noqa: BLE001 - serve LoopGate's own collections
                log.error("existing collections not mapped: %s: %s", type(exc).__name__, exc)
    except Exception as exc:  # noqa: BLE001 - serve degraded, /readyz says why
        c.store_error = f"{type(exc).__name__}: {exc}"
        log.error("chunk store unavailable: %s", c.store_error)
    c.tokenizer = get_tokenizer()
    try:
        with step("loading the embedding model …"):  # ~13 s on a busy machine
            c.embedder = get_embedder(settings)
    except Exception as exc:  # noqa: BLE001 - keyword-only, said once
        c.embedder_error = f"{type(exc).__name__}: {exc}"
        log.warning("no embedding model (%s): keyword-only retrieval; collections with dense "
                    "vectors are refused unless LOOPGATE_ALLOW_KEYWORD_ONLY", c.embedder_error)
    if c.embedder is None and not c.embedder_error:
        log.warning("no embedding model configured: keyword-only retrieval; collections with "
                    "dense vectors are refused unless LOOPGATE_ALLOW_KEYWORD_ONLY")
    if c.store is not None and c.embedder is None:  # dense vectors but no model: 409 + the fix
        c.embedding_mismatch.update(dense_without_model(settings, c.store, c.embedder_error))
    if c.store is not None and c.embedder is not None:
        from rag.embedder import runtime_note, startup_check

        for name, state in startup_check(c.store, c.embedder).items():
            if state == "runtime_differs":
                c.embedding_warnings[name] = runtime_note(c.store, name)
                log.warning("%s", c.embedding_warnings[name])
            elif state not in ("ok", "missing", "no_dense", "keyword_only"):
                c.embedding_mismatch[name] = state
                if not is_lock_error(Exception(state)):  # the command says that once itself
                    log.error("collection %r: %s", name, state)
    assemble(c)
    if c.store is not None and c.retriever is not None:
        try:
            names = c.store.list_collections()
        except Exception as exc:  # the store answers later or not: requests say so
            log.warning("could not list collections to warm up: %s", exc)
            names = []
        for name, state in c.retriever.warm_up_collections(names).items():
            if state != "ok" and not is_lock_error(Exception(state)):  # held: said once later
                log.warning("collection %r: document resolver not warmed up (%s)", name, state)
    return c


def _quiet(_what: str) -> AbstractContextManager[object]:
    return nullcontext()


def assemble(c: Components) -> None:
    """Fill ``c`` with the LLM client, engines, cache, route log, metrics, router, ingest jobs
    and migration dispatcher (after :func:`build_components` opened store, tokenizer, embedder)."""
    s = c.settings
    cfg = llm_config(s)
    if cfg is not None:
        # one breaker per process: the RAG path and the LoopAgent share the client
        c.llm = AsyncLLMClient(cfg, breaker=LLMBreaker(s.llm_breaker_failures, s.llm_retry_s))
    rag = loop = None
    if c.store is not None:
        retriever = build_retriever(s, c.store, c.tokenizer, c.embedder)
        # scope all: RAG answers and the LoopAgent; loop: the LoopAgent only (RAG extractive);
        # conversation: neither (rewrites, summaries and translations only)
        rag_llm = c.llm if s.llm_scope == "all" else None
        loop_llm = c.llm if s.llm_scope in ("all", "loop") else None
        rag = HybridRagEngine(retriever, llm=rag_llm, answer_floor=s.rag_answer_floor)
        c.agent = LoopAgent(
            c.store, RetrieverSearch(retriever), llm=loop_llm, key_terms=c.tokenizer,
            documents=catalogue_directory(c.store),
            # evidence sentences are short: batches of UNIT_EMBED_BATCH, as before issue 19;
            # questions through the retrieval embedder's query cache (the RAG path's vector)
            embedder=(SharedUnitEmbedder(c.embedder.with_batch_size(UNIT_EMBED_BATCH),
                                         queries=c.embedder)
                      if c.embedder is not None else None),
            phrases=retriever.expander.phrases if retriever.expander is not None else None,
            config=LoopConfig(max_loops=s.loop_max_loops, tool_timeout_s=s.timeout_tool_s,
                              token_budget=s.loop_token_budget, deadline_s=s.loop_deadline_s,
                              min_coverage=s.loop_min_coverage,
                              directory_scan=s.loop_directory_scan),
        )
        loop = LoopAgentEngine(c.agent, c.store, deadline_s=s.loop_deadline_s,
                               llm_reserve_s=s.llm_deadline_reserve_s)
        c.retriever = retriever
    try:
        c.cache = build_answer_cache(s)
    except Exception as exc:  # noqa: BLE001 - serve without cache, flagged in /readyz
        log.error("answer cache unavailable: %s", exc)
    c.route_log = build_route_log(s)
    c.metrics = GatewayMetrics()
    c.router = Router(s, rag=rag, loop=loop,
                      cache=CacheAdapter(c.cache) if c.cache is not None else None,
                      sink=RouteRecorder(c.route_log, c.metrics),
                      corpus_version=c.corpus_version, cached_version=c.cached_version,
                      conversation=build_conversation(c), doc_head=_doc_head(c.store),
                      collections=c.known_collections)

    def ingestor() -> Any:
        from corpus.ingest import Ingestor  # parsers (PyMuPDF …): loaded by the first upload

        return Ingestor(c.store, c.tokenizer, c.embedder, workers=1,
                        directory=directory_builder(s, c.tokenizer))

    c.ingest = IngestJobs(c, ingestor=ingestor)
    c.migration = build_migration(s)


def build_migration(settings: Settings) -> MigrationDispatcher | None:
    """The migration dispatcher (issue 7), or ``None`` when migration is not configured; its log
    is Redis-backed when ``LOOPGATE_REDIS_URL`` is set (opening a client connects lazily).

    :raises gateway.migration.LegacyConfigError: the legacy mapping cannot work.
    """
    policy = MigrationPolicy.from_strings(
        settings.migration_modes, settings.migration_default_mode,
        settings.migration_canary_percent, settings.migration_canary_key,
    )
    redis = None
    if settings.redis_url and (settings.legacy_rag_url or policy.needs_legacy()):
        redis = open_redis(settings.redis_url, timeout_s=settings.timeout_cache_s)
    dispatcher = build_dispatcher(settings, redis)
    if dispatcher is not None:
        dispatcher.log.owns_redis = redis is not None
    return dispatcher


def _doc_head(store: ChunkStore | None) -> Callable[[str, str], list[Chunk]] | None:
    """``(collection, doc_id) -> the document's first three chunks`` for the router's conflict
    check, or ``None`` without a chunk store."""
    if store is None:
        return None

    def head(collection: str, doc_id: str) -> list[Chunk]:
        return list(store.document_chunks(collection, doc_id)[:3])

    return head


def build_conversation(c: Components) -> ConversationService:
    """Session store (Redis at ``redis_url``, else in-process), memory limits, a document
    reader over the chunk store and, with an LLM, the LLM rewriter; sets ``c.sessions``."""
    s = c.settings
    client = None
    if s.redis_url:
        client = open_redis(s.redis_url, timeout_s=s.timeout_cache_s)
        store = SessionStore(client, ttl_s=s.session_ttl_s, key_prefix=s.redis_key_prefix,
                             breaker=CircuitBreaker(s.redis_retry_s))
    else:
        store = SessionStore(None, ttl_s=s.session_ttl_s, key_prefix=s.redis_key_prefix)
    c.sessions = store
    read = None
    if c.store is not None:
        chunk_store = c.store

        def read(collection: str, chunk_ids: Sequence[str]) -> list[Any]:
            """Every chunk of the (at most three) documents holding ``chunk_ids``."""
            found = chunk_store.get_chunks(collection, list(chunk_ids))
            by_id = {ch.chunk_id: ch.doc_id for ch in found}
            docs = list(dict.fromkeys(by_id[i] for i in chunk_ids if i in by_id))[:3]
            out: list[Any] = []
            for d in docs:
                out.extend(chunk_store.document_chunks(collection, d))
            return out

    llm_rewriter = llm_summariser = llm_key_terms = None
    if c.llm is not None:
        conv_llm = LLMConversation(c.llm)
        llm_rewriter, llm_summariser = conv_llm.rewrite, conv_llm.summarise
        llm_key_terms = conv_llm.key_terms
    cross = None
    if c.store is not None and c.tokenizer is not None and s.cross_language:
        warm_up_in_background()
        cross = CrossLanguage(store_search(c.store, c.tokenizer), catalogue_languages(c.store),
                              doc_texts=document_texts(c.store),
                              doc_names=catalogue_documents(c.store))
    limits = MemoryLimits(max_tokens=s.session_max_tokens, window_turns=s.session_window_turns)
    return ConversationService(store, limits, read_chunks=read, llm_rewriter=llm_rewriter,
                               cross_language=cross, llm_summariser=llm_summariser,
                               corpus_version=c.corpus_version, llm_key_terms=llm_key_terms,
                               llm_timeout_s=s.conversation_llm_timeout_s,
                               cached_version=c.cached_version)
