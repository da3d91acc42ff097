"""The components one gateway process holds (``app.state.components``), built once at start-up
by :func:`build_components` and closed by :meth:`Components.aclose`.

Start-up never fails because a backend is down (DESIGN.md, issue 6 item 8):

- chunk store cannot open (Qdrant unreachable, or the embedded shard locked by another process)
  → ``store=None``, ``store_error`` says why; ``mode=auto`` questions get a clear "unavailable"
  answer path (the router decides), ``mode=rag`` gets 503, ``/readyz`` says 503;
- no embedding model → keyword-only retrieval, flagged ``keyword_only`` in every route record;
- Redis unreachable → the cache's circuit breaker serves without cache, flagged, retried after
  ``redis_retry_s``;
- LLM unreachable → the LoopAgent runs its offline policy and the RAG path answers extractively,
  flagged ``llm_unavailable``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from gateway.settings import Settings

__all__ = ["Components", "build_components"]

log = logging.getLogger("loopgate.gateway")


@dataclass
class Components:
    """Everything a request may need; routes read it through ``gateway.api.deps``."""

    settings: Settings
    store: Any = None
    store_error: str = ""
    tokenizer: Any = None
    embedder: Any = None
    embedder_error: str = ""
    # collection -> what to do, for collections embedded with another model or dimension than
    # the configured embedder (``rag.embedder.startup_check`` at start-up; queries get 409)
    embedding_mismatch: dict[str, str] = field(default_factory=dict)
    llm: Any = None
    agent: Any = None
    retriever: Any = None
    cache: Any = None
    route_log: Any = None
    metrics: Any = None
    router: Any = None
    ingest: Any = None
    sessions: Any = None  # gateway.conversation.store.SessionStore (issue 16)
    migration: Any = None  # gateway.migration.MigrationDispatcher, built on first use (issue 7)
    _versions: dict[str, tuple[float, str]] = field(default_factory=dict)
    _collections: tuple[float, frozenset[str]] | None = None

    def corpus_version(self, collection: str) -> str:
        """The collection's corpus version ("" when it does not exist). Cached in-process: the
        embedded engine is single-process and every change goes through :meth:`forget`; with a
        Qdrant server (other replicas may ingest) the cached value lives one second."""
        now = time.monotonic()
        hit = self._versions.get(collection)
        if hit is not None and (not self.settings.qdrant_url or now - hit[0] < 1.0):
            return hit[1]
        if self.store is None:
            return ""
        meta = self.store.collection_meta(collection)
        version = str(meta.get("corpus_version", "")) if meta else ""
        self._versions[collection] = (now, version)
        return version

    def cached_version(self, collection: str) -> str | None:
        """The corpus version if known without touching the store (the cache-hit fast path)."""
        hit = self._versions.get(collection)
        if hit is None or (self.settings.qdrant_url and time.monotonic() - hit[0] >= 1.0):
            return None
        return hit[1]

    def forget(self, collection: str | None = None) -> None:
        """Drop cached corpus versions and collection names (after an ingest or delete)."""
        if collection is None:
            self._versions.clear()
        else:
            self._versions.pop(collection, None)
        self._collections = None

    async def known_collections(self) -> frozenset[str] | None:
        """Names of existing collections (cached 2 s), or ``None`` when the store is down."""
        if self.store is None:
            return None
        now = time.monotonic()
        if self._collections is None or now - self._collections[0] > 2.0:
            try:
                names = await asyncio.to_thread(self.store.list_collections)
            except Exception:  # noqa: BLE001 - unknown → let the router report the outage
                return None
            self._collections = (now, frozenset(names))
        return self._collections[1]

    async def aclose(self) -> None:
        """Close what was opened (ingest jobs, LLM client, cache, route log, store)."""
        for name in ("migration", "ingest", "agent", "llm", "cache", "route_log", "sessions"):
            obj = getattr(self, name)
            close = getattr(obj, "aclose", None)
            if close is not None:
                try:
                    await close()
                except Exception as exc:  # noqa: BLE001 - closing must go on
                    log.warning("closing %s failed: %s", name, exc)
        if self.store is not None:
            try:
                await asyncio.to_thread(self.store.close)
            except Exception as exc:  # noqa: BLE001
                log.warning("closing the chunk store failed: %s", exc)


def _open_store(settings: Settings) -> Any:
    """The chunk store from settings (``gateway.components.open_store``)."""
    from gateway.components import open_store

    return open_store(settings)


def _tokenizer() -> Any:
    from gateway.components import get_tokenizer

    return get_tokenizer()


def _embedder(settings: Settings) -> Any:
    """The dense embedder, or ``None`` (keyword-only) when no model can be loaded."""
    from gateway.components import get_embedder

    return get_embedder(settings)


def build_components(settings: Settings) -> Components:
    """Open every component the settings ask for (blocking; call it from a thread)."""
    from gateway.assembly import assemble

    c = Components(settings)
    try:
        c.store = _open_store(settings)
        if settings.existing_collections:  # issue 7: read collections another pipeline built
            from gateway.migration.store_overlay import with_existing_collections

            try:
                c.store = with_existing_collections(settings, c.store)
            except Exception as exc:  # noqa: BLE001 - serve LoopGate's own collections
                log.error("existing collections not mapped: %s: %s", type(exc).__name__, exc)
    except Exception as exc:  # noqa: BLE001 - serve degraded, /readyz says why
        c.store_error = f"{type(exc).__name__}: {exc}"
        log.error("chunk store unavailable: %s", c.store_error)
    c.tokenizer = _tokenizer()
    try:
        c.embedder = _embedder(settings)
    except Exception as exc:  # noqa: BLE001 - keyword-only, said once
        c.embedder_error = f"{type(exc).__name__}: {exc}"
        log.warning("no embedding model (%s): keyword-only retrieval; collections with dense "
                    "vectors are refused unless LOOPGATE_ALLOW_KEYWORD_ONLY", c.embedder_error)
    if c.embedder is None and not c.embedder_error:
        log.warning("no embedding model configured: keyword-only retrieval; collections with "
                    "dense vectors are refused unless LOOPGATE_ALLOW_KEYWORD_ONLY")
    if c.store is not None and c.embedder is None:  # dense vectors but no model: 409 + the fix
        from gateway.model_check import dense_without_model

        c.embedding_mismatch.update(dense_without_model(settings, c.store, c.embedder_error))
    if c.store is not None and c.embedder is not None:
        from rag.embedder import startup_check

        for name, state in startup_check(c.store, c.embedder).items():
            if state not in ("ok", "missing", "no_dense", "keyword_only"):
                c.embedding_mismatch[name] = state
                log.error("collection %r: %s", name, state)
    assemble(c)
    if c.store is not None and getattr(c, "retriever", None) is not None:
        try:
            names = c.store.list_collections()
        except Exception as exc:  # the store answers later or not: requests say so
            log.warning("could not list collections to warm up: %s", exc)
            names = []
        for name, state in c.retriever.warm_up_collections(names).items():
            if state != "ok":
                log.warning("collection %r: document resolver not warmed up (%s)", name, state)
    return c
