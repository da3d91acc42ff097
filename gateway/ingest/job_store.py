"""Durable records of ingest jobs (``gateway.ingest.jobs``): one JSON object per job.

:class:`FileJobStore` keeps each record as ``<data_dir>/jobs/<job_id>.json``, written to a
temporary file, fsynced, renamed over the old one and the folder fsynced, so a record on disk is
always whole (a kill -9 leaves the old or the new version, never a mix). :class:`JobStore` puts
records in Redis when ``redis_url`` is set (``<prefix>job:<id>`` strings and a ``<prefix>jobs``
sorted set by creation time) and falls back to the file store for a record Redis refuses;
:meth:`JobStore.load_all` merges both, the most recently updated version of a record winning.
Finished records beyond the newest ``keep`` are forgotten; queued and running ones never.
Also :func:`fsync_file` / :func:`fsync_dir` for the upload route.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

import redis

__all__ = ["FileJobStore", "JobStore", "fsync_dir", "fsync_file"]

log = logging.getLogger("loopgate.gateway")
_ACTIVE = ("queued", "running")


def fsync_file(path: Path) -> None:
    """Flush ``path``'s bytes to the disk. :raises OSError: the file cannot be opened."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Make ``path``'s entries (new, renamed, removed files) durable (no-op where unsupported)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _trim(records: list[dict[str, Any]], keep: int) -> list[str]:
    """Job ids of finished records beyond the newest ``keep``."""
    done = sorted((r for r in records if r.get("status") not in _ACTIVE),
                  key=lambda r: r.get("created_at", 0.0), reverse=True)
    return [r["job_id"] for r in done[keep:]]


class FileJobStore:
    """Job records as JSON files in ``folder`` (created on first write).

    :param folder: e.g. ``<data_dir>/jobs``.
    :param keep: finished records kept (older ones are deleted by :meth:`trim`).
    """

    def __init__(self, folder: Path, keep: int = 200) -> None:
        self.folder, self.keep = folder, keep

    def save(self, record: dict[str, Any]) -> None:
        """Write ``record`` (needs ``job_id``) durably. :raises OSError: the disk refuses."""
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / f"{record['job_id']}.json"
        tmp = self.folder / f"{record['job_id']}.{os.getpid()}.{threading.get_ident()}.tmp"
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(record, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        fsync_dir(self.folder)

    def load_all(self) -> list[dict[str, Any]]:
        """Every readable record (a torn or foreign file is skipped with a warning)."""
        out = []
        for path in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            try:
                rec = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                log.warning("job record %s unreadable (%s): skipped", path.name, exc)
                continue
            if isinstance(rec, dict) and rec.get("job_id") == path.stem:
                out.append(rec)
        return out

    def remove_torn(self) -> int:
        """Delete temporary files left by writes a crash cut short (start-up only); their count."""
        torn = list(self.folder.glob("*.tmp")) if self.folder.is_dir() else []
        for tmp in torn:
            tmp.unlink(missing_ok=True)
        return len(torn)

    def trim(self) -> None:
        """Delete finished records beyond the newest ``keep``."""
        for job_id in _trim(self.load_all(), self.keep):
            (self.folder / f"{job_id}.json").unlink(missing_ok=True)


class JobStore:
    """Job records in Redis (when ``redis_url`` is set) with the file store as fallback.

    :param folder: the file store's folder.
    :param redis_url: Redis URL or ``""``.
    :param prefix: Redis key prefix (``LOOPGATE_REDIS_KEY_PREFIX``).
    :param timeout_s: Redis socket timeout, seconds.
    """

    def __init__(self, folder: Path, redis_url: str = "", prefix: str = "loopgate:",
                 timeout_s: float = 2.0, keep: int = 200) -> None:
        self.files = FileJobStore(folder, keep)
        self.prefix, self.keep = prefix, keep
        self.redis: redis.Redis | None = None
        if redis_url:
            self.redis = redis.Redis.from_url(redis_url, socket_timeout=timeout_s,
                                              socket_connect_timeout=timeout_s)

    @property
    def backend(self) -> str:
        """``redis`` or ``file``."""
        return "redis" if self.redis is not None else "file"

    def save(self, record: dict[str, Any]) -> None:
        """Persist ``record`` (Redis, else the file store). :raises OSError: both refuse."""
        if self.redis is not None:
            try:
                pipe = self.redis.pipeline()
                pipe.set(f"{self.prefix}job:{record['job_id']}", json.dumps(record))
                pipe.zadd(f"{self.prefix}jobs", {record["job_id"]: record["created_at"]})
                pipe.execute()
                return
            except Exception as exc:  # noqa: BLE001 - the disk keeps it instead
                log.warning("job record %s kept on disk: Redis refused (%s)",
                            record["job_id"], type(exc).__name__)
        self.files.save(record)

    def load_all(self) -> list[dict[str, Any]]:
        """Every record from Redis and disk, the latest ``updated_at`` of each job winning."""
        merged = {r["job_id"]: r for r in self.files.load_all()}
        for rec in self._redis_records():
            old = merged.get(rec["job_id"])
            if old is None or rec.get("updated_at", 0) >= old.get("updated_at", 0):
                merged[rec["job_id"]] = rec
        return sorted(merged.values(), key=lambda r: r.get("created_at", 0.0))

    def _redis_records(self) -> list[dict[str, Any]]:
        if self.redis is None:
            return []
        try:
            ids = [i.decode() if isinstance(i, bytes) else str(i)
                   for i in self.redis.zrange(f"{self.prefix}jobs", 0, -1)]
            raw = self.redis.mget([f"{self.prefix}job:{i}" for i in ids]) if ids else []
        except Exception as exc:  # noqa: BLE001 - start with what the disk holds
            log.error("job records in Redis unreadable (%s): only those on disk resume",
                      type(exc).__name__)
            return []
        return [json.loads(r) for r in raw if r]

    def trim(self) -> None:
        """Forget finished records beyond the newest ``keep`` (best effort)."""
        self.files.trim()
        if self.redis is None:
            return
        try:
            for job_id in _trim(self._redis_records(), self.keep):
                self.redis.delete(f"{self.prefix}job:{job_id}")
                self.redis.zrem(f"{self.prefix}jobs", job_id)
        except Exception:  # noqa: BLE001
            pass
