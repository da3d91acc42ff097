"""Build the :class:`~gateway.conversation.service.ConversationService` of one gateway process
from settings (called by ``gateway.assembly.assemble``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gateway.conversation.memory import MemoryLimits
from gateway.conversation.service import ConversationService
from gateway.conversation.store import SessionStore

__all__ = ["build_conversation"]


def build_conversation(c: Any) -> ConversationService:
    """Session store (Redis at ``redis_url``, else in-process), memory limits, a document
    reader over the chunk store and, with an LLM, the LLM rewriter; sets ``c.sessions``."""
    s = c.settings
    client = None
    if s.redis_url:
        from gateway.redis_support import CircuitBreaker, open_redis

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
        from gateway.conversation.llm import LLMConversation

        conv_llm = LLMConversation(c.llm)
        llm_rewriter, llm_summariser = conv_llm.rewrite, conv_llm.summarise
        llm_key_terms = conv_llm.key_terms
    cross = None
    if c.store is not None and c.tokenizer is not None and s.cross_language:
        from gateway.conversation.crosslang import (
            CrossLanguage,
            catalogue_languages,
            store_search,
            warm_up_in_background,
        )

        warm_up_in_background()
        cross = CrossLanguage(store_search(c.store, c.tokenizer), catalogue_languages(c.store))
    limits = MemoryLimits(max_tokens=s.session_max_tokens, window_turns=s.session_window_turns)
    return ConversationService(store, limits, read_chunks=read, llm_rewriter=llm_rewriter,
                               cross_language=cross, llm_summariser=llm_summariser,
                               corpus_version=c.corpus_version, llm_key_terms=llm_key_terms)
