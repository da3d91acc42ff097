"""Admin-only paths (issue 20 item 6): with API keys configured (``LOOPGATE_API_KEYS`` or
``LOOPGATE_ADMIN_KEYS``), ``/metrics``, ``/docs``, ``/redoc``, ``/openapi.json`` and ``/v1/stats``
(the dashboard's aggregate of every caller's traffic) answer only a request carrying
``Authorization: Bearer <admin key>``: 401 without a key, 403 with a non-admin key. With no keys
at all (loopback, or ``--allow-anonymous``) they stay open. A pure ASGI middleware: it adds no
cost to other paths.
"""

from __future__ import annotations

import hmac

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import error_body
from gateway.settings import Settings

__all__ = ["ADMIN_PATHS", "AdminGuard", "is_admin"]

ADMIN_PATHS = frozenset({"/metrics", "/docs", "/docs/oauth2-redirect", "/redoc",
                         "/openapi.json", "/v1/stats"})


def is_admin(settings: Settings, token: str) -> bool:
    """True when ``token`` is one of ``settings.admin_keys`` (constant-time comparison)."""
    return any(hmac.compare_digest(k.encode(), token.encode()) for k in settings.admin_keys)


class AdminGuard:
    """ASGI middleware guarding :data:`ADMIN_PATHS` (see module docstring).

    :param app: the wrapped ASGI app.
    :param settings: ``gateway.settings.Settings`` (``api_keys``, ``admin_keys``).
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an admin path without an admin key; pass everything else through."""
        s = self.settings
        path = scope.get("path", "").rstrip("/") or "/"
        if scope["type"] != "http" or path not in ADMIN_PATHS or not (s.api_keys or s.admin_keys):
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.partition(" ")
        if scheme.lower() == "bearer" and token.strip() and is_admin(s, token.strip()):
            await self.app(scope, receive, send)
            return
        status, code, message = (
            (401, "unauthorized", "this path needs an admin API key: "
                                  "send `Authorization: Bearer ADMIN_KEY`")
            if not token.strip() else (403, "forbidden", "this path needs an admin API key")
        )
        body = orjson.dumps(error_body(status, code, message))
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": body})
