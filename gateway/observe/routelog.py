"""Route log: one :class:`RouteRecord` per request, in a capped Redis stream or a ring buffer.

- :class:`RedisRouteLog` appends with ``XADD <prefix>routes MAXLEN ~ N`` (approximate trimming,
  O(1) amortised) and reads newest first with ``XREVRANGE``; when Redis is down it keeps the
  records in a local ring buffer (flag ``available`` False) so this replica's dashboard still
  shows them, and tries Redis again after the breaker's delay. Appends are *write-behind*: a
  request only queues its record; one background task sends the queue every ``flush_s``
  (default 20 ms) as one pipeline of ``XADD`` commands, so a request costs no Redis round trip
  of its own (a cache hit's second round trip was ~20 % of its CPU time). Reads flush first;
  a crash loses at most the records of the last ``flush_s``.
- :class:`MemoryRouteLog` is the ring buffer alone (no Redis configured).

Every read of the log (:meth:`RouteLog.recent`, :meth:`RouteLog.get`) first runs its
:meth:`RouteLog.on_read` hooks, so records queued by :class:`gateway.observe.RouteRecorder`
(:mod:`gateway.observe.recorder`, the router's sink) reach it before it is read.

Queries: :class:`gateway.observe.route_query.RouteQuery`.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections import deque
from collections.abc import Callable

import redis.asyncio
import redis.exceptions

from gateway.errors import BadRequest
from gateway.observe.route_query import RouteQuery, select
from gateway.redis_support import CircuitBreaker, RedisUnavailableError, call_redis, open_redis
from gateway.routing import RouteRecord
from gateway.settings import Settings

__all__ = [
    "MemoryRouteLog",
    "RedisRouteLog",
    "RouteLog",
    "RouteQuery",
    "RouteRecord",
    "build_route_log",
]

log = logging.getLogger("loopgate.gateway")

#: Largest stream id time Redis accepts (milliseconds, an unsigned 64-bit number).
_MAX_STREAM_MS = 2**64 - 1


def stream_low(since: float | None) -> str | None:
    """The ``XREVRANGE`` lower bound for records newer than ``since`` (Unix seconds): ``-``
    for none, before the epoch or ``-inf``; None when nothing can be that new (past the
    largest stream id, ``inf``). Never an id Redis refuses (a negative one, ``ERR Invalid
    stream ID``)."""
    if since is None or math.isnan(since) or since <= 0:
        return "-"
    ms = since * 1000
    if not math.isfinite(ms) or ms > _MAX_STREAM_MS:
        return None
    return f"{int(ms)}-0"


class RouteLog:
    """Base: a ring buffer of records (also the Redis log's fallback while Redis is down)."""

    backend = "memory"

    def __init__(self, max_records: int) -> None:
        if max_records < 1:
            raise ValueError("max_records must be >= 1")
        self.max_records = max_records
        self._ring: deque[RouteRecord] = deque(maxlen=max_records)
        self._before_read: list[Callable[[], object]] = []

    @property
    def available(self) -> bool:
        """False while the shared store is unreachable (records kept locally meanwhile)."""
        return True

    def on_read(self, hook: Callable[[], object]) -> None:
        """Call ``hook`` before every read (:class:`RouteRecorder` records its queue)."""
        self._before_read.append(hook)

    def settle(self) -> None:
        """Run the :meth:`on_read` hooks: records queued elsewhere reach this log."""
        for hook in self._before_read:
            hook()

    def append_nowait(self, record: RouteRecord) -> None:
        """Add one record (oldest dropped beyond ``max_records``); no I/O, never waits."""
        self._ring.append(record)

    async def append(self, record: RouteRecord) -> None:
        """Add one record (:meth:`append_nowait`)."""
        self.append_nowait(record)

    async def recent(self, query: RouteQuery | None = None) -> list[RouteRecord]:
        """Matching records, newest first, at most ``query.limit``."""
        self.settle()
        return select(reversed(self._ring), query or RouteQuery())

    async def get(self, trace_id: str) -> RouteRecord | None:
        """The record with ``trace_id`` among the kept ones, or None."""
        self.settle()
        return next((r for r in reversed(self._ring) if r.trace_id == trace_id), None)

    async def aclose(self) -> None:
        """Release connections (none for the ring buffer)."""


class MemoryRouteLog(RouteLog):
    """In-process ring buffer of the last ``max_records`` route records (no Redis)."""


class RedisRouteLog(RouteLog):
    """Route records in the capped Redis stream ``key`` (``XADD … MAXLEN ~ max_records``).

    Usage example::

        log = RedisRouteLog(open_redis("redis://127.0.0.1:6379/0", timeout_s=0.5))
        await log.append(RouteRecord.from_dict(record))
        low = await log.recent(RouteQuery(max_confidence=0.5, limit=20))
    """

    backend = "redis"
    _PAGE = 500

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        key: str = "loopgate:routes",
        max_records: int = 10000,
        breaker: CircuitBreaker | None = None,
        flush_s: float = 0.02,
    ) -> None:
        super().__init__(max_records)
        self.client = client
        self.key = key
        self.breaker = breaker or CircuitBreaker(15.0)
        self.flush_s = flush_s
        self._pending: list[RouteRecord] = []
        self._flusher: asyncio.Task[None] | None = None

    @property
    def available(self) -> bool:
        """False while the breaker is open."""
        return self.breaker.state != "open"

    def append_nowait(self, record: RouteRecord) -> None:
        """Queue ``record`` for the next pipelined ``XADD`` batch (sent within ``flush_s``;
        needs a running event loop)."""
        self._pending.append(record)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_soon())

    async def _flush_soon(self) -> None:
        await asyncio.sleep(self.flush_s)
        await self.flush()

    async def flush(self) -> int:
        """Send every queued record in one pipeline; returns how many went to Redis. On a Redis
        failure the batch goes to the local ring buffer instead (never raises)."""
        batch, self._pending = self._pending, []
        if not batch:
            return 0
        payloads = [r.to_json() for r in batch]

        async def send() -> None:
            pipe = self.client.pipeline(transaction=False)
            for data in payloads:
                pipe.xadd(self.key, {"r": data}, maxlen=self.max_records, approximate=True)
            await pipe.execute()

        try:
            await call_redis(self.breaker, "route_log", send)
        except RedisUnavailableError as exc:
            if exc.__cause__ is not None:  # a real failure, not the open breaker: say it once
                log.warning("route log kept locally until Redis answers: %s", exc)
            for record in batch:
                super().append_nowait(record)
            return 0
        return len(batch)

    async def recent(self, query: RouteQuery | None = None) -> list[RouteRecord]:
        """``XREVRANGE`` pages (newest first) filtered by ``query``; the local buffer while
        Redis is down. Queued records are sent first."""
        query = query or RouteQuery()
        self.settle()
        await self.flush()

        async def scan() -> list[RouteRecord] | redis.exceptions.ResponseError:
            try:
                return await self._scan(query)
            except redis.exceptions.ResponseError as exc:
                if type(exc) is not redis.exceptions.ResponseError:
                    raise  # READONLY, OOM, NOPERM …: the server's state, not the query
                return exc  # Redis answered: the query was refused, Redis is not down

        try:
            found = await call_redis(self.breaker, "route_log", scan)
        except RedisUnavailableError:
            return await super().recent(query)
        if isinstance(found, redis.exceptions.ResponseError):
            log.warning("route log query refused by Redis (not an outage): %s", found)
            raise BadRequest(f"the route log query was refused: {found}")
        return found

    async def _scan(self, query: RouteQuery) -> list[RouteRecord]:
        # Stream ids are append times (request end) >= the record's ``ts`` (request start), so
        # ``since`` bounds the scan safely; ``until`` is checked on ``ts`` only.
        low = stream_low(query.since)
        if low is None:
            return []
        high = "+"
        out: list[RouteRecord] = []
        scanned = 0
        while scanned < self.max_records * 2:
            page = await self.client.xrevrange(self.key, max=high, min=low, count=self._PAGE)
            if not page:
                break
            scanned += len(page)
            for _id, fields in page:
                raw = (fields or {}).get(b"r") or (fields or {}).get("r")
                if not raw:
                    continue  # an entry this code did not write
                rec = RouteRecord.from_json(raw)
                if query.matches(rec):
                    out.append(rec)
                    if len(out) >= query.limit:
                        return out
            last = page[-1][0]
            high = "(" + (last.decode() if isinstance(last, bytes) else str(last))
            if len(page) < self._PAGE:
                break
        return out

    async def get(self, trace_id: str) -> RouteRecord | None:
        """Scan the stream for ``trace_id`` (newest first); None when not kept."""
        for r in await self.recent(RouteQuery(limit=min(self.max_records, 10000))):
            if r.trace_id == trace_id:
                return r
        return None

    async def aclose(self) -> None:
        """Send queued records, then close the client's connection pool."""
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()
        self.settle()
        await self.flush()
        await self.client.aclose()


def build_route_log(
    settings: Settings,
    client: redis.asyncio.Redis | None = None,
    breaker: CircuitBreaker | None = None,
) -> RouteLog:
    """The log the settings ask for: a Redis stream when ``redis_url`` (or ``client``) is given,
    else the in-process ring buffer of ``routelog_max_records``."""
    if client is None and not settings.redis_url:
        return MemoryRouteLog(settings.routelog_max_records)
    if client is None:
        client = open_redis(settings.redis_url, timeout_s=settings.timeout_cache_s)
    return RedisRouteLog(
        client,
        key=f"{settings.redis_key_prefix}routes",
        max_records=settings.routelog_max_records,
        breaker=breaker or CircuitBreaker(settings.redis_retry_s),
    )
