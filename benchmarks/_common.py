"""What several benchmarks (and the tests that start ``loopgate serve``) share: a free loopback
port, the nearest-rank percentile, waiting for a gateway's ``/healthz``, stopping a child
process, a process's resident memory.

Benchmarks run as scripts import it as ``_common`` (their folder is ``sys.path[0]``); tests
import it as ``benchmarks._common``."""

from __future__ import annotations

import math
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

__all__ = ["free_port", "percentile", "rss_mb", "stop_process", "wait_healthy"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on (the OS's pick)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile, ``q`` in 0..1: ``sorted(values)[round(q * (n - 1))]``; NaN when
    there are no values."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))] if s else math.nan


def wait_healthy(base: str, proc: subprocess.Popen[Any] | None = None,
                 timeout_s: float = 120, poll_s: float = 0.2) -> bool:
    """Poll ``<base>/healthz`` until it answers 200: ``True``; ``False`` when ``proc`` has
    exited or ``timeout_s`` has passed first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(poll_s)
    return False


def stop_process(proc: subprocess.Popen[Any], timeout_s: float = 20) -> int:
    """SIGTERM, then SIGKILL when it is still running after ``timeout_s``; its exit code."""
    proc.terminate()
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (``VmRSS``); 0.0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0
