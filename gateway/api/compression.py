"""gzip for the static pages only (``/``, ``/ask/…``, ``/dashboard…``): Starlette's
``GZipMiddleware`` on those paths, nothing else.

plotly.min.js is 4.82 MB as served by the plotly package and 1.47 MB gzipped (level 6). The
JSON API is left alone on purpose: its answers are small and a cache hit's CPU time is the
gateway's hot path; server-sent events are never compressed (Starlette excludes
``text/event-stream``).
"""

from __future__ import annotations

from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["STATIC_PREFIXES", "StaticGZip"]

#: Path prefixes whose responses are gzip-compressed (when the client accepts gzip).
STATIC_PREFIXES = ("/ask/", "/dashboard")


class StaticGZip:
    """ASGI middleware: gzip responses of ``/`` and :data:`STATIC_PREFIXES` over 1 kB."""

    def __init__(self, app: ASGIApp, minimum_size: int = 1024, compresslevel: int = 6) -> None:
        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=minimum_size, compresslevel=compresslevel)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == "/" or path.startswith(STATIC_PREFIXES):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
