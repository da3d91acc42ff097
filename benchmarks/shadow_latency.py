"""Does shadow mode slow the served answer? ``POST /v1/query`` latency in ``proxy`` vs ``shadow``.

Setup (all on loopback, nothing mocked on LoopGate's side):

- a stand-in legacy RAG service (stdlib HTTP server, fixed ``--legacy-delay-ms`` per answer);
- the real gateway under uvicorn in a subprocess (``gateway.main:create_app``), its collection
  ingested from real documents (default: 10 Markdown files of ../shared/eval's GitLab handbook)
  with the local e5 model when present, so each shadow run does real retrieval work (embedding
  in a worker thread, hybrid search, extractive answer or LoopAgent offline policy);
- one gateway, two collections: ``proxyc`` in ``proxy`` mode and ``bench`` (the documents) in
  ``shadow`` mode; each question is asked in both, in alternating order, so the two modes see
  the same background load (this machine is shared); questions are made unique (``… (#i)``)
  so the answer cache never short-circuits a shadow run.

It prints the served latency per mode (client side: p50 / p95 / p99 / mean in ms), the median
of the paired differences, the direct legacy latency for reference, the shadow outcomes and
LoopGate's own latency in the shadow runs (from the migration log).

Usage::

    nice .venv/bin/python benchmarks/shadow_latency.py [--requests 100] [--concurrency 1]
        [--legacy-delay-ms 50] [--docs DIR] [--max-docs 10] [--model PATH]
        [--query-mode auto|rag|loop] [--shadow-concurrency 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from _common import free_port, percentile, wait_healthy

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
QUESTIONS = [
    "What is the CEO shadow program?",
    "How does the hiring process work?",
    "What does MEDDPPICC stand for?",
    "Who approves a new job family?",
    "How are sales opportunities qualified?",
    "What should a new team member do in their first week?",
    "How long does a CEO shadow rotation last?",
    "What are the steps of an interview?",
]


class _Legacy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    delay_s = 0.05

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        time.sleep(self.delay_s)
        raw = json.dumps(
            {
                "answer": f"legacy: {body.get('question', '')}",
                "sources": [{"path": "handbook/hiring/_index.md", "page": 1, "text": "…"}],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def _summary(ms: list[float]) -> str:
    return (
        f"p50 {percentile(ms, 0.50):7.1f}  p95 {percentile(ms, 0.95):7.1f}  "
        f"p99 {percentile(ms, 0.99):7.1f}  "
        f"mean {statistics.fmean(ms):7.1f}  (n={len(ms)})"
    )


def _start_gateway(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "gateway.main:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    base = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    proc = subprocess.Popen(
        cmd,
        env={**base, **env},
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    if wait_healthy(url, proc):
        return proc, url
    if proc.poll() is not None:
        raise SystemExit(f"gateway exited:\n{log.read_text(errors='replace')}")
    raise SystemExit("gateway did not start")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _interleaved(
    url: str, n: int, concurrency: int, query_mode: str, pause_s: float = 0.0
) -> dict[str, list[float]]:
    """Ask each question once in the proxy collection and once in the shadow collection, in
    alternating order, so both see the same background load; returns served ms per mode."""

    def one(i: int, collection: str) -> float:
        q = f"{QUESTIONS[i % len(QUESTIONS)]} (#{i})"
        t0 = time.perf_counter()
        r = httpx.post(
            f"{url}/v1/query",
            json={"question": q, "collection": collection, "mode": query_mode},
            timeout=120,
        )
        ms = (time.perf_counter() - t0) * 1000
        r.raise_for_status()
        assert r.json()["migration"]["served_by"] == "legacy", r.json()
        return ms

    def pair(i: int) -> tuple[float, float]:
        time.sleep(pause_s)  # > 0: earlier shadow runs finish first (isolates the path cost)
        if i % 2:
            shadow = one(i, "bench")
            proxy = one(i, "proxyc")
        else:
            proxy = one(i, "proxyc")
            shadow = one(i, "bench")
        return proxy, shadow

    for i in range(3):  # warm-up (connections, first embedding)
        pair(10_000 + i)
    with ThreadPoolExecutor(concurrency) as pool:
        pairs = list(pool.map(pair, range(n)))
    return {"proxy": [p for p, _ in pairs], "shadow": [s for _, s in pairs]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=100)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--legacy-delay-ms", type=float, default=50.0)
    ap.add_argument(
        "--docs", type=Path, default=SHARED / "eval/en/docs/gitlab-handbook/content/handbook"
    )
    ap.add_argument("--max-docs", type=int, default=10)
    ap.add_argument("--model", type=Path, default=SHARED / "models/multilingual-e5-small")
    ap.add_argument(
        "--query-mode",
        choices=["auto", "rag", "loop"],
        default="auto",
        help="LoopGate path of the shadow runs (loop = LoopAgent, heavier)",
    )
    ap.add_argument("--shadow-concurrency", type=int, default=4)
    ap.add_argument(
        "--pause-ms",
        type=float,
        default=0.0,
        help="pause before each question pair (0 = back to back: shadow runs overlap "
        "the next requests and compete for CPU)",
    )
    ap.add_argument(
        "--work",
        type=Path,
        default=None,
        help="keep data here (ingested once, reused by later runs); default: a temp dir",
    )
    args = ap.parse_args()

    _Legacy.delay_s = args.legacy_delay_ms / 1000
    legacy = ThreadingHTTPServer(("127.0.0.1", 0), _Legacy)
    legacy.daemon_threads = True
    threading.Thread(target=legacy.serve_forever, daemon=True).start()
    legacy_url = f"http://127.0.0.1:{legacy.server_address[1]}/ask"

    work = args.work or Path(tempfile.mkdtemp(prefix="lg-shadow-bench-"))
    reuse = args.work is not None and (work / "data").exists()
    docs = work / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    files = sorted(args.docs.rglob("*.md"))[: args.max_docs] if args.docs.exists() else []
    if not reuse:
        if not files:
            (docs / "note.md").write_text(
                "# Hiring\n\nThe hiring process has four interview steps.\n"
            )
        for i, f in enumerate(files):
            shutil.copy(f, docs / f"{i:02d}-{f.name}")
    model = args.model if (args.model / "model_int8.onnx").exists() else None
    env = {"LOOPGATE_DATA_DIR": str(work / "data"), "LOOPGATE_LEGACY_RAG_URL": legacy_url}
    if model is not None:
        env["LOOPGATE_EMBED_MODEL_PATH"] = str(model)
    print(
        f"documents: {len(list(docs.iterdir()))} in {docs}; "
        f"embedding model: {model or 'none (keyword-only)'}; "
        f"legacy delay {args.legacy_delay_ms:g} ms; "
        f"{args.requests} question pairs, concurrency {args.concurrency}, "
        f"query mode {args.query_mode}, pause {args.pause_ms:g} ms"
    )
    if not reuse:
        t0 = time.perf_counter()
        loopgate = shutil.which("loopgate") or str(Path(sys.executable).parent / "loopgate")
        subprocess.run(
            [loopgate, "ingest", str(docs), "--collection", "bench"],
            env={**{k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}, **env},
            check=True,
            capture_output=True,
        )
        print(f"ingest: {time.perf_counter() - t0:.1f} s")

    direct: list[float] = []
    for i in range(min(50, args.requests)):
        t = time.perf_counter()
        httpx.post(legacy_url, json={"question": f"q{i}"}, timeout=30)
        direct.append((time.perf_counter() - t) * 1000)
    print(f"legacy direct      {_summary(direct)}")

    env_run = {
        **env,
        "LOOPGATE_DEFAULT_COLLECTION": "proxyc",
        "LOOPGATE_MIGRATION_MODES": json.dumps({"proxyc": "proxy", "bench": "shadow"}),
        "LOOPGATE_MIGRATION_SHADOW_MAX_CONCURRENCY": str(args.shadow_concurrency),
    }
    proc, url = _start_gateway(env_run, work / "gateway.log")
    try:
        served = _interleaved(
            url, args.requests, args.concurrency, args.query_mode, args.pause_ms / 1000
        )
        for _ in range(600):  # let the shadow runs finish before reading their latency
            if httpx.get(f"{url}/v1/migration", timeout=10).json()["shadow_in_flight"] == 0:
                break
            time.sleep(0.1)
        status = httpx.get(f"{url}/v1/migration", timeout=10).json()["collections"].get("bench", {})
        recent = httpx.get(
            f"{url}/v1/migration/recent", params={"collection": "bench", "limit": 500}, timeout=10
        ).json()["records"]
    finally:
        _stop(proc)
    for mode in ("proxy", "shadow"):
        print(f"served [{mode:6s}]    {_summary(served[mode])}")
    diffs = [s_ - p_ for p_, s_ in zip(served["proxy"], served["shadow"], strict=True)]
    print(f"shadow - proxy     median of paired differences {statistics.median(diffs):+.1f} ms")
    print(f"shadow outcomes    {status.get('shadow')}")
    lg = [r["loopgate"]["latency_ms"] for r in recent if r.get("shadow") == "ok"]
    if lg:
        print(f"shadow LoopGate    {_summary(lg)}")
    routes = [r.get("loopgate", {}).get("found") for r in recent if r.get("shadow") == "ok"]
    print(f"shadow found       {sum(bool(x) for x in routes)}/{len(routes)}")
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    legacy.shutdown()


if __name__ == "__main__":
    main()
