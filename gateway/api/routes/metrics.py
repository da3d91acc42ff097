"""``GET /metrics``: Prometheus exposition of the gateway's registry."""

from __future__ import annotations

from fastapi import APIRouter
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from starlette.responses import Response

from gateway.api.deps import ComponentsDep

__all__ = ["router"]

router = APIRouter(tags=["metrics"])


@router.get("/metrics", include_in_schema=False)
async def metrics(components: ComponentsDep) -> Response:
    """Prometheus metrics (requests by path, escalations, cache hits, timeouts, latencies …)."""
    settle = getattr(components.metrics, "settle", None)
    if settle is not None:  # route records queued by requests answered just now
        settle()
    registry = getattr(components.metrics, "registry", None) or REGISTRY
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
