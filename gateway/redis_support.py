"""Redis connection and the circuit breaker shared by the answer cache and the route log.

A Redis that does not answer must never make requests hang: the client gets short socket and
connect timeouts (``LOOPGATE_TIMEOUT_CACHE_S``) and no automatic retries, and a
:class:`CircuitBreaker` opens on the first failure, so for ``LOOPGATE_REDIS_RETRY_S`` seconds
every cache / route-log call fails at once with :class:`RedisUnavailableError` (the caller serves
without cache and flags the route record). After that delay one call is let through as a probe
(half-open); its success closes the breaker, its failure opens it again. This is the classic
circuit-breaker pattern (M. Nygard, *Release It!*, ch. 5), small enough not to need a library.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

import redis.asyncio
import redis.exceptions
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from gateway.errors import ServiceUnavailable

__all__ = ["CircuitBreaker", "RedisUnavailableError", "call_redis", "open_redis"]

T = TypeVar("T")
BreakerState = Literal["closed", "open", "half_open"]


class RedisUnavailableError(ServiceUnavailable):
    """Redis did not answer (or the breaker is open); ``retry_after_s`` says when it is tried again.

    :param backend: ``"cache"`` or ``"route_log"``.
    :param retry_after_s: seconds until the next attempt is allowed (0 = now).
    """

    code = "redis_unavailable"

    def __init__(self, message: str, *, backend: str, retry_after_s: float) -> None:
        super().__init__(message, backend=backend, retry_after_s=round(retry_after_s, 3))
        self.backend = backend
        self.retry_after_s = retry_after_s


class CircuitBreaker:
    """Open after ``failure_threshold`` consecutive failures, probe again after ``retry_after_s``.

    Usage example::

        breaker = CircuitBreaker(retry_after_s=15)
        if breaker.allow():
            try:
                await client.ping()
                breaker.record_success()
            except OSError:
                breaker.record_failure()

    :param retry_after_s: seconds the breaker stays open; > 0.
    :param failure_threshold: consecutive failures that open it; >= 1.
    :param clock: monotonic clock in seconds (injectable for tests).
    """

    def __init__(
        self,
        retry_after_s: float,
        *,
        failure_threshold: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if retry_after_s <= 0 or failure_threshold < 1:
            raise ValueError("retry_after_s must be > 0 and failure_threshold >= 1")
        self.retry_after_s = retry_after_s
        self.failure_threshold = failure_threshold
        self._clock = clock
        self._failures = 0
        self._opened_at: float | None = None
        self._probing = False
        self.last_error = ""

    @property
    def state(self) -> BreakerState:
        """``closed`` (normal), ``open`` (failing fast) or ``half_open`` (probe allowed)."""
        if self._opened_at is None:
            return "closed"
        return "half_open" if self.retry_in() == 0 else "open"

    def retry_in(self) -> float:
        """Seconds until the next attempt is allowed (0 when closed or due)."""
        if self._opened_at is None:
            return 0.0
        return max(0.0, self._opened_at + self.retry_after_s - self._clock())

    def allow(self) -> bool:
        """True when a call may go to Redis now (closed, or the single half-open probe)."""
        if self._opened_at is None:
            return True
        if self.retry_in() > 0 or self._probing:
            return False
        self._probing = True
        return True

    def record_success(self) -> None:
        """A call succeeded: close the breaker."""
        self._failures = 0
        self._opened_at = None
        self._probing = False
        self.last_error = ""

    def record_failure(self, error: str = "") -> None:
        """A call failed: count it, and open (or re-open) the breaker at the threshold."""
        self._failures += 1
        self._probing = False
        self.last_error = error
        if self._failures >= self.failure_threshold:
            self._opened_at = self._clock()


async def call_redis(breaker: CircuitBreaker, backend: str, call: Callable[[], Awaitable[T]]) -> T:
    """Run one Redis call under ``breaker``; translate Redis/socket errors (any
    ``redis.exceptions.RedisError``: unreachable, slow, or answering with an error).

    :raises RedisUnavailableError: when the breaker is open or the call fails (original error
        chained with ``from``).
    """
    if not breaker.allow():
        raise RedisUnavailableError(
            f"Redis unavailable for the {backend} ({breaker.last_error or 'breaker open'})",
            backend=backend,
            retry_after_s=breaker.retry_in(),
        )
    try:
        result = await call()
    except (
        # RedisError: every error redis-py raises, the server's replies included (OOM past
        # maxmemory, READONLY on a replica, a protocol error from something that is not Redis)
        redis.exceptions.RedisError,
        OSError,
        TimeoutError,
    ) as exc:
        breaker.record_failure(f"{type(exc).__name__}: {exc}")
        raise RedisUnavailableError(
            f"Redis unavailable for the {backend}: {type(exc).__name__}: {exc}",
            backend=backend,
            retry_after_s=breaker.retry_in(),
        ) from exc
    breaker.record_success()
    return result


def open_redis(url: str, *, timeout_s: float) -> redis.asyncio.Redis:
    """A redis-py asyncio client for ``url`` with short timeouts and no automatic retries.

    Nothing is sent until the first command (connections are lazy).

    :param url: ``redis://host:port/db`` (``rediss://`` for TLS, ``unix://`` for a socket).
    :param timeout_s: socket connect and read timeout, seconds (> 0).
    :raises ValueError: on an unparseable URL.
    """
    return redis.asyncio.from_url(
        url,
        socket_timeout=timeout_s,
        socket_connect_timeout=timeout_s,
        retry=Retry(NoBackoff(), 0),
        decode_responses=False,
    )
