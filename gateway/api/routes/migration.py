"""``GET /v1/migration`` (modes, split, shadow outcomes, agreement), ``GET /v1/migration/recent``,
plus :func:`dispatch_query`, the hook the query route calls before its own answer path.

The dispatcher is built on first use from the settings (``gateway.migration.build_dispatcher``)
and kept on ``app.state.components.migration``; with no migration configured it is ``None`` and
the hook returns ``None`` at once, so the query route behaves exactly as before.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.background import BackgroundTask

from gateway.api.deps import ComponentsDep, OrjsonResponse, PrincipalDep

__all__ = ["USER_HEADER", "dispatch_query", "dispatcher_of", "router"]

router = APIRouter(prefix="/v1/migration", tags=["migration"])

USER_HEADER = "x-loopgate-user"
"""Request header naming the end user; the canary split hashes it (else the question)."""

_UNSET = object()


async def dispatcher_of(components: Any) -> Any:
    """The process's :class:`~gateway.migration.MigrationDispatcher`, or ``None`` when migration
    is not configured (built once; Redis-backed log when ``LOOPGATE_REDIS_URL`` is set)."""
    current = getattr(components, "migration", _UNSET)
    if current is not _UNSET and current is not None:
        return current
    if getattr(components, "_migration_built", False):
        return None
    # no await below: one event loop cannot interleave two builds
    from gateway.migration import build_dispatcher

    settings = components.settings
    redis = None
    if settings.redis_url:
        from gateway.redis_support import open_redis

        redis = open_redis(settings.redis_url, timeout_s=settings.timeout_cache_s)
    components.migration = build_dispatcher(settings, redis)
    if components.migration is not None:
        components.migration.log.owns_redis = redis is not None
    elif redis is not None:
        await redis.aclose()
    components._migration_built = True
    return components.migration


async def dispatch_query(
    components: Any, q: Any, ask: Callable[[], Awaitable[Any]], *, user: str | None = None
) -> OrjsonResponse | None:
    """Answer ``q`` under its collection's migration mode, or return ``None`` (migration off).

    :param q: the router's ``QueryInput`` (``question``, ``collection`` are read).
    :param ask: zero-argument coroutine factory running LoopGate's own answer path.
    :param user: end-user id for the canary split (header ``X-LoopGate-User``).
    :returns: the response; legacy-served bodies carry ``sources`` (unverified) instead of
        citations, and every body carries a ``migration`` block (mode, served_by, fallback …).
    """
    dispatcher = await dispatcher_of(components)
    if dispatcher is None:
        return None
    trace_id = f"mig-{uuid.uuid4().hex[:16]}"  # sent to the legacy service as {trace_id}
    outcome = await dispatcher.dispatch(
        q.question, q.collection, ask, user=user, trace_id=trace_id, defer_shadow=True
    )
    if outcome.served_by == "legacy":
        # the shadow run starts once the answer has been sent (Starlette background task)
        background = BackgroundTask(outcome.start_shadow) if outcome.start_shadow else None
        return OrjsonResponse(outcome.legacy_response(), background=background)
    from gateway.api.routes.query import result_body

    body = result_body(outcome.loopgate)
    body["migration"] = outcome.info()
    return OrjsonResponse(body)


@router.get("", response_class=OrjsonResponse)
async def migration_status(components: ComponentsDep, principal: PrincipalDep) -> OrjsonResponse:
    """Migration modes per collection, the observed split, shadow outcomes and agreement."""
    dispatcher = await dispatcher_of(components)
    if dispatcher is None:
        return OrjsonResponse({"enabled": False, "collections": {}})
    policy = dispatcher.policy
    summary = await dispatcher.log.summary()
    names = set(summary) | set(policy.modes)
    collections = {}
    for name in sorted(n for n in names if principal.allows(n)):
        cm = policy.for_collection(name)
        collections[name] = {
            "mode": str(cm.mode),
            "canary_percent": cm.canary_percent if str(cm.mode) == "canary" else None,
            **summary.get(name, {"served": {}, "shadow": {}, "compared": 0}),
        }
    return OrjsonResponse(
        {
            "enabled": True,
            "default_mode": str(policy.default.mode),
            "legacy_configured": dispatcher.legacy is not None,
            "shadow_in_flight": dispatcher.shadow_in_flight,
            "log_dropped": dispatcher.log.dropped,
            "collections": collections,
        }
    )


@router.get("/recent", response_class=OrjsonResponse)
async def migration_recent(
    components: ComponentsDep,
    principal: PrincipalDep,
    collection: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> OrjsonResponse:
    """The most recent migration records (both answers and their agreement), newest first."""
    dispatcher = await dispatcher_of(components)
    if dispatcher is None:
        return OrjsonResponse({"records": []})
    if collection is not None:
        principal.check(collection)
    records = await dispatcher.log.recent(limit * 4 if collection is None else limit, collection)
    records = [r for r in records if principal.allows(str(r.get("collection", "")))][:limit]
    return OrjsonResponse({"records": records})
