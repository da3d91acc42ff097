"""A test's Redis keys: listed and dropped by the key prefix the test gave them."""

from __future__ import annotations

import redis
import redis.asyncio


async def key_names(url: str, prefix: str) -> list[bytes]:
    """Every key under ``prefix``."""
    client = redis.asyncio.from_url(url, socket_timeout=1.0)
    try:
        return [k async for k in client.scan_iter(match=f"{prefix}*", count=500)]
    finally:
        await client.aclose()


async def drop_keys(url: str, prefix: str) -> None:
    """Delete every key under ``prefix``."""
    client = redis.asyncio.from_url(url, socket_timeout=1.0)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=500)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


def drop_keys_sync(url: str, prefix: str) -> None:
    """:func:`drop_keys` for a test without an event loop."""
    client = redis.Redis.from_url(url, socket_timeout=1.0)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=500))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
