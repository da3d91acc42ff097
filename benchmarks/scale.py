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
from pathlib import Path
from typing import Any

from _common import free_port, percentile, wait_healthy

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


def serve_figures(data: Path, env: dict[str, str], qs: list[str]) -> dict[str, float]:
    """RAG p50/p95 (server-side stage times) and the server's peak RSS, over HTTP."""
    import httpx

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", "from gateway.cli import main; main()",
                             "serve", "--port", str(port), "--log-level", "warning"],
                            env={**env, "LOOPGATE_DATA_DIR": str(data)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(base, proc):
            raise SystemExit("loopgate serve did not start")
        lat: list[float] = []
        with httpx.Client(base_url=base, timeout=60) as client:
            for i, q in enumerate(qs):
                body = {"question": q, "collection": "scale", "mode": "rag", "use_cache": False}
                route = client.post("/v1/query", json=body).json()["route"]
                ms = route["latency_ms"]
                if i >= 5:  # warm-up
                    lat.append(ms.get("retrieve", 0.0) + ms.get("rag_answer", 0.0))
        hwm = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{proc.pid}/status").read_text())
        return {"rag_p50_ms": percentile(lat, 0.5), "rag_p95_ms": percentile(lat, 0.95),
                "serve_rss_mb": int(hwm.group(1)) / 1024 if hwm else float("nan")}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


_SEARCH_CHILD = r"""
import json, sys, time
from gateway.wiring import get_embedder, get_tokenizer, open_store
from gateway.settings import get_settings
s = get_settings(); emb = get_embedder(s); tok = get_tokenizer(); store = open_store(s)
qs = json.loads(sys.stdin.read())
vecs = [(emb.embed_query(q), tok.sparse_query(q)) for q in qs]
lat = []
for v, sp in vecs:
    t = time.perf_counter()
    store.dense_search("scale", v, s.rag_prefetch_k)
    store.keyword_search("scale", sp, s.rag_prefetch_k)
    lat.append((time.perf_counter() - t) * 1000)
print(json.dumps({"lat": lat[5:], "chunks": store.count_chunks("scale")}))
store.close()
"""


def search_figures(data: Path, env: dict[str, str], qs: list[str]) -> dict[str, float]:
    """Dense + keyword index queries alone, in a fresh process on ``data``."""
    out = subprocess.run([sys.executable, "-c", _SEARCH_CHILD], input=json.dumps(qs),
                         env={**env, "LOOPGATE_DATA_DIR": str(data)}, capture_output=True,
                         text=True, check=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    return {"search_p50_ms": percentile(res["lat"], 0.5),
            "search_p95_ms": percentile(res["lat"], 0.95), "chunks": res["chunks"]}


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
    args = ap.parse_args()
    env = {**os.environ, "LOOPGATE_EMBED_MODEL_PATH": args.embed_model}
    env.pop("LOOPGATE_REDIS_URL", None)
    qs = questions(args.questions + 5)
    rows: list[dict[str, Any]] = []
    for m in args.multiples:
        folder, data = args.work / f"x{m}" / "docs", args.work / f"x{m}" / "data"
        shutil.rmtree(args.work / f"x{m}", ignore_errors=True)
        files = build_copies([s.resolve() for s in args.source], folder, m)
        run = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-c",
                              "from gateway.cli import main; main()", "ingest", str(folder),
                              "--collection", "scale", "--json"],
                             env={**env, "LOOPGATE_DATA_DIR": str(data)}, capture_output=True,
                             text=True)
        wall, rss = _time_v(run.stderr)
        report = json.loads(run.stdout) if run.stdout.strip() else {}
        row = {"multiple": m, "files": files, "pages": report.get("pages", 0),
               "ingest_s": wall, "ingest_rss_mb": rss / 1024, "disk_mb": _du(data) / 2**20,
               **search_figures(data, env, qs), **serve_figures(data, env, qs)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    chunks = [r["chunks"] for r in rows]
    print("| × | files | pages | chunks | ingest s | ingest RSS MB | disk MB | serve RSS MB | "
          "RAG p50 ms | RAG p95 ms | search p50 ms | search p95 ms |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['multiple']} | {r['files']} | {r['pages']} | {r['chunks']} | "
              f"{r['ingest_s']:.0f} | {r['ingest_rss_mb']:.0f} | {r['disk_mb']:.0f} | "
              f"{r['serve_rss_mb']:.0f} | {r['rag_p50_ms']:.1f} | {r['rag_p95_ms']:.1f} | "
              f"{r['search_p50_ms']:.2f} | {r['search_p95_ms']:.2f} |")
    keys = ("ingest_s", "disk_mb", "serve_rss_mb", "rag_p50_ms", "rag_p95_ms", "search_p50_ms")
    print("growth exponent against chunks: " + ", ".join(
        f"{k} {exponent(chunks, [r[k] for r in rows]):.2f}" for k in keys))


if __name__ == "__main__":
    main()
