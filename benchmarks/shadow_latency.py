"""Does shadow mode slow the served answer? ``POST /v1/query`` latency in ``proxy`` vs ``shadow``.

Setup (all on loopback, nothing mocked on LoopGate's side):

- a stand-in legacy RAG service (stdlib HTTP server, fixed ``--legacy-delay-ms`` per answer);
- the real gateway under uvicorn in a subprocess (``gateway.main:create_app``), its collection
  ingested from real documents (default: 10 Markdown files of ../shared/eval's GitLab handbook)
  with the local e5 model when present, so each shadow run does real retrieval work (embedding
  in a worker thread, hybrid search, extractive answer or LoopAgent offline policy);
- the same questions in both runs, each made unique (``… (#i)``) so the answer cache never
  short-circuits the shadow LoopGate run.

It prints, per mode, the served latency (client side: p50 / p95 / p99 / mean in ms), the
direct legacy latency for reference, and in shadow mode the shadow outcomes and LoopGate's
own latency from the migration log.

Usage::

    nice .venv/bin/python benchmarks/shadow_latency.py [--requests 100] [--concurrency 1]
        [--legacy-delay-ms 50] [--docs DIR] [--max-docs 10] [--model PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def _summary(ms: list[float]) -> str:
    return (
        f"p50 {_pct(ms, 50):7.1f}  p95 {_pct(ms, 95):7.1f}  p99 {_pct(ms, 99):7.1f}  "
        f"mean {statistics.fmean(ms):7.1f}  (n={len(ms)})"
    )


def _start_gateway(env: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
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
    for _ in range(600):
        if proc.poll() is not None:
            raise SystemExit(f"gateway exited:\n{log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit("gateway did not start")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _run(url: str, n: int, concurrency: int, tag: str) -> list[float]:
    def one(i: int) -> float:
        q = f"{QUESTIONS[i % len(QUESTIONS)]} ({tag} #{i})"
        t0 = time.perf_counter()
        r = httpx.post(f"{url}/v1/query", json={"question": q, "collection": "bench"}, timeout=120)
        ms = (time.perf_counter() - t0) * 1000
        r.raise_for_status()
        return ms

    for i in range(3):  # warm-up (connection, first embedding)
        one(10_000 + i)
    with ThreadPoolExecutor(concurrency) as pool:
        return list(pool.map(one, range(n)))


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
    args = ap.parse_args()

    _Legacy.delay_s = args.legacy_delay_ms / 1000
    legacy = ThreadingHTTPServer(("127.0.0.1", 0), _Legacy)
    legacy.daemon_threads = True
    threading.Thread(target=legacy.serve_forever, daemon=True).start()
    legacy_url = f"http://127.0.0.1:{legacy.server_address[1]}/ask"

    work = Path(tempfile.mkdtemp(prefix="lg-shadow-bench-"))
    docs = work / "docs"
    docs.mkdir()
    files = sorted(args.docs.rglob("*.md"))[: args.max_docs] if args.docs.exists() else []
    if not files:
        (docs / "note.md").write_text("# Hiring\n\nThe hiring process has four interview steps.\n")
    for i, f in enumerate(files):
        shutil.copy(f, docs / f"{i:02d}-{f.name}")
    model = args.model if (args.model / "model_int8.onnx").exists() else None
    env = {"LOOPGATE_DATA_DIR": str(work / "data"), "LOOPGATE_LEGACY_RAG_URL": legacy_url}
    if model is not None:
        env["LOOPGATE_EMBED_MODEL_PATH"] = str(model)
    print(
        f"documents: {len(list(docs.iterdir()))} from {args.docs if files else 'built-in note'}; "
        f"embedding model: {model or 'none (keyword-only)'}; "
        f"legacy delay {args.legacy_delay_ms:g} ms; "
        f"{args.requests} requests, concurrency {args.concurrency}"
    )
    t0 = time.perf_counter()
    loopgate = shutil.which("loopgate") or str(Path(sys.executable).parent / "loopgate")
    subprocess.run(
        [loopgate, "ingest", str(docs), "--collection", "bench"],
        env={**{k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}, **env},
        check=True,
        capture_output=True,
    )
    print(f"ingest: {time.perf_counter() - t0:.1f} s")

    direct = []
    for i in range(min(50, args.requests)):
        t = time.perf_counter()
        httpx.post(legacy_url, json={"question": f"q{i}"}, timeout=30)
        direct.append((time.perf_counter() - t) * 1000)
    print(f"legacy direct      {_summary(direct)}")

    for mode in ("proxy", "shadow"):
        env_mode = {
            **env,
            "LOOPGATE_MIGRATION_MODES": json.dumps({"bench": mode}),
            "LOOPGATE_MIGRATION_SHADOW_MAX_CONCURRENCY": "4",
        }
        proc, url = _start_gateway(env_mode, work / f"{mode}.log")
        try:
            ms = _run(url, args.requests, args.concurrency, mode)
            time.sleep(0.5)
            status = (
                httpx.get(f"{url}/v1/migration", timeout=10).json()["collections"].get("bench", {})
            )
            for _ in range(600):  # let the shadow runs finish before reading their latency
                if httpx.get(f"{url}/v1/migration", timeout=10).json()["shadow_in_flight"] == 0:
                    break
                time.sleep(0.1)
            recent = httpx.get(
                f"{url}/v1/migration/recent", params={"limit": 500}, timeout=10
            ).json()["records"]
        finally:
            _stop(proc)
        print(f"served [{mode:6s}]    {_summary(ms)}")
        if mode == "shadow":
            lg = [r["loopgate"]["latency_ms"] for r in recent if r.get("shadow") == "ok"]
            final = {}
            for r in recent:
                final[r.get("shadow", "?")] = final.get(r.get("shadow", "?"), 0) + 1
            print(f"shadow outcomes    {final} (status at end of load: {status.get('shadow')})")
            if lg:
                print(f"shadow LoopGate    {_summary(lg)}")
            sims = [r["agreement"]["answer_similarity"] for r in recent if r.get("agreement")]
            if sims:
                print(
                    f"answer similarity  mean {statistics.fmean(sims):.3f} "
                    "(the legacy stand-in's answers are canned)"
                )
    shutil.rmtree(work, ignore_errors=True)
    legacy.shutdown()


if __name__ == "__main__":
    main()
