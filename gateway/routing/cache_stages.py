"""The router's answer-cache stages: ``cache_get`` (the in-process near-cache without I/O, then
the shared cache) and ``cache_put``, each under ``timeout_cache_s``; a cache that is down or
slow is a miss (flags ``cache_unavailable`` / ``cache_timeout``), never a degraded answer.

Split from :mod:`gateway.routing.router`; the timeouts run through
:meth:`gateway.routing.stages.RouterStages._stage` like every other stage.
"""

from __future__ import annotations

import time
from typing import Any

from gateway.errors import ServiceUnavailable
from gateway.routing.stages import Ctx, RouterStages
from gateway.routing.types import QueryInput, QueryResult

__all__ = ["CacheStages"]


class CacheStages(RouterStages):
    """The cache stages of :class:`gateway.routing.Router` (state set by its ``__init__``)."""

    def _peek(self, ctx: Ctx, q: QueryInput, version: str) -> dict[str, Any] | None:
        """The in-process near-cache's payload for ``q`` (no I/O), timed as ``cache_get``."""
        peek = getattr(self.cache, "peek", None)
        if peek is None:
            return None
        t0 = time.perf_counter()
        hit: dict[str, Any] | None = peek(q.question, q.collection, q.mode, version)
        if hit is not None:
            ctx.timings["cache_get"] = round((time.perf_counter() - t0) * 1000, 3)
        return hit

    async def _cache_hit(self, ctx: Ctx, hit: dict[str, Any], reason: str) -> QueryResult:
        """Fill the route record for a cache hit and rebuild the cached result."""
        ctx.record.served_from_cache(hit.get("brain", ""), reason)
        if hit.get("conflict") is not None:
            # the answer still lists the disagreeing documents: flagged as when it was computed
            # (a trial's cached conflict answer had no flag)
            ctx.record.flag("conflict")
        await self._emit(ctx, {"type": "route", **ctx.record.decision})
        return QueryResult.from_cached(hit)

    async def _cache_lookup(self, ctx: Ctx, q: QueryInput, version: str) -> QueryResult | None:
        """Stage ``cache_get``: the in-process near-cache (no I/O), then the shared cache; a
        cache that is down or slow is a miss (flag ``cache_unavailable`` / ``cache_timeout``)."""
        assert self.cache is not None
        cache = self.cache
        hit = self._peek(ctx, q, version)
        if hit is not None:
            return await self._cache_hit(ctx, hit, "answer cache hit (near)")
        try:
            hit, _ = await self._stage(
                ctx, "cache_get", lambda: cache.get(q.question, q.collection, q.mode, version),
                self.settings.timeout_cache_s,
            )
        except (ServiceUnavailable, ValueError, OSError) as exc:
            hit = None
            ctx.record.cache_unavailable("cache_get", exc)
        ctx.record.cache_slow("cache_get")
        return None if hit is None else await self._cache_hit(ctx, hit, "answer cache hit")

    async def _cache_store(self, ctx: Ctx, q: QueryInput, version: str, result: QueryResult,
                           brain: str) -> None:
        """Stage ``cache_put`` (never a degraded answer; a slow write is not one either)."""
        assert self.cache is not None
        rec, cache = ctx.record, self.cache
        if rec.timeouts or "loop_error" in rec.flags:
            return
        payload = {**result.to_dict(), "brain": brain}
        try:
            await self._stage(
                ctx, "cache_put",
                lambda: cache.put(q.question, q.collection, q.mode, version, payload),
                self.settings.timeout_cache_s,
            )
        except (ServiceUnavailable, ValueError, OSError, TypeError) as exc:
            rec.cache_unavailable("cache_put", exc)
        rec.forget_timeouts("cache_put")
