"""Crash and shutdown faults of upload ingest against a real ``loopgate serve`` (issue 20
acceptance). Prints figures; it is not a test.

``kill`` — a server is killed with SIGKILL at each of five points of an upload's life, one
round per point on the same data directory, then started once more without faults:

* ``before_202``: the files are staged and fsynced, the job record not yet written;
* ``queued``: the 202 was sent, the job waits (status ``queued``);
* ``parsing``: the job's file is being parsed;
* ``embedding``: the second write batch is being embedded (the first is staged);
* ``switching``: the new chunks were just published, the catalogue not yet switched (the upload
  replaces a document of the same name).

The kill is made exact by the server process itself (a wrapper patches the function where the
point lies and sends itself SIGKILL once; a marker file keeps it from firing again). Checked at
the end: every upload answered 202 is ``done``, its bytes are in the upload folder; catalogue =
upload folder (sha256 per file) and index = catalogue (chunk counts); no staging folder is left;
every job URL answers.

``sigterm`` — a ~50 MB Markdown upload (plus two small ones queued behind it in the same
collection): SIGTERM while it is being written; the time to exit, the server's peak RSS; then a
restart and the time until all three jobs are ``done``.

Usage::

    .venv/bin/python benchmarks/ingest_faults.py kill \
        --embed-model ../shared/models/multilingual-e5-small
    .venv/bin/python benchmarks/ingest_faults.py sigterm --mb 50 [--embed-model …]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from _common import free_port, rss_mb, wait_healthy

POINTS = ("before_202", "queued", "parsing", "embedding", "switching")

_CHILD = r'''
import asyncio, os, signal, sys
from pathlib import Path

point = os.environ.get("BENCH_KILL_AT", "")
marker = Path(os.environ.get("BENCH_MARKER", "/nonexistent"))
target = os.environ.get("BENCH_TARGET", "")  # the file of this round

def die():
    if point and not marker.exists():
        marker.write_text(point)
        os.kill(os.getpid(), signal.SIGKILL)

if point == "before_202":
    from gateway.ingest.jobs import IngestJobs
    orig_submit = IngestJobs.submit
    async def submit(self, *a, **kw):
        die()
        return await orig_submit(self, *a, **kw)
    IngestJobs.submit = submit
elif point == "queued":
    from gateway.ingest.jobs import IngestJobs
    orig_run = IngestJobs._run
    async def _run(self, job):
        if not marker.exists():
            await asyncio.sleep(1.5)  # the 202 has gone out; the job is queued
            die()
        return await orig_run(self, job)
    IngestJobs._run = _run
elif point == "parsing":
    import corpus._ingest_worker as w
    orig_prepare = w.prepare
    def prepare(path, rel, parse=None, **kw):
        if rel == target:
            die()
        return orig_prepare(path, rel, parse, **kw)
    w.prepare = prepare
elif point == "embedding":
    from corpus._ingest_write import DocumentWriter
    orig_batches = DocumentWriter.batches
    def batches(self, rel, prep, step, cancel):
        for k, item in enumerate(orig_batches(self, rel, prep, step, cancel)):
            if rel == target and k == 1:
                die()  # the second batch was just embedded, the first is staged
            yield item
    DocumentWriter.batches = batches
elif point == "switching":
    from corpus._ingest_write import DocumentWriter
    from corpus.qdrant_store import QdrantChunkStore
    orig_batches = DocumentWriter.batches
    current = {}
    def batches(self, rel, prep, step, cancel):
        current["rel"] = rel
        yield from orig_batches(self, rel, prep, step, cancel)
    DocumentWriter.batches = batches
    orig_publish = QdrantChunkStore.publish_document
    def publish_document(self, collection, doc_id, *a, **kw):
        orig_publish(self, collection, doc_id, *a, **kw)
        if current.get("rel") == target:  # the replacement of manual.md: published, not switched
            die()
    QdrantChunkStore.publish_document = publish_document

sys.argv = ["loopgate", "serve", "--port", os.environ["BENCH_PORT"], "--log-level", "warning",
            "--no-access-log"]
from gateway.cli import main
main()
'''


def _doc(tag: str, sections: int) -> bytes:
    body = "\n\n".join(
        f"## Part {i}\n\nItem {tag}-{i}: the warranty for model {tag.upper()}{i} lasts "
        f"{i % 7 + 1} years and covers parts and labour in region {i % 13}. " * 4
        for i in range(sections))
    return f"# Document {tag}\n\n{body}\n".encode()


_SERVERS: list[Server] = []


class Server:
    """One ``loopgate serve`` child (the fault wrapper) on a data directory."""

    def __init__(self, data: Path, log: Path, env: dict[str, str]) -> None:
        _SERVERS.append(self)
        self.data, self.log, self.env = data, log, env
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, point: str = "", marker: Path | None = None, target: str = "",
              timeout_s: float = 120) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
        env.update({"LOOPGATE_DATA_DIR": str(self.data), "LOOPGATE_DEFAULT_COLLECTION": "docs",
                    "BENCH_PORT": str(self.port), "BENCH_KILL_AT": point,
                    "BENCH_MARKER": str(marker or "/nonexistent"), "BENCH_TARGET": target,
                    **self.env})
        self.proc = subprocess.Popen([sys.executable, "-c", _CHILD], env=env,
                                     stdout=self.log.open("ab"), stderr=subprocess.STDOUT,
                                     start_new_session=True)
        if wait_healthy(self.base, self.proc, timeout_s, poll_s=0.1):
            return
        if self.proc.poll() is not None:
            if marker is not None and marker.exists():
                return  # the fault fired on a job resumed at start-up
            raise RuntimeError(self.log.read_text(errors="replace")[-3000:])
        raise RuntimeError("the server did not start")

    def rss_mb(self) -> float:
        """Resident memory of the server process, MB."""
        assert self.proc is not None
        return rss_mb(self.proc.pid)

    def wait_dead(self, timeout_s: float = 60) -> int | None:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
            return None

    def stop(self) -> float:
        """SIGTERM; seconds to exit."""
        assert self.proc is not None
        t0 = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.wait_dead(60)
        return time.monotonic() - t0


def _post(base: str, collection: str, files: list[tuple[str, bytes]],
          accepted: dict[str, tuple[str, list[tuple[str, bytes]]]], timeout: float = 120) -> int:
    try:
        r = httpx.post(f"{base}/v1/documents", data={"collection": collection},
                       files=[("files", (n, b, "text/markdown")) for n, b in files],
                       timeout=timeout)
    except httpx.HTTPError:
        return 0  # cut by the kill: never accepted
    if r.status_code == 202:
        accepted[r.json()["job_id"]] = (collection, files)
    return r.status_code


def _wait_jobs(base: str, ids: list[str], timeout_s: float) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + timeout_s
    while True:
        got = {j: httpx.get(f"{base}/v1/documents/jobs/{j}", timeout=10) for j in ids}
        codes = {j: r.status_code for j, r in got.items() if r.status_code != 200}
        if codes:
            raise AssertionError(f"job URLs not answering: {codes}")
        bodies = {j: r.json() for j, r in got.items()}
        if all(b["status"] in ("done", "failed") for b in bodies.values()):
            return bodies
        if time.monotonic() > deadline:
            return bodies
        time.sleep(0.5)


def _check(data: Path, accepted: dict[str, tuple[str, list[tuple[str, bytes]]]],
           collections: list[str]) -> dict[str, Any]:
    """Catalogue = upload folder, index = catalogue, accepted bytes present (server stopped)."""
    from corpus.catalogue import Catalogue
    from gateway.settings import Settings
    from gateway.wiring import open_store

    store = open_store(Settings(data_dir=data))
    out: dict[str, Any] = {}
    try:
        for c in collections:
            folder = data / "uploads" / c
            disk = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}
            entries = Catalogue(store).entries(c)
            cat = {p: e.info.doc_id for p, e in entries.items()}
            want: dict[str, str] = {}
            for col, files in accepted.values():  # later uploads of a name win
                if col == c:
                    want.update({n: hashlib.sha256(b).hexdigest() for n, b in files})
            lost = sorted(n for n, h in want.items() if disk.get(n) != h)
            out[c] = {"files": len(disk), "catalogue_equals_folder": cat == disk,
                      "index_equals_catalogue": store.count_chunks(c)
                      == sum(e.info.chunk_count for e in entries.values()),
                      "staged_left": store.purge_staged(c), "accepted_lost": lost}
    finally:
        store.close()
    staging = data / "uploads" / ".staging"
    out["staging_left"] = len(list(staging.iterdir())) if staging.is_dir() else 0
    return out


def run_kill(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="lg-kill-"))
    data, log = tmp / "data", tmp / "serve.log"
    env = {"LOOPGATE_EMBED_MODEL_PATH": args.embed_model} if args.embed_model else {}
    srv = Server(data, log, env)
    accepted: dict[str, tuple[str, list[tuple[str, bytes]]]] = {}
    print(f"data: {data}; embedding model: {args.embed_model or 'none (keyword-only)'}")
    # a first version of the file the 'switching' round replaces
    srv.start()
    _post(srv.base, "alpha", [("manual.md", _doc("manual-v1", 30))], accepted)
    _wait_jobs(srv.base, list(accepted), 300)
    srv.stop()
    for rnd, point in enumerate(POINTS):
        marker = tmp / f"fired-{point}"
        name = "manual.md" if point == "switching" else f"kill-{rnd}.md"
        srv.start(point, marker, name)
        t0 = time.monotonic()
        threads = []
        big = [(name, _doc(f"{point}-big", 400))]
        threads.append(threading.Thread(target=_post, args=(srv.base, "alpha", big, accepted)))
        small = [(f"other-{rnd}.md", _doc(f"{point}-other", 10))]  # another collection
        threads.append(threading.Thread(target=_post, args=(srv.base, "beta", small, accepted)))
        for t in threads:
            t.start()
            time.sleep(0.3)
        code = srv.wait_dead(300)
        for t in threads:
            t.join(60)
        print(f"round {rnd + 1} {point:>10}: killed={marker.exists()} exit={code} "
              f"after {time.monotonic() - t0:.1f} s; accepted so far {len(accepted)}")
    srv.start()
    t0 = time.monotonic()
    jobs = _wait_jobs(srv.base, list(accepted), 900)
    took = time.monotonic() - t0
    listing = {c: httpx.get(f"{srv.base}/v1/documents", params={"collection": c}, timeout=30)
               .status_code for c in ("alpha", "beta")}
    srv.stop()
    states: dict[str, int] = {}
    for j in jobs.values():
        states[j["status"]] = states.get(j["status"], 0) + 1
    notes = sorted({j.get("note", "") for j in jobs.values() if j.get("note")})
    print(f"after the last restart: {len(accepted)} accepted uploads, job states {states} "
          f"(all job URLs answered 200) in {took:.1f} s; listings {listing}")
    print("notes:", notes)
    print("check:", _check(data, accepted, ["alpha", "beta"]))


def run_sigterm(args: argparse.Namespace) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="lg-term-"))
    data, log = tmp / "data", tmp / "serve.log"
    env = {"LOOPGATE_EMBED_MODEL_PATH": args.embed_model} if args.embed_model else {}
    srv = Server(data, log, env)
    per = len(_doc("big", 2)) - len(_doc("big", 1))
    big = _doc("big", int(args.mb * 1_000_000 / per) + 1)
    big = big[: big.rfind(b"\n## ", 0, int(args.mb * 1_000_000))] + b"\n"  # at most --mb MB
    print(f"upload: {len(big) / 1e6:.1f} MB Markdown; embedding model: "
          f"{args.embed_model or 'none (keyword-only)'}")
    srv.start()
    rss = [srv.rss_mb()]
    accepted: dict[str, tuple[str, list[tuple[str, bytes]]]] = {}
    t_up = time.monotonic()
    code = _post(srv.base, "bulk", [("big.md", big)], accepted, timeout=600)
    print(f"POST 202 in {time.monotonic() - t_up:.1f} s (status {code})")
    for k in range(2):
        _post(srv.base, "bulk", [(f"small{k}.md", _doc(f"s{k}", 5))], accepted)
    ids = list(accepted)
    t0, phase, seen, polls = time.monotonic(), "", [], []
    while time.monotonic() - t0 < args.term_after_s:
        tp = time.monotonic()
        job = httpx.get(f"{srv.base}/v1/documents/jobs/{ids[0]}", timeout=120).json()
        polls.append(time.monotonic() - tp)
        p = job["progress"]
        phase = f"{p.get('phase')} {p.get('chunks_done', '')}/{p.get('chunks_total', '')}"
        if not seen or seen[-1][1] != p.get("phase"):
            seen.append((round(time.monotonic() - t0, 1), p.get("phase")))
        rss.append(srv.rss_mb())
        if p.get("phase") == "embedding" and p.get("chunks_done", 0) >= args.term_at_chunks:
            break
        time.sleep(0.5)
    print(f"phases seen (s after 202): {seen}; at SIGTERM: {phase}; peak RSS "
          f"{max(rss):.0f} MB (start {rss[0]:.0f} MB); job URL answered in p50 "
          f"{sorted(polls)[len(polls) // 2]:.3f} s, max {max(polls):.2f} s")
    exit_s = srv.stop()
    print(f"SIGTERM to exit: {exit_s:.2f} s")
    srv.start()
    rss2 = [srv.rss_mb()]
    t0 = time.monotonic()
    polls = []
    while True:
        tp = time.monotonic()
        bodies = {j: httpx.get(f"{srv.base}/v1/documents/jobs/{j}", timeout=120).json()
                  for j in ids}
        polls.append(time.monotonic() - tp)
        rss2.append(srv.rss_mb())
        if all(b["status"] in ("done", "failed") for b in bodies.values()):
            break
        if time.monotonic() - t0 > args.finish_timeout_s:
            print("not finished in time:", {j: b["progress"] for j, b in bodies.items()})
            break
        time.sleep(1)
    took = time.monotonic() - t0
    b0 = bodies[ids[0]]
    print(f"after restart: {[b['status'] for b in bodies.values()]} in {took:.1f} s; big file "
          f"{b0['report']['files'][0]['chunks'] if b0.get('report') else '?'} chunks; note "
          f"{b0.get('note')!r}; peak RSS {max(rss2):.0f} MB (start {rss2[0]:.0f} MB); three job "
          f"URLs answered in p50 {sorted(polls)[len(polls) // 2]:.3f} s, max {max(polls):.2f} s")
    srv.stop()
    print("check:", _check(data, accepted, ["bulk"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=["kill", "sigterm"])
    ap.add_argument("--embed-model", default="", help="local embedding model folder")
    ap.add_argument("--mb", type=float, default=50.0, help="sigterm: upload size, MB")
    ap.add_argument("--term-at-chunks", type=int, default=256,
                    help="sigterm: send SIGTERM once this many chunks of the file are written")
    ap.add_argument("--term-after-s", type=float, default=600,
                    help="sigterm: at the latest this long after the 202")
    ap.add_argument("--finish-timeout-s", type=float, default=1800)
    args = ap.parse_args()
    try:
        run_kill(args) if args.mode == "kill" else run_sigterm(args)
    finally:  # a server left running by a failed run would hold its data dir and memory
        for srv in _SERVERS:
            if srv.proc is not None and srv.proc.poll() is None:
                os.killpg(srv.proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
