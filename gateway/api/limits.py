"""Request body size limits as a pure ASGI middleware (no buffering of the body).

``POST /v1/documents`` may carry up to ``max_upload_bytes`` (plus 64 KiB of multipart
overhead); every other request up to ``max_body_bytes``. A declared ``Content-Length`` over the
limit is refused before reading; a chunked body is counted as it streams and cut off at the
limit. Either way the client gets 413 with the standard error body.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.errors import PayloadTooLarge, error_body

__all__ = ["BodySizeLimit"]

_MULTIPART_SLACK = 64 * 1024


class _TooLarge(PayloadTooLarge):
    """Raised while streaming; the app's error handler (or this middleware) turns it into 413."""


class BodySizeLimit:
    """ASGI middleware refusing bodies over the limit with 413.

    :param app: the wrapped ASGI app.
    :param max_body_bytes: limit for ordinary requests.
    :param max_upload_bytes: limit for ``/v1/documents`` uploads.
    """

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_upload_bytes: int) -> None:
        self.app = app
        self.max_body = max_body_bytes
        self.max_upload_stated = max_upload_bytes
        self.max_upload = max_upload_bytes + _MULTIPART_SLACK  # room for multipart framing

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE"):
            await self.app(scope, receive, send)
            return
        upload = scope["path"].startswith("/v1/documents")
        limit = self.max_upload if upload else self.max_body
        stated = self.max_upload_stated if upload else self.max_body  # the limit users set
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > limit:
                    await self._refuse(send, declared, stated)
                    return
        seen = 0
        started = False

        async def counting_receive() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(f"request body is over the limit of {stated} bytes")
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._refuse(send, seen, stated)

    @staticmethod
    async def _refuse(send: Send, size: int, limit: int) -> None:
        body = orjson.dumps(
            error_body(413, "too_large", f"request body of {size} bytes is over the limit of "
                       f"{limit} bytes")
        )
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
