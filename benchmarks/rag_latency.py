"""RAG-path latency over the development questions: p50 / p95 per stage, no LLM, model warm.

Pins the process to one CPU core (``os.sched_setaffinity``) and runs the embedder with one ONNX
thread, then answers every question of ../shared/eval/en/questions.jsonl and
zh/questions.jsonl (plus zh/questions_pdf.jsonl) with :class:`rag.pipeline.RagPipeline`
(hybrid retrieval, confidence, extractive answer with verified citations) against an ingested
collection, after a warm-up pass. Prints p50/p95/mean of the total and of each stage and the
share of time spent embedding the question versus searching the index — as wall time, and as
process CPU time (``cpu:`` rows: what one uncontended core would need, which matters on a
shared machine where wall time includes waiting for the CPU).

Usage (on a COPY of the evaluation index — the embedded engine is single-process)::

    cp -a /work/data/eval-index /work/data/c-bench
    LOOPGATE_DATA_DIR=/work/data/c-bench \\
    LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
        .venv/bin/python benchmarks/rag_latency.py --collection eval
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="eval")
    ap.add_argument("--eval-dir", type=Path, default=REPO.parent / "shared" / "eval")
    ap.add_argument("--cores", type=int, default=1, help="CPU cores to pin to (default 1)")
    ap.add_argument("--repeat", type=int, default=1, help="timed passes over the questions")
    ap.add_argument("--fusion", choices=("client", "server"), default=None)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.cores]))
    os.environ.setdefault("LOOPGATE_EMBED_THREADS", str(args.cores))
    os.environ.setdefault("OMP_NUM_THREADS", str(args.cores))

    from dataclasses import replace

    from gateway.assembly import retrieval_config
    from gateway.components import get_embedder, get_tokenizer, open_store
    from gateway.settings import get_settings
    from rag.pipeline import RagPipeline
    from rag.retriever import HybridRetriever

    settings = get_settings()
    embedder = get_embedder(settings)
    if embedder is None:
        sys.exit("set LOOPGATE_EMBED_MODEL_PATH: the benchmark measures the dense + keyword path")
    cfg = retrieval_config(settings)
    if args.fusion:
        cfg = replace(cfg, fusion=args.fusion)
    store = open_store(settings)
    rag = RagPipeline(HybridRetriever(store, get_tokenizer(), embedder, config=cfg))
    questions = []
    for name in ("en/questions.jsonl", "zh/questions.jsonl", "zh/questions_pdf.jsonl"):
        path = args.eval_dir / name
        if path.exists():
            questions += [
                json.loads(x)["question"] for x in path.read_text("utf-8").splitlines() if x.strip()
            ]
    for q in questions[:20]:  # warm-up: model, engine caches, tokenizer dictionaries
        rag.run(q, args.collection)
    stages: dict[str, list[float]] = {}
    flagged = 0
    tok = get_tokenizer()
    for _ in range(args.repeat):
        for q in questions:
            # CPU time of the process (all threads): unaffected by other processes on the core
            c0 = time.process_time()
            ans = rag.run(q, args.collection)
            c1 = time.process_time()
            vec = embedder.embed_query(q)
            c2 = time.process_time()
            store.dense_search(args.collection, vec, cfg.prefetch_k)
            store.keyword_search(args.collection, tok.sparse_query(q), cfg.prefetch_k)
            c3 = time.process_time()
            stages.setdefault("cpu: total", []).append((c1 - c0) * 1000)
            stages.setdefault("cpu: embed", []).append((c2 - c1) * 1000)
            stages.setdefault("cpu: search", []).append((c3 - c2) * 1000)
            flagged += bool(ans.flags)
            t = ans.timings_ms
            row = {
                "total": t["total"],
                "embed": t.get("retrieve.embed", 0.0),
                "search": t.get("retrieve.search", 0.0),
                "tokenize": t.get("retrieve.tokenize", 0.0),
                "fuse+confidence": t.get("retrieve.fuse", 0.0),
                "extract": t.get("extract", 0.0),
            }
            for k, v in row.items():
                stages.setdefault(k, []).append(v)
    store.close()
    n = len(stages["total"])
    out = {
        k: {
            "p50": round(_pct(v, 0.5), 2),
            "p95": round(_pct(v, 0.95), 2),
            "mean": round(statistics.fmean(v), 2),
        }
        for k, v in stages.items()
    }
    total = sum(stages["total"])
    cpu_total = sum(stages["cpu: total"])
    share = {
        k: round(100 * sum(v) / (cpu_total if k.startswith("cpu") else total), 1)
        for k, v in stages.items()
        if k not in ("total", "cpu: total")
    }
    if args.json:
        print(
            json.dumps(
                {
                    "n": n,
                    "stages_ms": out,
                    "share_pct": share,
                    "flagged": flagged,
                    "fusion": cfg.fusion,
                    "cores": args.cores,
                },
                indent=2,
            )
        )
        return
    print(f"{n} questions, {args.cores} core(s), fusion={cfg.fusion}, flagged results: {flagged}")
    print("| stage | p50 ms | p95 ms | mean ms | share of total |")
    print("|---|---|---|---|---|")
    for k, v in out.items():
        print(f"| {k} | {v['p50']} | {v['p95']} | {v['mean']} | {share.get(k, 100.0)} % |")


if __name__ == "__main__":
    main()
