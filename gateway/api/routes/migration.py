"""``GET /v1/migration`` (modes, split, shadow outcomes, agreement) and
``GET /v1/migration/recent``, over the dispatcher the wiring built at start-up
(``Components.migration``; ``None`` when migration is not configured)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from gateway.api.deps import ComponentsDep, PrincipalDep
from gateway.api.responses import OrjsonResponse

__all__ = ["router"]

router = APIRouter(prefix="/v1/migration", tags=["migration"])

@router.get("", response_class=OrjsonResponse)
async def migration_status(components: ComponentsDep, principal: PrincipalDep) -> OrjsonResponse:
    """Migration modes per collection, the observed split, shadow outcomes and agreement."""
    dispatcher = components.migration
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
    dispatcher = components.migration
    if dispatcher is None:
        return OrjsonResponse({"records": []})
    if collection is not None:
        principal.check(collection)
    records = await dispatcher.log.recent(limit * 4 if collection is None else limit, collection)
    records = [r for r in records if principal.allows(str(r.get("collection", "")))][:limit]
    return OrjsonResponse({"records": records})
