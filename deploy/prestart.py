"""Wait until the configured Qdrant server and Redis answer, then run the given command.

The container entrypoint (``deploy/Dockerfile``): ``python /app/prestart.py -- uvicorn …``.
Like the FastAPI template's ``backend_pre_start.py``, it retries with tenacity (fixed wait,
bounded total time, a log line per failed attempt) so the gateway does not start serving — or
an ingest job does not start writing — before its backends are up; Compose's ``depends_on``
and Kubernetes' start order do not guarantee that.

What is checked comes from LoopGate's own settings (``LOOPGATE_*`` environment, see docs/settings.md):

- ``LOOPGATE_QDRANT_URL`` set → qdrant-client ``get_collections()`` must succeed;
- ``LOOPGATE_REDIS_URL`` set → Redis ``PING`` must succeed.

Neither set (embedded engine, in-process cache) → nothing to wait for. When a backend is still
down after ``--timeout`` seconds the script exits with status 1 and says which one, at which
address (credentials masked), and the last error. ``--check-only`` checks without running a
command (an init container, or by hand).

Usage::

    python deploy/prestart.py [--timeout 120] [--interval 2] [--check-only] [-- CMD ARGS…]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from tenacity import (
    RetryError,
    after_log,
    before_log,
    retry,
    stop_after_delay,
    wait_fixed,
)

log = logging.getLogger("loopgate.prestart")


def mask(url: str) -> str:
    """The URL with any password replaced by ``***`` (for log lines)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = parts.username or ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}", parts.path, parts.query, parts.fragment))


def check_redis(url: str, timeout_s: float) -> None:
    """PING Redis at ``url``; raises on any failure."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    try:
        if not client.ping():
            raise RuntimeError("PING did not return PONG")
    finally:
        client.close()


def check_qdrant(url: str, api_key: str | None, timeout_s: float) -> None:
    """List collections on the Qdrant server at ``url``; raises on any failure."""
    from qdrant_client import QdrantClient

    client = QdrantClient(
        url=url, api_key=api_key, timeout=max(1, int(timeout_s)), check_compatibility=False
    )
    try:
        client.get_collections()
    finally:
        client.close()


def wait_for(name: str, check: Callable[[], None], timeout_s: float, interval_s: float) -> None:
    """Retry ``check`` every ``interval_s`` seconds until it passes or ``timeout_s`` elapses.

    :raises RetryError: still failing at the deadline (``last_attempt`` holds the error).
    """
    wrapped = retry(
        stop=stop_after_delay(timeout_s),
        wait=wait_fixed(interval_s),
        before=before_log(log, logging.DEBUG),
        after=after_log(log, logging.WARNING),
    )(check)
    wrapped()
    log.info("%s answers", name)


def checks_from_settings(probe_timeout_s: float) -> list[tuple[str, Callable[[], None]]]:
    """The (name, check) pairs the current LoopGate settings call for."""
    from gateway.settings import get_settings

    settings = get_settings()
    checks: list[tuple[str, Callable[[], None]]] = []
    if settings.qdrant_url:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        url = settings.qdrant_url
        checks.append((f"Qdrant at {mask(url)}", lambda: check_qdrant(url, key, probe_timeout_s)))
    if settings.redis_url:
        rurl = settings.redis_url
        checks.append((f"Redis at {mask(rurl)}", lambda: check_redis(rurl, probe_timeout_s)))
    return checks


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, wait for the backends, then exec the command (or return 0/1)."""
    argv = sys.argv[1:] if argv is None else argv
    command: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, command = argv[:i], argv[i + 1 :]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait per backend")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between attempts")
    parser.add_argument("--probe-timeout", type=float, default=3.0, help="seconds per attempt")
    parser.add_argument("--check-only", action="store_true", help="check, then exit 0/1")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s prestart %(levelname)s %(message)s")
    for name, check in checks_from_settings(args.probe_timeout):
        log.info("waiting for %s (up to %g s)", name, args.timeout)
        try:
            wait_for(name, check, args.timeout, args.interval)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            log.error(
                "%s did not answer within %g s: %s: %s",
                name,
                args.timeout,
                type(last).__name__,
                last,
            )
            return 1
    if args.check_only or not command:
        return 0
    log.info("starting: %s", " ".join(command))
    sys.stdout.flush()
    os.execvp(command[0], command)
    return 0  # pragma: no cover - execvp does not return


if __name__ == "__main__":
    sys.exit(main())
