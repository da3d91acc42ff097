"""A structured access log: one JSON line per HTTP request on the ``loopgate.access`` logger.

It replaces uvicorn's access log (``loopgate serve`` turns that one off), which has neither
the latency nor the route. Fields: ``ts`` (UNIX seconds), ``client``, ``method``, ``path`` (no
query string: it may carry document ids), ``status``, ``ms`` (request start to the last body
byte, so a streamed answer counts whole), ``bytes`` (response body, after compression) and,
for a question (``/v1/query``, ``/v1/query/stream``, the chat facade), ``route`` (the
decision), ``final_path``, ``cached``, ``trace_id`` — read from ``scope["state"]
["loopgate_route"]``, which the query routes set to the route record. Nothing is computed
when the logger is not enabled for INFO.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ROUTE_STATE_KEY", "AccessLog", "access_line"]

log = logging.getLogger("loopgate.access")
#: Key in ``scope["state"]`` (Starlette's ``request.state``) where routes put the route record.
ROUTE_STATE_KEY = "loopgate_route"


def access_line(scope: Scope, status: int, ms: float, size: int) -> str:
    """The JSON line of one request (see the module docstring for the fields)."""
    client = scope.get("client")
    entry: dict[str, Any] = {
        "ts": round(time.time(), 3),
        "client": f"{client[0]}:{client[1]}" if client else "",
        "method": scope.get("method", ""),
        "path": scope.get("path", ""),
        "status": status,
        "ms": round(ms, 2),
        "bytes": size,
    }
    route = (scope.get("state") or {}).get(ROUTE_STATE_KEY)
    if isinstance(route, dict):
        entry.update(route=(route.get("decision") or {}).get("route", ""),
                     final_path=route.get("final_path", ""),
                     cached=bool(route.get("cache_hit")), trace_id=route.get("trace_id", ""))
    return orjson.dumps(entry).decode()


class AccessLog:
    """ASGI middleware writing :func:`access_line` at INFO on ``loopgate.access``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not log.isEnabledFor(logging.INFO):
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status, size, done = 500, 0, False

        async def sending(message: Message) -> None:
            nonlocal status, size, done
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))
                if not message.get("more_body", False) and not done:
                    done = True
                    await send(message)
                    log.info(access_line(scope, status, (time.perf_counter() - t0) * 1000, size))
                    return
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            if not done:  # the client went away or the app failed before the last byte
                log.info(access_line(scope, status, (time.perf_counter() - t0) * 1000, size))
