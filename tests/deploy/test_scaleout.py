"""Scale-out: two gateway processes — each started with the image's exact ENTRYPOINT + CMD on a
loopback port — behind one real Redis share the answer cache and the route log.

What this does and does not exercise (no Qdrant server can run on this machine):

- each process holds the *same document* in its *own* embedded Qdrant shard (qdrant-edge-py is
  single-process, and qdrant-client's local mode is single-process too, so two processes cannot
  open one data directory); identical ingests give identical corpus versions, which is what the
  cache key includes — with a real Qdrant server both replicas would read one collection;
- the answer cache and the route log are really shared: process B answers from the entry
  process A stored, and B's ``/v1/routes`` lists A's route record;
- the Qdrant *server* code path (qdrant-client) is exercised in-process elsewhere
  (tests/gateway/test_migration_existing_collection.py, tests/corpus), not across processes.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from subprocess import Popen

import dockerfile
import httpx
import pytest
from gateway_process import REPO, free_port, start_gateway, stop_gateway, wait_healthy

pytestmark = pytest.mark.integration

DOC = """# Pump X200 service manual

## Warranty

The Pump X200 is covered by a warranty of 24 months from the date of delivery.
Wear parts such as the mechanical seal are not covered.

## Maintenance

Replace the mechanical seal every 8000 operating hours.
"""


@pytest.fixture
def two_gateways(tmp_path: Path, redis_url: str) -> Iterator[list[tuple[str, Popen[bytes], Path]]]:
    prefix = f"lgtest:{uuid.uuid4().hex[:12]}:"
    procs: list[tuple[str, Popen[bytes], Path]] = []
    try:
        for name in ("a", "b"):
            port = free_port()
            log = tmp_path / f"{name}.log"
            env = {
                "LOOPGATE_DATA_DIR": str(tmp_path / name),
                "LOOPGATE_REDIS_URL": redis_url,
                "LOOPGATE_REDIS_KEY_PREFIX": prefix,
                "LOOPGATE_DEFAULT_COLLECTION": "manuals",
                # an answer with a timed-out stage is (rightly) not cached, and a loaded machine
                # (CI beside other jobs) can push a 0.5 s cache or 2 s search past its limit:
                # this test is about sharing, so the limits are wide
                "LOOPGATE_TIMEOUT_CACHE_S": "10",
                "LOOPGATE_TIMEOUT_SEARCH_S": "30",
                "LOOPGATE_TIMEOUT_RETRIEVE_S": "60",
                "LOOPGATE_TIMEOUT_TOOL_S": "30",
            }
            procs.append((f"http://127.0.0.1:{port}", start_gateway(port, env, log), log))
        for url, proc, log in procs:
            wait_healthy(proc, int(url.rsplit(":", 1)[1]), log)
        yield procs
    finally:
        for _url, proc, log in procs:
            code = stop_gateway(proc)
            # graceful shutdown on SIGTERM (uvicorn re-raises the signal once it has shut down)
            assert code in (0, -15), log.read_text(errors="replace")
        import redis

        client = redis.Redis.from_url(redis_url)
        keys = list(client.scan_iter(match=f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()


def _ingest(url: str) -> None:
    r = httpx.post(
        f"{url}/v1/documents",
        files=[("files", ("pump-x200.md", DOC.encode(), "text/markdown"))],
        timeout=30,
    )
    assert r.status_code == 202, r.text
    for _ in range(300):
        job = httpx.get(url + r.json()["status_url"], timeout=10).json()
        if job["status"] in ("done", "failed"):
            break
        time.sleep(0.1)
    assert job["status"] == "done", job


def test_two_processes_share_cache_and_route_log(
    two_gateways: list[tuple[str, Popen[bytes], Path]],
) -> None:
    (a, _pa, log_a), (b, _pb, _lb) = two_gateways
    assert "waiting for Redis at" in log_a.read_text(errors="replace")  # prestart ran first
    ready = httpx.get(f"{a}/readyz", timeout=10).json()
    assert ready["checks"]["redis"]["status"] == "ok", ready
    # the image's HEALTHCHECK command, pointed at this process's port, passes
    health = [
        c
        for c in dockerfile.parse_file(str(REPO / "deploy/Dockerfile"))
        if c.cmd.upper() == "HEALTHCHECK"
    ]
    argv = [
        arg.replace("127.0.0.1:8000", a.removeprefix("http://")) for arg in health[-1].value[1:]
    ]
    assert argv[0] == "python"
    assert subprocess.run([sys.executable, *argv[1:]], timeout=30).returncode == 0
    for url in (a, b):
        _ingest(url)
    question = {"question": "How long is the warranty of the Pump X200?"}
    first = httpx.post(f"{a}/v1/query", json=question, timeout=60).json()
    assert first["cached"] is False and "24 months" in first["answer"], first
    assert not first["route"].get("timed_out"), first["route"]  # else it is not cached
    second = httpx.post(f"{b}/v1/query", json=question, timeout=60).json()
    assert second["cached"] is True, "process B should answer from the entry process A stored"
    assert second["answer"] == first["answer"]
    trace_a = first["route"]["trace_id"]
    # A records its route right after its reply is written (RouteRecorder.record_later), so
    # the shared log holds it shortly after, not before, the reply: B polls for it
    deadline = time.monotonic() + 15
    while True:
        listed = httpx.get(f"{b}/v1/routes", params={"limit": 50}, timeout=10).json()
        seen = trace_a in {r["trace_id"] for r in listed["records"]}
        if seen or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert listed["backend"] == "redis"
    assert seen, "B must see A's route record"
    assert httpx.get(f"{b}/v1/routes/{trace_a}", timeout=10).status_code == 200
