"""The components one gateway process holds (``app.state.components``): :class:`Components`,
filled once at start-up by :func:`gateway.wiring.build_components` and closed by
:meth:`Components.aclose`. It also keeps the in-process corpus-version and collection-name
caches every request reads.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gateway.settings import Settings

if TYPE_CHECKING:
    from corpus.tokenizer import Tokenizer
    from gateway.cache import AnswerCache
    from gateway.conversation.store import SessionStore
    from gateway.ingest import IngestJobs
    from gateway.migration import MigrationDispatcher
    from gateway.observe import GatewayMetrics, RouteLog
    from gateway.routing import Router
    from loop.agent import LoopAgent
    from loop.llm_client import AsyncLLMClient
    from rag.embedder import FastEmbedEmbedder
    from rag.retriever import HybridRetriever

__all__ = ["Components"]

log = logging.getLogger("loopgate.gateway")


@dataclass
class Components:
    """Everything a request may need; routes read it through ``gateway.api.deps``."""

    settings: Settings
    #: the chunk store (``corpus.qdrant_store.QdrantChunkStore``, wrapped by the migration's
    #: existing-collections overlay when some are mapped), or ``None`` when it cannot open
    store: Any = None
    store_error: str = ""
    tokenizer: Tokenizer = field(init=False)  # set by build_components, always
    embedder: FastEmbedEmbedder | None = None
    embedder_error: str = ""
    # collection -> what to do, for collections embedded with another model or dimension than
    # the configured embedder (``rag.embedder.startup_check`` at start-up; queries get 409)
    embedding_mismatch: dict[str, str] = field(default_factory=dict)
    #: collection -> note, for collections whose vectors another embedding runtime made
    #: (``rag.embedder.runtime_note``; queries answer, dense search slightly off; ``/readyz``)
    embedding_warnings: dict[str, str] = field(default_factory=dict)
    llm: AsyncLLMClient | None = None
    #: the start-up speed probe's report (``gateway.wiring.llm_budgets``; ``/readyz``)
    llm_budgets: dict[str, Any] | None = None
    agent: LoopAgent | None = None
    retriever: HybridRetriever | None = None
    cache: AnswerCache | None = None
    # set by ``gateway.wiring.build.assemble`` (always, also without a store)
    route_log: RouteLog = field(init=False)
    metrics: GatewayMetrics = field(init=False)
    router: Router = field(init=False)
    ingest: IngestJobs = field(init=False)
    sessions: SessionStore | None = None  # issue 16
    migration: MigrationDispatcher | None = None  # issue 7; None = migration not configured
    _versions: dict[str, tuple[float, str]] = field(default_factory=dict)
    _collections: tuple[float, frozenset[str]] | None = None
    _with_documents: tuple[float, frozenset[str]] | None = None

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
        self._collections = self._with_documents = None

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

    async def collections_with_documents(self) -> frozenset[str] | None:
        """Names of the collections holding at least one catalogued document (cached 2 s, like
        :meth:`known_collections`), or ``None`` when the store is down."""
        names = await self.known_collections()
        if names is None:
            return None
        now = time.monotonic()
        if self._with_documents is None or now - self._with_documents[0] > 2.0:
            from corpus.catalogue import Catalogue

            catalogue = Catalogue(self.store)
            try:
                found = await asyncio.to_thread(
                    lambda: frozenset(n for n in names if catalogue.has_documents(n)))
            except Exception:  # noqa: BLE001 - unknown → as when the store is down
                return None
            self._with_documents = (now, found)
        return self._with_documents[1]

    async def aclose(self) -> None:
        """Close what was opened (ingest jobs, LLM client, cache, route log, store)."""
        for name in ("migration", "ingest", "agent", "llm", "cache", "route_log", "sessions"):
            obj = getattr(self, name, None)
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
