"""``gateway.conversation.store.SessionStore`` across a real Redis outage: a real redis-server
on a free loopback port, shut down (its data saved) and started again from its snapshot."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
import redis.asyncio as aioredis
import redis.exceptions

from gateway.conversation.memory import SessionMemory
from gateway.conversation.store import SessionStore, session_key
from gateway.redis_support import CircuitBreaker, open_redis

pytestmark = pytest.mark.integration


async def _start(port: int, folder: Path) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--appendonly", "no",
        "--save", "", "--dir", str(folder), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    admin = aioredis.from_url(f"redis://127.0.0.1:{port}/0")
    try:
        for _ in range(200):
            try:
                await admin.ping()
                return proc
            except Exception:  # noqa: BLE001 - not listening yet
                await asyncio.sleep(0.05)
        raise AssertionError("redis-server did not start")
    finally:
        await admin.aclose()


async def test_a_session_deleted_while_redis_is_down_stays_deleted(tmp_path: Path) -> None:
    """DELETE with Redis down forgets the session in process at once (no error), and its Redis
    copy is deleted when Redis answers again instead of coming back (before, ``delete`` raised
    RedisUnavailableError and the API answered 503)."""
    if shutil.which("redis-server") is None:
        pytest.skip("no redis-server on PATH")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    proc = await _start(port, tmp_path)
    store = SessionStore(open_redis(url, timeout_s=0.5), ttl_s=600, key_prefix="t:",
                         breaker=CircuitBreaker(0.2))
    try:
        mem = SessionMemory("s1", collection="docs")
        mem.add_turn("What is the return period?", None, "Seven days.", True, [])
        assert await store.save("caller", mem)
        admin = aioredis.from_url(url)
        with contextlib.suppress(redis.exceptions.ConnectionError):  # it hangs up
            await admin.execute_command("SHUTDOWN", "SAVE")  # down, its data on disk
        await admin.aclose()
        await asyncio.wait_for(proc.wait(), 10)

        loaded = await store.load("caller", "s1")  # the queries' view: nothing in process
        assert loaded.local and loaded.memory is None
        done = await store.delete("caller", "s1")
        assert done.local and not done.existed
        assert await store.ttl("caller", "s1") is None  # no exception either

        proc = await _start(port, tmp_path)  # back, with the session from its snapshot
        admin = aioredis.from_url(url)
        key = session_key("t:", "caller", "s1")
        assert await admin.exists(key) == 1
        await asyncio.sleep(0.3)  # the breaker lets the next call through
        loaded = await store.load("caller", "s1")
        assert not loaded.local and loaded.memory is None
        assert await admin.exists(key) == 0  # its Redis copy is gone too
        # a new conversation under the same id is kept as usual
        again = SessionMemory("s1", collection="docs")
        assert await store.save("caller", again)
        assert (await store.load("caller", "s1")).memory is not None
        await admin.aclose()
    finally:
        await store.aclose()
        if proc.returncode is None:
            proc.terminate()
            await asyncio.wait_for(proc.wait(), 10)
