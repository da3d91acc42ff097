"""Cost curve of the embedded engine: ingest time, on-disk size, serving memory and RAG latency
for 1×, 3×, 10× … a source corpus. Prints figures; it is not a test.

For each multiple ``m`` the script builds a folder of ``m`` copies of the source files — copy 0
is the original, copies 1… are synthetic: every text line (Markdown, text, HTML) or every PDF
page (PyMuPDF) gets a marker naming the copy, so each copy has fresh bytes (sha256) and fresh
text keys and nothing is skipped as a duplicate — and then, each in its own data directory:

1. ``loopgate ingest`` with default settings under ``/usr/bin/time -v`` (wall seconds, max RSS);
2. the size of the data directory on disk;
3. ``loopgate serve`` on it: ``--questions`` development questions with ``mode=rag`` and
   ``use_cache=false``; RAG latency p50/p95 from the route records' own stage timings
   (``retrieve`` + ``rag_answer``: no HTTP or client time) and the server's peak RSS (VmHWM);
4. hybrid search alone in a fresh process (the dense and keyword index queries of the client
   fusion, question vectors computed beforehand): p50/p95.

Then the growth exponent ``b`` of each figure against the chunk count (``figure ∝ chunks^b``,
least squares on the logs). Usage::

    .venv/bin/python benchmarks/scale.py --source ../shared/eval/zh/docs/pdf --multiples 1 3 10 \\
        --work /tmp/lg-scale

**Without re-embedding** (``--from-data DIR --from-collection NAME``): a whole-corpus 10x takes
hours of embedding on 2 cores, so the ``m``-times collection is built instead from an ingested
one (``benchmarks/scale_copies.py``: every point of the collection — chunks with their dense and
keyword vectors and payload, catalogue, page-head and directory records — written ``m`` times
under new document ids and paths, through the store's own API; each copy's dense vectors
perturbed by 2 % noise, its text and keyword vectors unchanged). Steps 2–4 as above; step 1 is
not run (no ingest figure: parse, chunk and embed are not measured at 3x / 10x), its place taken
by the time to write the copies. ``DIR`` is only read, and must be held by nobody (use a copy of
the index, ``cp -r``). ``--stages N`` adds ``benchmarks/rag_latency.py --json --limit N`` per
size (the pipeline's own per-stage wall and CPU figures, one pinned core)::

    cp -r /work/main/data-eval /tmp/P-eval1x
    .venv/bin/python benchmarks/scale.py --from-data /tmp/P-eval1x --from-collection eval \\
        --multiples 1 3 10 --work /tmp/P-scale --stages 200
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import free_port, percentile, stop_process, wait_healthy
from scale_copies import replicate

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".html", ".htm"}


def build_copies(sources: list[Path], folder: Path, m: int) -> int:
    """``m`` copies of every file under ``sources`` in ``folder``; returns the file count."""
    import pymupdf

    files = [(k, s, p) for k, s in enumerate(sources)
             for p in (sorted(s.rglob("*")) if s.is_dir() else [s])
             if p.is_file() and not p.name.startswith(".")]
    n = 0
    for c in range(m):
        for k, root, src in files:
            rel = src.relative_to(root) if root.is_dir() else Path(src.name)
            dst = folder / f"copy{c:02d}" / f"s{k}" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            suffix = src.suffix.lower()
            if c == 0:
                shutil.copyfile(src, dst)
            elif suffix in TEXT_SUFFIXES:
                text = src.read_text("utf-8", errors="replace")
                # a marker after the first line and on each paragraph: new text, same structure
                lines = [ln + (f" (copy {c})" if ln.strip() and not ln.startswith(("|", "<"))
                               else "") for ln in text.splitlines()]
                dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
            elif suffix == ".pdf":
                doc = pymupdf.open(src)
                for page in doc:  # mid-page, left margin: not taken for a running header
                    page.insert_text((8, page.rect.height / 2), f"copy {c} of this document",
                                     fontsize=4)
                doc.save(dst)
                doc.close()
            else:
                continue
            n += 1
    return n


def _time_v(err: str) -> tuple[float, int]:
    """Wall seconds and max RSS (KiB) from ``/usr/bin/time -v`` output."""
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", err)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    secs = 0.0
    if wall:
        secs = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    return secs, int(rss.group(1)) if rss else 0


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def questions(limit: int) -> list[str]:
    out: list[str] = []
    for name in ("zh/questions_pdf.jsonl", "zh/questions.jsonl", "en/questions.jsonl"):
        p = SHARED / "eval" / name
        if p.exists():
            out += [json.loads(x)["question"] for x in p.read_text("utf-8").splitlines()
                    if x.strip()]
    return out[:limit]


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (``/proc/<pid>/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_figures(data: Path, env: dict[str, str], qs: list[str]) -> dict[str, float]:
    """RAG p50/p95 (server-side stage times), the server's CPU per request (all of it: HTTP,
    routing, retrieval, answer) and its peak RSS, over HTTP."""
    import httpx

    port = free_port()
    log = data.parent / "serve.log"
    proc = subprocess.Popen([sys.executable, "-c", "from gateway.cli import main; main()",
                             "serve", "--port", str(port), "--log-level", "warning"],
                            env={**env, "LOOPGATE_DATA_DIR": str(data)},
                            stdout=subprocess.DEVNULL, stderr=log.open("w"))
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(base, proc, timeout_s=900):  # a loaded 2-core machine: minutes
            raise SystemExit(f"loopgate serve did not start (log: {log})")
        lat: list[float] = []
        errors = 0
        cpu0 = _cpu_s(proc.pid)
        with httpx.Client(base_url=base, timeout=60) as client:
            for i, q in enumerate(qs):
                body = {"question": q, "collection": "scale", "mode": "rag", "use_cache": False}
                resp = client.post("/v1/query", json=body)
                if resp.status_code != 200:  # counted and shown, not timed
                    errors += 1
                    print(f"HTTP {resp.status_code} on {q!r}: {resp.text[:200]}", file=sys.stderr)
                    continue
                ms = resp.json()["route"]["latency_ms"]
                if i >= 5:  # warm-up
                    lat.append(ms.get("retrieve", 0.0) + ms.get("rag_answer", 0.0))
        cpu_ms = (_cpu_s(proc.pid) - cpu0) * 1000 / max(1, len(qs))
        hwm = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{proc.pid}/status").read_text())
        return {"rag_p50_ms": percentile(lat, 0.5), "rag_p95_ms": percentile(lat, 0.95),
                "serve_rss_mb": int(hwm.group(1)) / 1024 if hwm else float("nan"),
                "serve_cpu_ms": cpu_ms, "http_errors": errors}
    finally:
        stop_process(proc)


_SEARCH_CHILD = r"""
import json, sys, time
from gateway.wiring import get_embedder, get_tokenizer, open_store
from gateway.settings import get_settings
s = get_settings(); emb = get_embedder(s); tok = get_tokenizer(); store = open_store(s)
qs = json.loads(sys.stdin.read())
vecs = [(emb.embed_query(q), tok.sparse_query(q)) for q in qs]
lat, cpu = [], []
for v, sp in vecs:
    t, c = time.perf_counter(), time.process_time()
    store.dense_search("scale", v, s.rag_prefetch_k)
    store.keyword_search("scale", sp, s.rag_prefetch_k)
    lat.append((time.perf_counter() - t) * 1000)
    cpu.append((time.process_time() - c) * 1000)
print(json.dumps({"lat": lat[5:], "cpu": cpu[5:], "chunks": store.count_chunks("scale")}))
store.close()
"""


def search_figures(data: Path, env: dict[str, str], qs: list[str]) -> dict[str, float]:
    """Dense + keyword index queries alone, in a fresh process on ``data``."""
    out = subprocess.run([sys.executable, "-c", _SEARCH_CHILD], input=json.dumps(qs),
                         env={**env, "LOOPGATE_DATA_DIR": str(data)}, capture_output=True,
                         text=True, check=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    return {"search_p50_ms": percentile(res["lat"], 0.5),
            "search_p95_ms": percentile(res["lat"], 0.95),
            "search_cpu_p50_ms": percentile(res["cpu"], 0.5), "chunks": res["chunks"]}


def stage_figures(data: Path, env: dict[str, str], limit: int) -> dict[str, Any]:
    """``benchmarks/rag_latency.py --json`` on the ``scale`` collection of ``data``: per-stage
    wall and CPU p50 / p95 of the first ``limit`` dev questions, one pinned core."""
    out = subprocess.run([sys.executable, str(Path(__file__).with_name("rag_latency.py")),
                          "--collection", "scale", "--limit", str(limit), "--json"],
                         env={**env, "LOOPGATE_DATA_DIR": str(data)}, capture_output=True,
                         text=True, check=True).stdout
    res: dict[str, Any] = json.loads(out[out.index("{"):])
    return res


def print_stages(rows: list[dict[str, Any]]) -> None:
    """One table: each stage's p50 / p95 (ms) per size, from :func:`stage_figures`."""
    names = list(rows[0]["stages"]["stages_ms"])
    print("| stage | " + " | ".join(f"{r['multiple']}x p50 / p95" for r in rows) + " |")
    print("|---|" + "---|" * len(rows))
    for k in names:
        cells = [r["stages"]["stages_ms"].get(k, {}) for r in rows]
        print(f"| {k} | " + " | ".join(f"{c.get('p50', math.nan)} / {c.get('p95', math.nan)}"
                                       for c in cells) + " |")


def exponent(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(y) on log(x)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(pts) < 2:
        return float("nan")
    mx = statistics.fmean(p[0] for p in pts)
    my = statistics.fmean(p[1] for p in pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / den if den else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", type=Path, nargs="+",
                    default=[SHARED / "eval" / "en" / "docs", SHARED / "eval" / "zh" / "docs"])
    ap.add_argument("--multiples", type=int, nargs="+", default=[1, 3, 10])
    ap.add_argument("--work", type=Path, required=True, help="scratch folder (copies, data)")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--embed-model", default=str(SHARED / "models" / "multilingual-e5-small"))
    ap.add_argument("--from-data", type=Path, help="build each size from this data directory's "
                    "collection (benchmarks/scale_copies.py) instead of ingesting --source")
    ap.add_argument("--from-collection", default="eval")
    ap.add_argument("--stages", type=int, default=0, metavar="N",
                    help="also run rag_latency.py on the first N dev questions per size")
    args = ap.parse_args()
    env = {**os.environ, "LOOPGATE_EMBED_MODEL_PATH": args.embed_model}
    env.pop("LOOPGATE_REDIS_URL", None)
    qs = questions(args.questions + 5)
    rows: list[dict[str, Any]] = []
    for m in args.multiples:
        folder, data = args.work / f"x{m}" / "docs", args.work / f"x{m}" / "data"
        shutil.rmtree(args.work / f"x{m}", ignore_errors=True)
        load0 = os.getloadavg()[0]
        if args.from_data:
            t0 = time.perf_counter()
            built = replicate(args.from_data, args.from_collection, data, m)
            row: dict[str, Any] = {"multiple": m, "files": 0, "pages": 0, "ingest_s": math.nan,
                                   "ingest_rss_mb": math.nan,
                                   "copy_s": time.perf_counter() - t0, **built}
        else:
            files = build_copies([s.resolve() for s in args.source], folder, m)
            run = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c",
                                  "from gateway.cli import main; main()", "ingest", str(folder),
                                  "--collection", "scale", "--json"],
                                 env={**env, "LOOPGATE_DATA_DIR": str(data)},
                                 capture_output=True, text=True)
            wall, rss = _time_v(run.stderr)
            report = json.loads(run.stdout) if run.stdout.strip() else {}
            row = {"multiple": m, "files": files, "pages": report.get("pages", 0),
                   "ingest_s": wall, "ingest_rss_mb": rss / 1024}
        row |= {"disk_mb": _du(data) / 2**20, **search_figures(data, env, qs),
                **serve_figures(data, env, qs)}
        if args.stages:
            row["stages"] = stage_figures(data, env, args.stages)
        row["load"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
        rows.append(row)
        print(json.dumps(row), flush=True)
    chunks = [r["chunks"] for r in rows]
    def num(x: float, fmt: str) -> str:
        return "not run" if math.isnan(x) else format(x, fmt)

    print("| × | files | pages | chunks | ingest s | ingest RSS MB | disk MB | serve RSS MB | "
          "RAG p50 ms | RAG p95 ms | server CPU ms/query | search p50 ms | search p95 ms | "
          "search CPU p50 ms | load 1 min |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['multiple']} | {r['files'] or '-'} | {r['pages'] or '-'} | {r['chunks']} | "
              f"{num(r['ingest_s'], '.0f')} | {num(r['ingest_rss_mb'], '.0f')} | "
              f"{r['disk_mb']:.0f} | {r['serve_rss_mb']:.0f} | {r['rag_p50_ms']:.1f} | "
              f"{r['rag_p95_ms']:.1f} | {r['serve_cpu_ms']:.1f} | {r['search_p50_ms']:.2f} | "
              f"{r['search_p95_ms']:.2f} | {r['search_cpu_p50_ms']:.2f} | "
              f"{r['load'][0]}–{r['load'][1]} |")
    if args.from_data:
        print("copies written in " + ", ".join(f"{r['copy_s']:.0f} s" for r in rows)
              + " (no ingest: parse, chunk and embed not measured)")
    if args.stages:
        print_stages(rows)
    keys = ("ingest_s", "disk_mb", "serve_rss_mb", "rag_p50_ms", "rag_p95_ms", "serve_cpu_ms",
            "search_p50_ms", "search_p95_ms", "search_cpu_p50_ms")
    print("growth exponent against chunks: " + ", ".join(
        f"{k} {exponent(chunks, [r[k] for r in rows]):.2f}" for k in keys
        if not any(math.isnan(r[k]) for r in rows)))


if __name__ == "__main__":
    main()
