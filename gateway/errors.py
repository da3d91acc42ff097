"""Errors of the gateway, and the one place where any LoopGate error becomes an HTTP response.

Hierarchy (``LoopGateError`` is defined in ``corpus.errors``)::

    LoopGateError
     └── GatewayError                 status 500, code ``internal``
          ├── BadRequest              400 ``bad_request``: empty question, bad mode, bad filter …
          ├── Unauthorized            401 ``unauthorized``: missing or unknown API key
          ├── Forbidden               403 ``forbidden``: the key may not use that collection
          ├── NotFound                404 ``not_found``: unknown collection, document or job
          ├── Conflict                409 ``conflict``: a collection embedded with another model
          ├── PayloadTooLarge         413 ``too_large``: request body or upload over the limit
          ├── UnsupportedType         415 ``unsupported_type``: upload of a type we cannot parse
          └── ServiceUnavailable      503 ``unavailable``: Qdrant down for a RAG-only request,
               └── DataDirLocked            503 ``data_dir_locked``: another process (``loopgate
                                            serve``) holds the embedded Qdrant shard

Library errors are mapped too (:func:`status_of`): ``corpus.errors.ParseError`` → 422 with its
``code``; ``corpus.errors.StoreError`` → 503; ``rag.errors.CollectionMismatchError`` → 409; any
other ``LoopGateError`` → 500. Every error body has one shape, compatible with OpenAI clients::

    {"error": {"code": "bad_request", "message": "question is empty",
               "type": "invalid_request_error"}}

(:func:`validation_message` writes one line from pydantic's errors: ``field: problem``, the
field named once.)

:func:`gateway.api.error_handlers.install_error_handlers` registers the handlers on a FastAPI
app; this module imports no web framework.

What may leave the gateway in a response body (issue 20 item 6): :func:`scrub` rewrites a message
(absolute file paths become their last component, URLs lose their host: ``redis://10.0.0.5:6379/0``
→ ``redis://…``); :func:`public_error` turns an exception into one line for a client: the
gateway's and the corpus layer's own errors (whose messages are written for users) are kept,
scrubbed; anything else becomes its class name and a reference to the server log.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from corpus.errors import LoopGateError, ParseError, StoreError
from rag.errors import CollectionMismatchError

__all__ = [
    "BadRequest",
    "Conflict",
    "DataDirLocked",
    "Forbidden",
    "GatewayError",
    "NotFound",
    "PayloadTooLarge",
    "ServiceUnavailable",
    "Unauthorized",
    "UnsupportedType",
    "client_message",
    "error_body",
    "is_lock_error",
    "public_error",
    "scrub",
    "status_of",
    "validation_message",
]

log = logging.getLogger("loopgate.gateway")


class GatewayError(LoopGateError):
    """A gateway failure with an HTTP status and a stable error ``code``; a subclass names its
    own in the class statement (``class NotFound(GatewayError, status=404, code="not_found")``).

    :param message: shown to the client as ``error.message``.
    :param detail: optional extra JSON-safe fields added to the error body.
    """

    status = 500
    code = "internal"

    def __init_subclass__(cls, *, status: int | None = None, code: str | None = None) -> None:
        super().__init_subclass__()
        if status is not None:
            cls.status = status
        if code is not None:
            cls.code = code

    def __init__(self, message: str, **detail: Any) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class BadRequest(GatewayError, status=400, code="bad_request"):
    """The request is malformed or names a value we do not accept."""


class Unauthorized(GatewayError, status=401, code="unauthorized"):
    """No API key, or one we do not know."""


class Forbidden(GatewayError, status=403, code="forbidden"):
    """The API key is valid but may not use the collection asked for."""


class NotFound(GatewayError, status=404, code="not_found"):
    """Unknown collection, document or ingest job."""


class Conflict(GatewayError, status=409, code="conflict"):
    """The request conflicts with the state of a resource (a collection embedded with another
    model than the configured one)."""


class PayloadTooLarge(GatewayError, status=413, code="too_large"):
    """Request body or uploaded file over its size limit."""


class UnsupportedType(GatewayError, status=415, code="unsupported_type"):
    """Uploaded file of a type LoopGate cannot parse."""


class ServiceUnavailable(GatewayError, status=503, code="unavailable"):
    """A backend the request needs is down (Qdrant for a RAG-only request …)."""


class DataDirLocked(ServiceUnavailable, code="data_dir_locked"):
    """The embedded Qdrant shard is held by another process (a running ``loopgate serve``)."""


def is_lock_error(exc: BaseException) -> bool:
    """True when a store error says the embedded shard is held by another process."""
    text = str(exc).lower()
    return any(s in text for s in ("wouldblock", "would block", "held by another", "locked"))


def status_of(exc: BaseException) -> tuple[int, str]:
    """HTTP status and error code for any exception (the single mapping table)."""
    if isinstance(exc, GatewayError):
        return exc.status, exc.code
    if isinstance(exc, ParseError):
        return 422, exc.code
    if isinstance(exc, ValidationError):
        return 400, "bad_request"
    if isinstance(exc, StoreError):
        return 503, "data_dir_locked" if is_lock_error(exc) else "store_unavailable"
    if isinstance(exc, CollectionMismatchError):
        return 409, "collection_mismatch"
    return 500, "internal"


def validation_message(errors: Iterable[Mapping[str, Any]]) -> str:
    """One line from pydantic / FastAPI validation errors: ``field: problem; …`` (first five).
    A validator's own text that already names its field is not prefixed again (``question is
    empty``, not ``question: question is empty``)."""
    parts = []
    for err in list(errors)[:5]:
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        where = ".".join(loc)
        msg = str(err.get("msg", "invalid"))
        if err.get("type") == "value_error":  # a validator's own text, without pydantic's prefix
            msg = msg.removeprefix("Value error, ")
            if loc and re.match(rf"{re.escape(loc[-1])}\b", msg, re.IGNORECASE):
                where = ""
        if "Expected UploadFile" in msg:  # a multipart part sent as a text field, no file name
            msg = "expected a file (a multipart part with a file name), got a text field"
        if err.get("type") == "json_invalid":  # loc = ("body", offset of the decode error)
            at = [p for p in err.get("loc", ()) if isinstance(p, int)]
            msg = "the body is not valid JSON" + (f" (at character {at[0]})" if at else "")
            where = ""
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts) or "invalid request"


def client_message(exc: BaseException) -> str:
    """The message a client may see for ``exc`` (stream error events): the error's own message,
    scrubbed of paths and hosts; a generic line for an unexpected (500) error."""
    status, code = status_of(exc)
    if code == "internal":
        return "internal error (see the gateway log)"
    return scrub(getattr(exc, "message", None) or str(exc) or type(exc).__name__)


def error_body(status: int, code: str, message: str, **detail: Any) -> dict[str, Any]:
    """The JSON error body (OpenAI-compatible ``{"error": {...}}`` shape)."""
    kind = "invalid_request_error" if 400 <= status < 500 else "server_error"
    return {"error": {"code": code, "message": message, "type": kind, **detail}}


_URL = re.compile(r"\b([a-z][a-z0-9+.-]*)://[^\s'\"<>]+", re.I)
_PATH = re.compile(r"(?<![\w.:/~-])(?:[A-Za-z]:\\|~?/)(?:[^\s'\"<>:/\\]+[/\\])+([^\s'\"<>:/\\]*)")
_HOSTPORT = re.compile(r"\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|\[[0-9a-f:]+\])(?::\d+)?\b", re.I)
_PUBLIC_MODULES = ("gateway.", "corpus.", "rag.", "loop.")


def scrub(text: str) -> str:
    """``text`` without absolute paths (kept: the last component), URL hosts or IP:port pairs."""
    text = _URL.sub(lambda m: f"{m.group(1)}://…", text)
    text = _PATH.sub(lambda m: m.group(1) or "…", text)
    return _HOSTPORT.sub("…", text)


def public_error(exc: BaseException) -> str:
    """One line about ``exc`` fit for a response body (see module docstring)."""
    mod = type(exc).__module__ or ""
    if mod.startswith(_PUBLIC_MODULES):
        return scrub(f"{type(exc).__name__}: {exc}")
    if isinstance(exc, TimeoutError):
        return "timed out"
    return f"internal error ({type(exc).__name__}; details in the server log)"
