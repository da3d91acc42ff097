"""The HTTP API (FastAPI): one ``APIRouter`` per topic under ``routes/`` (:data:`ROUTERS`, in
the order they are mounted), ``deps`` (dependency aliases), ``responses`` (the orjson response
class, the answer body), ``error_handlers`` (every exception → one JSON error shape) and the
middleware (``limits``, ``admin_guard``, ``compression``, ``head``, ``access_log``).
``gateway.main.create_app`` assembles them.
"""

from fastapi import APIRouter

from gateway.api.access_log import AccessLog
from gateway.api.admin_guard import AdminGuard
from gateway.api.compression import StaticGZip
from gateway.api.head import HeadAsGet
from gateway.api.limits import BodySizeLimit
from gateway.api.routes import (
    ask_page,
    chat,
    dashboard,
    documents,
    health,
    metrics,
    migration,
    query,
    routes_log,
    sessions,
    viewer,
)

__all__ = ["ROUTERS", "AccessLog", "AdminGuard", "BodySizeLimit", "HeadAsGet", "StaticGZip"]

#: The API's routers, in the order ``create_app`` mounts them.
ROUTERS: tuple[APIRouter, ...] = (
    query.router,
    chat.router,
    sessions.router,
    documents.router,
    health.router,
    metrics.router,
    viewer.router,
    ask_page.router,
    routes_log.router,
    dashboard.router,
    migration.router,
)
