"""Load benchmark of the gateway on loopback against a real ``loopgate serve`` (uvicorn,
httptools + uvloop when installed). Prints figures; it is not a test.

Phases (each bounded, the script stops by itself):

1. **cache hit** – one question asked once (stored in the answer cache), then asked again and
   again: throughput (req/s) and latency p50/p90/p99.
2. **RAG path** – questions from the evaluation sets sent with ``mode=rag`` and
   ``use_cache=false`` so every request runs hybrid retrieval + the extractive answer:
   throughput and latency.

The load generator runs in a separate process: ``wrk`` (Debian package) when on PATH, with one
thread and a Lua script; else an asyncio + httpx generator in a child process, bounded by a
request count. ``--connections 1 8`` runs each phase once per connection count on the same
server. Each phase also prints the server's own time per request (``ms`` of its access-log
lines: request start to last byte, inside the server), so a tail that the load generator sees
and the server does not is the machine's scheduling, not the gateway. The server gets its own
data directory: a copy of the evaluation index (``--index``, e.g. ``/work/data/eval-index`` once
``READY`` exists; never opened in place) or, without one, the small documents of case 12
ingested through the API; ``--mixed`` adds one English document to them, so the collection
holds both scripts and every request runs the cross-language stage (a cache hit too).

Usage::

    .venv/bin/python benchmarks/load_gateway.py --seconds 10 --connections 16
    .venv/bin/python benchmarks/load_gateway.py --skip-rag --seconds 15 --connections 1 8 \
        --redis redis://127.0.0.1:6379/15 --mixed
    .venv/bin/python benchmarks/load_gateway.py --index /work/data/eval-index --collection eval \\
        --embed-model ../shared/models/multilingual-e5-small --redis redis://127.0.0.1:6379/15
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import free_port, stop_process, wait_healthy

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

_WRK_LUA = """
local bodies = {}
local i = 0
function init(args)
  local f = io.open(args[1], "r")
  for line in f:lines() do bodies[#bodies + 1] = line end
  f:close()
end
request = function()
  i = i % #bodies + 1
  return wrk.format("POST", "/v1/query", {["Content-Type"] = "application/json"}, bodies[i])
end
"""


def start_server(data_dir: Path, collection: str, embed_model: str | None,
                 redis: str | None) -> tuple[subprocess.Popen[str], str, Path]:
    """``loopgate serve`` on a free loopback port; returns the process, its base URL and the
    file holding its output (the access log's JSON lines among it)."""
    port = free_port()
    env = {**os.environ, "LOOPGATE_DATA_DIR": str(data_dir),
           "LOOPGATE_DEFAULT_COLLECTION": collection}
    if embed_model:
        env["LOOPGATE_EMBED_MODEL_PATH"] = embed_model
    if redis:
        env["LOOPGATE_REDIS_URL"] = redis
        env["LOOPGATE_REDIS_KEY_PREFIX"] = f"lgbench:{os.getpid()}:"
    # the server's output goes to a file: an unread pipe fills up (64 KB of access-log lines)
    # and then blocks the server on its next log write
    log = tempfile.NamedTemporaryFile("w+", prefix="lgbench-server-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        [sys.executable, "-c", "from gateway.cli import main; main()", "serve", "--host",
         "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
    )
    base = f"http://127.0.0.1:{port}"
    if wait_healthy(base, proc):
        return proc, base, Path(log.name)
    proc.kill()
    log.seek(0)
    raise SystemExit(f"server did not start: {log.read()[-4000:]}")


#: the English document ``--mixed`` adds to case 12's Chinese ones
MIXED_DOC = ("shipping-en.md", b"# Shipping policy\n\nStandard shipping takes three to five "
             b"business days.\n\n# Returns\n\nReturns are accepted within seven days.\n")


def ingest_case12(base: str, mixed: bool = False) -> None:
    """Upload case 12's v1 documents (``mixed``: and :data:`MIXED_DOC`) and wait for the
    ingest job."""
    folder = SHARED / "cases" / "12-stale-index-and-cache" / "v1"
    files = [("files", (p.name, p.read_bytes(), "text/markdown")) for p in sorted(folder.iterdir())]
    if mixed:
        files.append(("files", (MIXED_DOC[0], MIXED_DOC[1], "text/markdown")))
    job = httpx.post(f"{base}/v1/documents", files=files, timeout=120).json()
    for _ in range(600):
        job = httpx.get(f"{base}/v1/documents/jobs/{job['job_id']}", timeout=10).json()
        if job["status"] in ("done", "failed"):
            return
        time.sleep(0.1)


def eval_questions(limit: int, datasets: list[str] | None = None) -> list[str]:
    """Questions of the evaluation sets (English and Chinese), interleaved; ``datasets`` keeps
    those whose ``source_dataset`` contains one of the given names (case-insensitive)."""
    out: list[list[str]] = []
    wanted = [d.lower() for d in datasets or ()]
    for lang in ("en", "zh"):
        path = SHARED / "eval" / lang / "questions.jsonl"
        if path.exists():
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
                    if line.strip()]
            out.append([r["question"] for r in rows if not wanted
                        or any(w in str(r.get("source_dataset", "")).lower() for w in wanted)])
    out = [o for o in out if o]
    mixed = [q for pair in zip(*out, strict=False) for q in pair] if len(out) == 2 else sum(out, [])
    return mixed[:limit] or ["标准配送要几天？", "退货期限是几天？", "仓库周六开门吗？"]


def _wrk(base: str, bodies: list[dict[str, Any]], seconds: int, connections: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        lua, data = Path(tmp) / "post.lua", Path(tmp) / "bodies.txt"
        lua.write_text(_WRK_LUA, encoding="utf-8")
        data.write_text("\n".join(json.dumps(b, ensure_ascii=False) for b in bodies) + "\n",
                        encoding="utf-8")
        out = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency",
                              "-s", str(lua), base, "--", str(data)],
                             capture_output=True, text=True, timeout=seconds + 60).stdout
    def ms(label: str) -> float | None:
        m = re.search(rf"^\s*{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not m:
            return None
        return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"tool": "wrk", "requests": int(total.group(1)) if total else 0,
            "rps": float(rps.group(1)) if rps else 0.0, "p50_ms": ms("50"),
            "p90_ms": ms("90"), "p99_ms": ms("99"),
            "errors": int(non2xx.group(1)) if non2xx else 0, "raw": out}


_HTTPX_CHILD = r"""
import asyncio, json, sys, time, httpx
base, n, conc, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
bodies = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
lat, errors = [], 0
async def worker(ids, client):
    global errors
    for i in ids:
        t = time.perf_counter()
        r = await client.post("/v1/query", json=bodies[i % len(bodies)])
        lat.append((time.perf_counter() - t) * 1000)
        errors += r.status_code != 200
async def main():
    limits = httpx.Limits(max_connections=conc, max_keepalive_connections=conc)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=120) as client:
        t0 = time.perf_counter()
        await asyncio.gather(*(worker(range(k, n, conc), client) for k in range(conc)))
        print(json.dumps({"elapsed": time.perf_counter() - t0, "lat": lat, "errors": errors}))
asyncio.run(main())
"""


def _httpx(base: str, bodies: list[dict[str, Any]], requests: int, connections: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "bodies.txt"
        data.write_text("\n".join(json.dumps(b, ensure_ascii=False) for b in bodies) + "\n",
                        encoding="utf-8")
        out = subprocess.run([sys.executable, "-c", _HTTPX_CHILD, base, str(requests),
                              str(connections), str(data)], capture_output=True, text=True,
                             timeout=3600, check=True).stdout
    res = json.loads(out)
    lat = sorted(res["lat"])
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else lat * 99
    return {"tool": "httpx", "requests": len(lat), "rps": len(lat) / res["elapsed"],
            "p50_ms": q[49], "p90_ms": q[89], "p99_ms": q[98], "errors": res["errors"]}


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its threads (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(pid: int, limit_s: float = 60.0) -> float:
    """Wait until server ``pid`` used under 5 % of a core over one second (its start-up warms
    indexes in background threads, e.g. the CC-CEDICT index, ~3 CPU-s, which would otherwise be
    counted in the first phase); at most ``limit_s``. Returns the seconds waited."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        c0 = cpu_seconds(pid)
        time.sleep(1.0)
        if cpu_seconds(pid) - c0 < 0.05:
            break
    return time.monotonic() - t0


def access_ms(log: Path, skip: int) -> tuple[list[float], int]:
    """The ``ms`` of the access-log lines in ``log`` after the first ``skip`` of them, and how
    many lines it holds now."""
    lines = [ln for ln in log.read_text(encoding="utf-8", errors="replace").splitlines()
             if ln.startswith('{"ts"')]
    return [float(json.loads(ln)["ms"]) for ln in lines[skip:]], len(lines)


def run_phase(name: str, base: str, bodies: list[dict[str, Any]], args: argparse.Namespace,
              requests: int, pid: int, connections: int | None = None,
              log: Path | None = None) -> dict[str, Any]:
    """One load phase with wrk (duration-bounded) or httpx (count-bounded); also the server's
    CPU time per request (how many requests one fully available core would serve) and, from
    its access log ``log``, its own time per request."""
    conns = connections or args.connections
    skip = access_ms(log, 0)[1] if log is not None else 0
    cpu0, t0 = cpu_seconds(pid), time.perf_counter()
    if shutil.which("wrk") and not args.httpx:
        res = _wrk(base, bodies, args.seconds, conns)
    else:
        res = _httpx(base, bodies, requests, conns)
    cpu, wall = cpu_seconds(pid) - cpu0, time.perf_counter() - t0
    p = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items() if k != "raw"}
    p["connections"] = conns
    p["load_avg"] = round(os.getloadavg()[0], 1)
    p["server_cpu_us_per_req"] = round(cpu / max(p["requests"], 1) * 1e6, 1)
    p["server_cpu_share"] = round(cpu / wall, 2)
    inside = ""
    if log is not None:
        time.sleep(0.5)  # the last lines reach the file
        ms = sorted(access_ms(log, skip)[0])
        if len(ms) >= 100:
            q = statistics.quantiles(ms, n=100)
            p["server_p50_ms"], p["server_p99_ms"] = round(q[49], 3), round(q[98], 3)
            inside = f"  | in the server p50 {p['server_p50_ms']} ms p99 {p['server_p99_ms']} ms"
    print(f"{name:<10} c{conns:<3} {p['tool']:<5} requests {p['requests']:>7}  {p['rps']:>8.1f} "
          f"req/s  p50 {p['p50_ms']} ms  p90 {p['p90_ms']} ms  p99 {p['p99_ms']} ms  errors "
          f"{p['errors']}{inside}  | server CPU {p['server_cpu_us_per_req']} us/req, used "
          f"{p['server_cpu_share']} core(s) → {1e6 / max(p['server_cpu_us_per_req'], 1):.0f} "
          f"req/s per free core  | load {p['load_avg']}", flush=True)
    if args.json:
        print("RESULT " + json.dumps({"phase": name, **p}), flush=True)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--index", type=Path, help="data dir to COPY (e.g. /work/data/eval-index)")
    ap.add_argument("--collection", default="docs")
    ap.add_argument("--embed-model", default=str(SHARED / "models" / "multilingual-e5-small"))
    ap.add_argument("--redis", default="", help="Redis URL for the answer cache (default: in-process)")
    ap.add_argument("--seconds", type=int, default=10, help="duration of each wrk phase")
    ap.add_argument("--requests", type=int, default=5000, help="cache-hit requests (httpx)")
    ap.add_argument("--rag-requests", type=int, default=300, help="RAG-path requests (httpx)")
    ap.add_argument("--connections", type=int, nargs="+", default=[16],
                    help="connections (several: each phase once per count)")
    ap.add_argument("--mixed", action="store_true",
                    help="without --index: add an English document to case 12's Chinese ones")
    ap.add_argument("--json", action="store_true", help="also one RESULT {json} line per phase")
    ap.add_argument("--questions", type=int, default=200, help="distinct RAG-path questions")
    ap.add_argument("--httpx", action="store_true", help="use the httpx generator even with wrk")
    ap.add_argument("--datasets", nargs="*", help="only questions of these source datasets")
    ap.add_argument("--skip-rag", action="store_true")
    args = ap.parse_args()
    model = args.embed_model if Path(args.embed_model, "model_int8.onnx").exists() else None
    with tempfile.TemporaryDirectory(prefix="lgbench-") as tmp:
        data = Path(tmp) / "data"
        if args.index:
            shutil.copytree(args.index, data, symlinks=True)
        proc, base, log = start_server(data, args.collection, model, args.redis or None)
        try:
            if not args.index:
                ingest_case12(base, args.mixed)
            print(f"server {base}  collection {args.collection!r}  model "
                  f"{'e5-small' if model else 'none (keyword-only)'}  cache "
                  f"{'redis' if args.redis else 'in-process'}  cores {os.cpu_count()}  "
                  f"load avg {os.getloadavg()[0]:.1f}")
            hit = {"question": eval_questions(1, args.datasets)[0] if args.index else "标准配送要几天？",
                   "collection": args.collection}
            first = httpx.post(f"{base}/v1/query", json=hit, timeout=120).json()
            again = httpx.post(f"{base}/v1/query", json=hit, timeout=120).json()
            assert again.get("cached"), f"second ask was not a cache hit: {again.get('route')}"
            print(f"cache-hit question: {hit['question'][:60]!r} (first path "
                  f"{first['route']['final_path']}); server idle after "
                  f"{wait_idle(proc.pid):.1f} s")
            import gateway  # the code the server runs (PYTHONPATH is passed on)

            print(f"gateway {gateway.__file__}")
            for conns in args.connections:
                run_phase("cache-hit", base, [hit], args, args.requests, proc.pid, conns, log)
            if not args.skip_rag:
                qs = (eval_questions(args.questions, args.datasets) if args.index
                      else eval_questions(0))
                bodies = [{"question": q, "collection": args.collection, "mode": "rag",
                           "use_cache": False} for q in qs]
                for b in bodies[:3]:
                    httpx.post(f"{base}/v1/query", json=b, timeout=120)
                for conns in args.connections:
                    run_phase("rag-path", base, bodies, args, args.rag_requests, proc.pid, conns,
                              log)
        finally:
            stop_process(proc)


if __name__ == "__main__":
    main()
