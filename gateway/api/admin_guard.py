"""Admin-only paths (issue 20 item 6): with API keys configured (``LOOPGATE_API_KEYS`` or
``LOOPGATE_ADMIN_KEYS``), ``/metrics``, ``/docs``, ``/redoc``, ``/openapi.json``, ``/v1/stats``
(the dashboard's aggregate of every caller's traffic) and the dashboard page with its script,
style sheet and plotly.js (``/dashboard``, ``/dashboard/…``) answer only a request carrying an
admin key: ``Authorization: Bearer <admin key>``, or HTTP Basic with the admin key as the
password (any user name) — what a browser sends after its own sign-in prompt, which the
dashboard's 401 asks for (``WWW-Authenticate: Basic``); a Prometheus ``basic_auth`` scrape of
``/metrics`` works too (``/v1/stats`` also checks the caller's Bearer key: the API routes take
nothing else).
401 without a key, 403 with a non-admin key (on the dashboard 401 again, so the browser asks
again). These paths only read (GET), so a browser's cached
Basic credentials sent by another site's page cannot change anything, and the API routes that
write (``gateway.api.deps.principal_of``) take only a Bearer key. With no keys at all (loopback,
or ``--allow-anonymous``) everything stays open. A pure ASGI middleware: it adds no cost to
other paths.
"""

from __future__ import annotations

import base64
import binascii
import hmac

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.errors import error_body
from gateway.settings import Settings

__all__ = ["ADMIN_PATHS", "DASHBOARD_PREFIX", "AdminGuard", "admin_token", "is_admin"]

ADMIN_PATHS = frozenset({"/metrics", "/docs", "/docs/oauth2-redirect", "/redoc",
                         "/openapi.json", "/v1/stats"})
#: the dashboard page and everything under it are admin paths too
DASHBOARD_PREFIX = "/dashboard"
_BASIC_CHALLENGE = b'Basic realm="LoopGate admin", charset="UTF-8"'


def is_admin(settings: Settings, token: str) -> bool:
    """True when ``token`` is one of ``settings.admin_keys`` (constant-time comparison)."""
    return any(hmac.compare_digest(k.encode(), token.encode()) for k in settings.admin_keys)


def admin_token(header: str) -> str:
    """The key an ``Authorization`` header value carries: a Bearer token, or the password of
    HTTP Basic credentials (``base64(user:password)``); ``""`` when there is none or the
    header is malformed."""
    scheme, _, value = header.partition(" ")
    value = value.strip()
    if scheme.lower() == "bearer":
        return value
    if scheme.lower() == "basic" and value:
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return ""
        return decoded.partition(":")[2].strip()
    return ""


def _guarded(path: str) -> bool:
    return path in ADMIN_PATHS or path == DASHBOARD_PREFIX \
        or path.startswith(DASHBOARD_PREFIX + "/")


class AdminGuard:
    """ASGI middleware guarding :data:`ADMIN_PATHS` and the dashboard (module docstring).

    :param app: the wrapped ASGI app.
    :param settings: ``gateway.settings.Settings`` (``api_keys``, ``admin_keys``).
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an admin path without an admin key; pass everything else through."""
        s = self.settings
        path = scope.get("path", "").rstrip("/") or "/"
        if scope["type"] != "http" or not _guarded(path) or not (s.api_keys or s.admin_keys):
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
        token = admin_token(header)
        if token and is_admin(s, token):
            await self.app(scope, receive, send)
            return
        page = path.startswith(DASHBOARD_PREFIX)
        status, code, message = (
            (401, "unauthorized", "this path needs an admin API key: "
                                  "send `Authorization: Bearer ADMIN_KEY`")
            if not token else
            (401, "unauthorized", "this path needs an admin API key; that key is not one")
            if page else (403, "forbidden", "this path needs an admin API key")
        )
        body = orjson.dumps(error_body(status, code, message))
        challenge = _BASIC_CHALLENGE if page else b"Bearer"
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", challenge)]})
        await send({"type": "http.response.body", "body": body})
