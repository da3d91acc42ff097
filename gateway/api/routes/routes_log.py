"""``GET /v1/routes`` (recent route records, filterable), ``GET /v1/routes/{trace_id}`` and
``GET /v1/stats`` (the dashboard's aggregate, :func:`gateway.observe.stats.compute_stats`).

The route log comes from ``app.state.components.route_log`` (``gateway.observe.RouteLog``). With
API keys configured, a caller sees only its own records (those its API key made, of the
collections the key allows); an admin key sees every caller's.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Query, Request

from gateway.api.deps import Principal, PrincipalDep
from gateway.api.responses import OrjsonResponse
from gateway.errors import BadRequest, NotFound
from gateway.observe import RouteLog, RouteQuery, compute_stats

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["routes"])


def _route_log(request: Request) -> RouteLog:
    return request.app.state.components.route_log  # type: ignore[no-any-return]


RouteLogDep = Annotated[RouteLog, Depends(_route_log)]


def _scope(principal: Principal, collection: list[str] | None) -> frozenset[str] | None:
    """Collections the caller asked for, cut down to what its key allows (None = all)."""
    allowed = None if "*" in principal.collections else principal.collections
    if collection:
        asked = frozenset(collection)
        return asked if allowed is None else asked & allowed
    return allowed


def _caller(principal: Principal) -> str | None:
    """The caller whose records ``principal`` may read (None = every caller's: an admin key,
    or no API keys configured)."""
    return None if principal.admin else principal.scope


def _meta(route_log: RouteLog) -> dict[str, Any]:
    return {"backend": route_log.backend, "available": route_log.available}


@router.get("/routes")
async def list_routes(
    route_log: RouteLogDep,
    principal: PrincipalDep,
    path: Annotated[
        list[str] | None, Query(description="Final paths to keep (repeatable).")
    ] = None,
    min_confidence: Annotated[float | None, Query(ge=0, le=1)] = None,
    max_confidence: Annotated[float | None, Query(ge=0, le=1)] = None,
    since: Annotated[float | None, Query(description="Unix seconds; newer records only.")] = None,
    until: Annotated[float | None, Query(description="Unix seconds; older records only.")] = None,
    collection: Annotated[list[str] | None, Query(description="Collections (repeatable).")] = None,
    cache_hit: bool | None = None,
    escalated: bool | None = None,
    limit: Annotated[int, Query(ge=1, le=10000)] = 100,
) -> OrjsonResponse:
    """Recent route records, newest first, filtered by path, confidence, time and collection."""
    try:
        query = RouteQuery(
            paths=tuple(path or ()),
            min_confidence=min_confidence,
            max_confidence=max_confidence,
            since=since,
            until=until,
            collections=_scope(principal, collection),
            cache_hit=cache_hit,
            escalated=escalated,
            limit=limit,
            caller=_caller(principal),
        )
    except ValueError as exc:
        raise BadRequest(str(exc)) from exc
    records = await route_log.recent(query)
    return OrjsonResponse(
        {"records": [r.to_dict() for r in records], "count": len(records), **_meta(route_log)}
    )


@router.get("/routes/{trace_id}")
async def get_route(
    trace_id: str, route_log: RouteLogDep, principal: PrincipalDep
) -> OrjsonResponse:
    """One route record by trace id."""
    record = await route_log.get(trace_id)
    caller = _caller(principal)
    if record is None or not principal.allows(record.collection) or (
            caller is not None and record.extra.get("caller") != caller):
        raise NotFound(f"no route record {trace_id!r} in the log")
    return OrjsonResponse(record.to_dict())


@router.get("/stats")
async def stats(
    request: Request,
    route_log: RouteLogDep,
    principal: PrincipalDep,
    window_s: Annotated[float | None, Query(gt=0, description="Only the last N seconds.")] = None,
    collection: Annotated[list[str] | None, Query(description="Collections (repeatable).")] = None,
    limit: Annotated[int | None, Query(ge=1, le=10000)] = None,
    bucket_s: Annotated[int | None, Query(ge=1, le=86400)] = None,
) -> OrjsonResponse:
    """Aggregate of recent route records: route mix, rates, latency percentiles, timeouts."""
    settings = request.app.state.components.settings
    now = time.time()
    query = RouteQuery(
        # a window longer than the epoch (1e12, 1e308, inf) is every record, not a bad bound
        since=None if window_s is None or window_s >= now else now - window_s,
        collections=_scope(principal, collection),
        limit=limit or settings.stats_max_records,
        caller=_caller(principal),
    )
    records = await route_log.recent(query)
    body = await anyio.to_thread.run_sync(
        lambda: compute_stats(
            records, now=now, bucket_s=bucket_s, low_confidence=settings.confidence_threshold
        )
    )
    body["route_log"] = _meta(route_log)
    return OrjsonResponse(body)
