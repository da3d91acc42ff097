"""``HEAD`` answered as ``GET`` without the body, for every route (RFC 9110 §9.3.2: a server
that answers GET on a resource should answer HEAD too).

Starlette's own routes (``/docs``, ``/openapi.json``) add HEAD to a GET route, FastAPI's
``APIRoute`` does not: ``HEAD /healthz`` and ``HEAD /`` answered 405. Adding ``HEAD`` to each
route's methods would also put a second operation of the same id in the OpenAPI schema
(FastAPI warns "Duplicate Operation ID"), so this middleware hands a HEAD request to the app as
a GET (same status, headers and ``Content-Length``; a path without GET answers 405 as before)
and drops the body it sends. It sits inside the access log, which records the method asked.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["HeadAsGet"]


class HeadAsGet:
    """ASGI middleware: a ``HEAD`` request runs the ``GET`` route and gets no body.

    Usage example::

        app.add_middleware(HeadAsGet)
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_head(message: Message) -> None:
            if message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, send_head)
