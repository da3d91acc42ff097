"""What may leave the gateway in a response body: no absolute paths, host names or raw exception
text (issue 20 item 6).

:func:`scrub` rewrites a message: absolute file paths become their last component, URLs lose their
host (``redis://10.0.0.5:6379/0`` → ``redis://…``). :func:`public_error` turns an exception into
one line for a client: the gateway's and the corpus layer's own errors (whose messages are
written for users) are kept, scrubbed; anything else becomes its class name and a reference
to the server log.
"""

from __future__ import annotations

import re

__all__ = ["public_error", "scrub"]

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
