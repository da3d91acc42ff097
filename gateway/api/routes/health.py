"""``GET /healthz`` (the process answers) and ``GET /readyz`` (Qdrant, Redis and LLM reachability).

Redis is ``ok`` when it answers PING and takes a write (a key ``{prefix}readyz`` living 60 s):
a Redis past its ``maxmemory`` with ``noeviction`` still answers PING but refuses every write
(``-OOM``), and is ``down`` with the reply's code and what it means, never the reply's text.

The LLM check reports the client's circuit breaker (``loop.llm_breaker``): while it is open or
half-open (the LLM failed ``llm_breaker_failures`` calls in a row) the LLM is ``down`` without
a network probe; when closed, ``GET {llm_base_url}/models`` answers. Its ``circuit`` field is
the breaker's state, consecutive failures, threshold, seconds to the next probe and how often
it opened (no error text). ``llm_budgets`` is the start-up speed probe's report
(``gateway.wiring.llm_budgets``): measured speeds, when, and the LLM call timeout, loop
deadline and request deadline in effect with where each came from (probe, default, set).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import redis.asyncio as aioredis
from fastapi import APIRouter
from redis.exceptions import BusyLoadingError, OutOfMemoryError, ReadOnlyError, ResponseError

from corpus.errors import StoreError
from gateway.api.deps import ComponentsDep
from gateway.api.responses import OrjsonResponse
from gateway.errors import is_lock_error
from gateway.wiring import Components

__all__ = ["probe_all", "router"]

router = APIRouter(tags=["health"])
#: one readiness check: its detail text (raises when the component is down)
Probe = Callable[[], Awaitable[str]]
log = logging.getLogger("loopgate.gateway")


async def _timed(name: str, probe: Probe, limit_s: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(limit_s):
            detail = await probe()
        status = "ok"
    except TimeoutError:
        status, detail = "down", f"no answer within {limit_s:g} s"
    except Exception as exc:  # noqa: BLE001 - a probe reports, never raises
        # no exception text: it names addresses and paths (issue 20 item 6); the log has it
        log.warning("readiness probe %s failed: %s: %s", name, type(exc).__name__, exc)
        status, detail = "down", _why(exc)
    return {"name": name, "status": status, "detail": detail,
            "ms": round((time.perf_counter() - t0) * 1000, 2)}


def _why(exc: BaseException) -> str:
    """A reason for a failed probe without the exception's text."""
    if is_lock_error(exc):
        return "the data directory is held by another LoopGate process"
    if isinstance(exc, StoreError):
        return "the chunk store is unavailable"
    if isinstance(exc, ResponseError):  # Redis is there and answers with an error reply
        return _redis_refusal(exc)
    return f"unreachable ({type(exc).__name__})"


# error replies redis-py turns into classes (dropping the code), and what they mean here
_REDIS_CODES = {OutOfMemoryError: "OOM", ReadOnlyError: "READONLY", BusyLoadingError: "LOADING"}
_REDIS_MEANING = {
    "OOM": "out of memory: maxmemory reached and its policy evicts nothing",
    "MISCONF": "writes stopped: it cannot save its snapshot to disk",
    "READONLY": "a read-only replica",
    "LOADING": "still loading its data set",
}


def _redis_refusal(exc: ResponseError) -> str:
    """``answers with errors (CODE: meaning)`` for a Redis error reply; only the reply's code
    word is shown (``OOM``, ``MISCONF``, ``READONLY`` …), never its text."""
    code = next((c for cls, c in _REDIS_CODES.items() if isinstance(exc, cls)), "")
    if not code:
        first = str(exc).split(" ", 1)[0]
        code = first if first.isalpha() and first.isupper() else type(exc).__name__
    meaning = _REDIS_MEANING.get(code, "error reply")
    return f"answers with errors ({code}: {meaning})"


async def probe_all(components: Components) -> dict[str, dict[str, Any]]:
    """Probe Qdrant (required), Redis and the LLM (optional: ``disabled`` when not configured)."""
    s = components.settings
    limit = s.timeout_health_s

    async def qdrant() -> str:
        if components.store is None:
            raise StoreError(components.store_error or "chunk store not opened")
        def probe() -> list[str]:
            names: list[str] = components.store.list_collections()
            for name in names[:20]:  # opens each shard: a locked one raises StoreError
                components.store.collection_meta(name)
            return names

        names = await asyncio.to_thread(probe)
        return f"{len(names)} collections ({'server' if s.qdrant_url else 'embedded'})"

    async def redis_() -> str:
        client = aioredis.from_url(s.redis_url, socket_timeout=limit, socket_connect_timeout=limit)
        try:
            await client.ping()
            # PING still answers on a Redis that refuses every write (past maxmemory with
            # noeviction: -OOM), where no answer, session or route record can be kept
            await client.set(f"{s.redis_key_prefix}readyz", "1", px=60_000)
        finally:
            await client.aclose()
        return "pong; writes accepted"

    async def llm() -> str:
        headers = {}
        if s.llm_api_key is not None:
            headers["Authorization"] = f"Bearer {s.llm_api_key.get_secret_value()}"
        async with httpx.AsyncClient(timeout=limit) as client:
            r = await client.get(s.llm_base_url.rstrip("/") + "/models", headers=headers)
        if r.status_code >= 500:
            raise RuntimeError(f"HTTP {r.status_code}")
        return f"HTTP {r.status_code}"

    checks = [_timed("qdrant", qdrant, limit)]
    checks.append(_timed("redis", redis_, limit) if s.redis_url else _disabled("redis"))
    checks.append(_llm_check(components, llm, limit) if s.llm_base_url else _disabled("llm"))
    results = await asyncio.gather(*checks)
    return {r["name"]: r for r in results}


async def _llm_check(components: Components, probe: Probe, limit_s: float) -> dict[str, Any]:
    """The LLM's check: ``down`` while its circuit breaker is not closed, else the probe."""
    breaker = getattr(components.llm, "breaker", None)
    if breaker is None:
        return await _timed("llm", probe, limit_s)
    snap = {k: v for k, v in breaker.snapshot().items() if k != "last_error"}
    if snap["state"] != "closed":
        when = (f"next probe in {snap['retry_in_s']:g} s" if snap["state"] == "open"
                else "the next LLM call is the probe")
        return {"name": "llm", "status": "down", "ms": 0.0, "circuit": snap,
                "detail": f"marked down after {snap['consecutive_failures']} consecutive failed "
                          f"calls (circuit {snap['state']}; {when}): extractive answers and "
                          "offline LoopAgent meanwhile"}
    return {**await _timed("llm", probe, limit_s), "circuit": snap}


async def _disabled(name: str) -> dict[str, Any]:
    what = {"redis": "no Redis configured: in-process cache and route log",
            "llm": "no LLM configured: extractive answers and offline LoopAgent policy"}[name]
    return {"name": name, "status": "disabled", "detail": what, "ms": 0.0}


@router.get("/healthz", response_class=OrjsonResponse)
async def healthz() -> OrjsonResponse:
    """Liveness: the process answers."""
    return OrjsonResponse({"status": "ok"})


@router.get("/readyz", response_class=OrjsonResponse)
async def readyz(components: ComponentsDep) -> OrjsonResponse:
    """Readiness: Qdrant must answer (503 otherwise); Redis and the LLM are reported."""
    checks = await probe_all(components)
    ready = checks["qdrant"]["status"] == "ok"
    degraded = [n for n, c in checks.items() if c["status"] == "down"]
    body: dict[str, Any] = {"status": "ready" if ready else "unavailable",
                            "degraded": degraded, "checks": checks}
    if components.llm_budgets is not None:  # the budgets in effect, measured or fixed
        body["llm_budgets"] = components.llm_budgets
    if components.embedding_mismatch:  # those collections answer 409 until re-ingested
        body["embedding_mismatch"] = components.embedding_mismatch
    if components.embedding_warnings:  # answered, dense search slightly off until re-ingested
        body["embedding_warnings"] = components.embedding_warnings
    return OrjsonResponse(body, status_code=200 if ready else 503)
