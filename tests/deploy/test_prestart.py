"""deploy/prestart.py as a real process: waits (tenacity) for a real Redis and for a Qdrant HTTP
endpoint, execs the command, and fails with a clear message when a backend never answers.

No Qdrant server can run here, so the Qdrant side is a loopback HTTP server that answers
``GET /collections`` the way Qdrant does and only starts listening after a delay (what a
starting Qdrant looks like to a client): qdrant-client's real HTTP client talks to it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from gateway_process import free_port

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "deploy"))
import prestart  # noqa: E402

pytestmark = pytest.mark.integration


class _QdrantLike(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        body = (
            {"title": "qdrant - vector search engine", "version": "1.20.0"}
            if self.path == "/"
            else {"result": {"collections": []}, "status": "ok", "time": 0.0}
        )
        raw = json.dumps(body).encode()
        self.send_response(200 if self.path in ("/", "/collections") else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class _Server:
    """A Qdrant-shaped endpoint on a reserved port, started on demand."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.srv: ThreadingHTTPServer | None = None

    def start(self) -> None:
        self.srv = ThreadingHTTPServer(("127.0.0.1", self.port), _QdrantLike)
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.srv is not None:
            self.srv.shutdown()
            self.srv.server_close()


@pytest.fixture
def late_qdrant() -> Iterator[_Server]:
    server = _Server()
    yield server
    server.stop()


def _run(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    return subprocess.run(
        [sys.executable, str(REPO / "deploy/prestart.py"), *args],
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_waits_for_qdrant_and_redis_then_execs(late_qdrant: _Server, redis_url: str) -> None:
    """Qdrant comes up only after prestart has failed once; prestart then goes on and execs."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    env = {**base, "LOOPGATE_QDRANT_URL": late_qdrant.url, "LOOPGATE_REDIS_URL": redis_url}
    cmd = [
        sys.executable,
        str(REPO / "deploy/prestart.py"),
        "--timeout",
        "60",
        "--interval",
        "0.3",
        "--",
        sys.executable,
        "-c",
        "print('command ran')",
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    lines = []
    try:
        for line in proc.stderr:  # tenacity logs each failed attempt ("Finished call …")
            lines.append(line)
            if "Finished call" in line:
                late_qdrant.start()
                break
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    log = "".join(lines) + err
    assert proc.returncode == 0, log
    assert out.strip().endswith("command ran")
    assert "waiting for Qdrant at" in log and f"Qdrant at {late_qdrant.url} answers" in log
    assert "answers" in log.split("waiting for Redis at")[1]


def test_nothing_to_wait_for_without_urls() -> None:
    res = _run({}, "--check-only")
    assert res.returncode == 0 and "waiting" not in res.stderr


def test_gives_up_with_a_clear_message() -> None:
    port = free_port()  # nothing listens there
    res = _run(
        {"LOOPGATE_REDIS_URL": f"redis://:hunter2@127.0.0.1:{port}/0"},
        "--timeout",
        "1",
        "--interval",
        "0.2",
        "--",
        "echo",
        "never",
    )
    assert res.returncode == 1
    assert f"Redis at redis://:***@127.0.0.1:{port}/0 did not answer within 1 s" in res.stderr
    assert (
        "ConnectionError" in res.stderr
        and "hunter2" not in res.stderr
        and "never" not in res.stdout
    )


def test_mask() -> None:
    assert prestart.mask("redis://user:pw@h:6379/0") == "redis://user:***@h:6379/0"
    assert prestart.mask("http://qdrant:6333") == "http://qdrant:6333"
