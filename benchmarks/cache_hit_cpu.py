"""Process CPU per answer-cache hit of ``POST /v1/query``, in process: the ASGI app is called
directly (no socket, no uvicorn), so the figure is the app's own cost and holds on a loaded
machine, where wall-clock load tests (``benchmarks/load_gateway.py``) mostly measure the
scheduler. Prints CPU and wall microseconds per hit for three rounds. Not a test.

The data directory must hold the collection (e.g. case 12's documents)::

    export LOOPGATE_DATA_DIR=data-bench
    .venv/bin/loopgate ingest ../shared/cases/12-stale-index-and-cache/v1 --collection docs
    .venv/bin/python benchmarks/cache_hit_cpu.py --requests 2000 --redis redis://127.0.0.1:6379/15

The server-side state that a start-up warms in the background (the CC-CEDICT index) is waited
for before the first ask, and 300 hits warm the path (``--question`` in English on Chinese
documents: a hit whose question gets cross-language key terms); the access log is written
(INFO) to a file as ``loopgate serve`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import tempfile
import time
from typing import Any

import orjson


async def call(app: Any, body: bytes) -> dict[str, Any]:
    """One ``POST /v1/query`` through the whole ASGI stack; ``{"status", "body"}``."""
    out: dict[str, Any] = {"body": b""}
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/v1/query", "raw_path": b"/v1/query",
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 5),
             "server": ("127.0.0.1", 80), "state": {},
             "headers": [(b"host", b"bench"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}
    await app(scope, receive, send)
    return out


async def run(args: argparse.Namespace) -> None:
    from gateway.conversation import cedict
    from gateway.main import create_app

    access = logging.getLogger("loopgate.access")
    access.setLevel(logging.INFO)
    with tempfile.NamedTemporaryFile(prefix="lg-access-", suffix=".log") as log_file:
        access.addHandler(logging.FileHandler(log_file.name))
        body = orjson.dumps({"question": args.question, "collection": args.collection})
        app = create_app()
        async with app.router.lifespan_context(app):
            # before the first ask: a question in the other language than the documents gets
            # its key terms (and so its cache key) only once the index is there
            await asyncio.to_thread(cedict.wait_ready, 60)
            await call(app, body)
            again = await call(app, body)
            reply = orjson.loads(again["body"])
            assert reply.get("cached"), f"not a cache hit: {reply}"
            for _ in range(300):
                await call(app, body)
            rounds = []
            for _ in range(3):
                c0, t0 = time.process_time(), time.perf_counter()
                for _ in range(args.requests):
                    await call(app, body)
                n = args.requests
                rounds.append(((time.process_time() - c0) / n * 1e6,
                               (time.perf_counter() - t0) / n * 1e6))
    print(f"cache hit ({reply['route']['decision'].get('reason')}), {len(again['body'])} bytes, "
          f"load avg {os.getloadavg()[0]:.1f}: process CPU us/hit "
          f"{[round(c) for c, _ in rounds]}, wall us/hit {[round(w) for _, w in rounds]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=2000, help="hits per round (3 rounds)")
    ap.add_argument("--collection", default="docs")
    ap.add_argument("--question", default="标准配送要几天？")
    ap.add_argument("--redis", default="", help="answer cache in Redis (default: in-process)")
    args = ap.parse_args()
    if args.redis:
        os.environ["LOOPGATE_REDIS_URL"] = args.redis
        os.environ.setdefault("LOOPGATE_REDIS_KEY_PREFIX", f"lghitcpu:{os.getpid()}:")
    os.environ.setdefault("LOOPGATE_DEFAULT_COLLECTION", args.collection)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
