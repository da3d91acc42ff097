"""Durable ingest jobs (issue 20 item 3): a real ``loopgate serve`` is killed with SIGKILL while
uploads arrive, queue and ingest; after a restart no accepted upload is lost, every job URL
answers, index = catalogue = upload folder, and no staging folder is left."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from corpus.catalogue import Catalogue
from gateway.wiring import open_store
from gateway.settings import Settings

pytestmark = pytest.mark.integration

LOOPGATE = Path(sys.executable).parent / "loopgate"


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start(data: Path, port: int, log: Path, extra: dict[str, str] | None = None
           ) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    env.update({"LOOPGATE_DATA_DIR": str(data), "LOOPGATE_DEFAULT_COLLECTION": "docs",
                **(extra or {})})
    proc = subprocess.Popen([str(LOOPGATE), "serve", "--port", str(port), "--log-level",
                             "warning"], env=env, stdout=log.open("ab"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, log.read_text(errors="replace")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(log.read_text(errors="replace"))


def _doc(tag: str, paragraphs: int) -> bytes:
    body = "\n\n".join(
        f"## Part {i}\n\nItem {tag}-{i}: the warranty for model {tag.upper()}{i} lasts {i % 7 + 1} "
        f"years and covers parts and labour in region {i % 13}. " * 3
        for i in range(paragraphs)
    )
    return f"# Document {tag}\n\n{body}\n".encode()


def _uploader(base: str, collection: str, files: list[tuple[str, bytes]],
              accepted: dict[str, tuple[str, list[tuple[str, bytes]]]]) -> None:
    try:
        r = httpx.post(f"{base}/v1/documents", data={"collection": collection},
                       files=[("files", (n, b, "text/markdown")) for n, b in files], timeout=30)
    except httpx.HTTPError:
        return  # cut by the kill: never accepted
    if r.status_code == 202:
        accepted[r.json()["job_id"]] = (collection, files)


def _wait_jobs(base: str, job_ids: list[str], timeout_s: float = 120) -> dict[str, dict]:
    deadline = time.monotonic() + timeout_s
    while True:
        jobs = {j: httpx.get(f"{base}/v1/documents/jobs/{j}", timeout=5) for j in job_ids}
        assert all(r.status_code == 200 for r in jobs.values()), {
            j: r.status_code for j, r in jobs.items() if r.status_code != 200}
        bodies = {j: r.json() for j, r in jobs.items()}
        if all(b["status"] in ("done", "failed") for b in bodies.values()):
            return bodies
        assert time.monotonic() < deadline, [b["status"] for b in bodies.values()]
        time.sleep(0.3)


def test_kill9_at_points_of_an_upload_loses_no_accepted_upload(tmp_path) -> None:
    data, port, log = tmp_path / "data", _free_port(), tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}"
    accepted: dict[str, tuple[str, list[tuple[str, bytes]]]] = {}
    seen_at_kill: dict[str, int] = {}
    for rnd, delay in enumerate([0.05, 0.3, 0.8, 1.5, 2.5]):
        proc = _start(data, port, log)
        threads = []
        for k in range(6):
            big = k % 3 == 0  # every third upload is large enough to be mid-ingest at the kill
            files = [(f"r{rnd}u{k}f{i}.md", _doc(f"r{rnd}u{k}f{i}", 150 if big else 20))
                     for i in range(2)]
            t = threading.Thread(target=_uploader,
                                 args=(base, "alpha" if k % 2 else "beta", files, accepted))
            t.start()
            threads.append(t)
            time.sleep(0.02)
        time.sleep(delay)
        for job_id in list(accepted):
            try:
                status = httpx.get(f"{base}/v1/documents/jobs/{job_id}", timeout=1).json()
                key = f"{status['status']}:{status['progress'].get('phase', '')}"
                seen_at_kill[key] = seen_at_kill.get(key, 0) + 1
            except (httpx.HTTPError, ValueError):
                pass
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for t in threads:
            t.join(30)
    proc = _start(data, port, log)
    try:
        jobs = _wait_jobs(base, list(accepted))
        assert all(j["status"] == "done" for j in jobs.values()), [
            (j["status"], j["error"]) for j in jobs.values() if j["status"] != "done"]
        for job in jobs.values():  # no absolute upload path in a job report
            assert str(data) not in str(job) and job["report"]["root"].startswith("uploads/")
        listing = {c: httpx.get(f"{base}/v1/documents", params={"collection": c}).json()
                   for c in ("alpha", "beta")}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    print(f"\naccepted uploads: {len(accepted)}; job states seen at the kills: {seen_at_kill}")
    assert len(accepted) >= 10
    store = open_store(Settings(data_dir=data))
    try:
        for collection in ("alpha", "beta"):
            folder = data / "uploads" / collection
            on_disk = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                       for p in folder.iterdir()}
            entries = Catalogue(store).entries(collection)
            catalogue = {p: e.info.doc_id for p, e in entries.items()}
            assert catalogue == on_disk  # catalogue = upload folder, byte for byte
            want = {n: hashlib.sha256(b).hexdigest()
                    for c, files in accepted.values() if c == collection for n, b in files}
            assert want.items() <= on_disk.items(), "an accepted upload was lost"
            chunks = sum(e.info.chunk_count for e in entries.values())
            assert store.count_chunks(collection) == chunks  # index = catalogue
            assert sorted(d["path"] for d in listing[collection]["documents"]) == sorted(on_disk)
    finally:
        store.close()
    assert not any((data / "uploads" / ".staging").glob("*")), "orphan staging folders"


async def test_job_records_in_redis_answer_after_restart(tmp_path) -> None:
    from _apphelp import make_settings, running, unique_prefix, upload

    url = os.environ.get("LOOPGATE_TEST_REDIS_URL")
    if not url:
        pytest.skip("LOOPGATE_TEST_REDIS_URL not set")
    settings = make_settings(tmp_path, redis_url=url, redis_key_prefix=unique_prefix())
    async with running(settings) as (app, client):
        assert app.state.components.ingest.store.backend == "redis"
        job = await upload(app, client, [("a.md", _doc("a", 5))], collection="red")
    assert not list((tmp_path / "data" / "jobs").glob("*.json"))  # kept in Redis, not on disk
    async with running(settings) as (app, client):
        r = await client.get(f"/v1/documents/jobs/{job['job_id']}")
        assert r.status_code == 200 and r.json()["status"] == "done", r.text


async def test_one_collections_queue_does_not_block_another(tmp_path) -> None:
    from _apphelp import make_settings, running

    async with running(make_settings(tmp_path)) as (app, client):
        ingest = app.state.components.ingest
        async with ingest._lock("slow"):  # a long job holds collection "slow"
            slow = await client.post("/v1/documents", data={"collection": "slow"},
                                     files=[("files", ("s.md", _doc("s", 5), "text/markdown"))])
            fast = await client.post("/v1/documents", data={"collection": "fast"},
                                     files=[("files", ("f.md", _doc("f", 5), "text/markdown"))])
            for _ in range(100):
                body = (await client.get(fast.json()["status_url"])).json()
                if body["status"] == "done":
                    break
                await asyncio.sleep(0.05)
            assert body["status"] == "done", body
            assert (await client.get(slow.json()["status_url"])).json()["status"] == "queued"
        await ingest.wait_idle()
        assert (await client.get(slow.json()["status_url"])).json()["status"] == "done"


def test_sigterm_during_a_large_upload_exits_fast_and_the_upload_finishes_after_restart(
        tmp_path) -> None:
    """Issue 20 item 4: SIGTERM while a multi-MB file is being ingested and other jobs wait:
    the process exits within 10 s; after a restart every job ends done."""
    data, port, log = tmp_path / "data", _free_port(), tmp_path / "serve.log"
    base = f"http://127.0.0.1:{port}"
    big = _doc("big", 12_000)  # ~4 MB of Markdown
    proc = _start(data, port, log)
    r = httpx.post(f"{base}/v1/documents", data={"collection": "bulk"},
                   files=[("files", ("big.md", big, "text/markdown"))], timeout=60)
    assert r.status_code == 202, r.text
    ids = [r.json()["job_id"]]
    for k in range(3):
        r = httpx.post(f"{base}/v1/documents", data={"collection": "bulk"},
                       files=[("files", (f"small{k}.md", _doc(f"s{k}", 5), "text/markdown"))])
        ids.append(r.json()["job_id"])
    deadline = time.monotonic() + 30
    while httpx.get(f"{base}/v1/documents/jobs/{ids[0]}").json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    progress = httpx.get(f"{base}/v1/documents/jobs/{ids[0]}").json()["progress"]
    assert progress["phase"] and progress["files_total"] == 1, progress
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(30)
    exit_s = time.monotonic() - t0
    print(f"\nSIGTERM to exit: {exit_s:.2f} s (a {len(big) / 1e6:.1f} MB file being ingested)")
    assert exit_s <= 10.0
    proc = _start(data, port, log)
    try:
        jobs = _wait_jobs(base, ids, timeout_s=300)
        assert [j["status"] for j in jobs.values()] == ["done"] * 4, jobs
        assert jobs[ids[0]]["report"]["counts"]["ingested"] == 1
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)
