"""The one place where any exception becomes an HTTP response (STYLE.md §5): handlers for
LoopGate errors (status and code from :func:`gateway.errors.status_of`), request validation
errors and Starlette's HTTP errors, every body in the one shape of
:func:`gateway.errors.error_body`.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect, Request

from corpus.errors import LoopGateError
from gateway.api.responses import OrjsonResponse as ORJSONResponse
from gateway.errors import error_body, scrub, status_of, validation_message

__all__ = ["install_error_handlers"]

log = logging.getLogger("loopgate.gateway")


def install_error_handlers(app: FastAPI) -> None:
    """Register handlers mapping LoopGate, validation and unexpected errors to JSON responses."""
    async def _loopgate(request: Request, exc: Exception) -> ORJSONResponse:
        status, code = status_of(exc)
        message = getattr(exc, "message", None) or str(exc) or exc.__class__.__name__
        if isinstance(exc, ValidationError):  # one readable line, never pydantic's dump
            message = validation_message(exc.errors())
        if status >= 500 and code == "internal":
            log.exception("internal error on %s", request.url.path, exc_info=exc)
            message = "internal error (see the gateway log)"
        elif code == "data_dir_locked" and "held by another" not in message:
            message = (
                f"{message} — the embedded Qdrant data directory is held by another process "
                "(a running `loopgate serve`?); use its HTTP API or stop it"
            )
        message = scrub(message)  # no absolute path, host or address leaves (issue 20 item 6)
        detail = getattr(exc, "detail", None) or {}
        return ORJSONResponse(error_body(status, code, message, **detail), status_code=status)

    async def _validation(request: Request, exc: Exception) -> ORJSONResponse:
        message = validation_message(getattr(exc, "errors", list)())
        return ORJSONResponse(error_body(400, "bad_request", message), status_code=400)

    async def _http(request: Request, exc: Exception) -> ORJSONResponse:
        cause = exc.__cause__  # FastAPI wraps errors raised while reading a form body in a 400
        while cause is not None:
            if isinstance(cause, LoopGateError):  # e.g. a chunked upload over the limit → 413
                return await _loopgate(request, cause)
            cause = cause.__cause__
        status = getattr(exc, "status_code", 500)
        code = {404: "not_found", 405: "method_not_allowed"}.get(status, "http_error")
        message = str(getattr(exc, "detail", "")) or "error"
        # the exception's headers go along: a 405 names the methods allowed (``Allow``)
        return ORJSONResponse(error_body(status, code, message), status_code=status,
                              headers=getattr(exc, "headers", None))

    async def _disconnect(request: Request, exc: Exception) -> ORJSONResponse:
        # the client went away while sending its body (a break-it trial: logged as a 500 with
        # two tracebacks on /v1/query): nobody reads this answer; no error worth a traceback
        log.info("client disconnected before its request body was complete on %s",
                 request.url.path)
        return ORJSONResponse(error_body(400, "client_disconnected", "the client disconnected "
                                         "before the request body was complete"),
                              status_code=400)

    app.add_exception_handler(ClientDisconnect, _disconnect)
    app.add_exception_handler(LoopGateError, _loopgate)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(Exception, _loopgate)
