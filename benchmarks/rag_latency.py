"""RAG-path latency over the development questions: p50 / p95 per stage, no LLM, model warm.

Pins the process to one CPU core (``os.sched_setaffinity``) and runs the embedder with one ONNX
thread, then answers every question of ../shared/eval/en/questions.jsonl and
zh/questions.jsonl (plus zh/questions_pdf.jsonl) with :class:`rag.pipeline.RagPipeline`
(hybrid retrieval, confidence, extractive answer with verified citations) against an ingested
collection, after a warm-up pass. Prints p50/p95/mean of the total and of each stage and the
share of time spent embedding the question versus searching the index — as wall time, and as
process CPU time (``cpu:`` rows: what one uncontended core would need, which matters on a
shared machine where wall time includes waiting for the CPU).

The retriever is the gateway's own (``gateway.wiring.build.build_retriever``: document resolution,
query expansion, page navigation). Stage rows are the pipeline's own wall-time figures:
``tokenize``, ``embed`` (a new question; the query cache is cold in the first pass), ``resolve``
(runs beside ``embed``: its figure is the wall time of that group), ``dense_search`` /
``keyword_search`` (beside each other; ``search`` their group), ``pages``, ``fuse`` (weighted RRF,
document step, adjacent-section merge and confidence) and ``extract`` (evidence units, scoring,
injection and code checks, citation verification). A last pass asks every question again
(``total, asked again``: the question vectors come from the query cache). ``--dump FILE`` writes
each question's top-k chunk ids, answer, citations and confidence; ``--compare A B`` says whether
two runs (before / after a change) answered alike.

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
from typing import Any

from _common import percentile

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _row(ans: Any) -> dict[str, Any]:
    """What must not change when the path gets faster: top-k, answer, citations, confidence."""
    return {
        "top_k": [c.chunk_id for it in ans.retrieval.items for c in it.chunks],
        "answer": ans.answer,
        "found": ans.found,
        "citations": [[c.chunk_id, c.page, list(c.lines), c.quote]
                      for c in (*ans.citations, *ans.related)],
        "confidence": round(ans.retrieval.confidence.value, 6),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="eval")
    ap.add_argument("--eval-dir", type=Path, default=REPO.parent / "shared" / "eval")
    ap.add_argument("--cores", type=int, default=1, help="CPU cores to pin to (default 1)")
    ap.add_argument("--repeat", type=int, default=1, help="timed passes over the questions")
    ap.add_argument("--limit", type=int, default=0, help="first N questions only (0 = all)")
    ap.add_argument("--fusion", choices=("client", "server"), default=None)
    ap.add_argument("--dump", type=Path, help="write each question's top-k, answer and "
                    "citations as JSON lines (compare two runs: --compare A B)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"),
                    help="compare two --dump files and exit")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    if args.compare:
        sys.exit(_compare(*args.compare))

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.cores]))
    os.environ.setdefault("LOOPGATE_EMBED_THREADS", str(args.cores))
    os.environ.setdefault("OMP_NUM_THREADS", str(args.cores))

    from dataclasses import replace

    from gateway.settings import get_settings
    from gateway.wiring import build_retriever, get_embedder, get_tokenizer, open_store
    from rag.embedder import FastEmbedEmbedder
    from rag.pipeline import RagPipeline

    settings = get_settings()
    embedder = get_embedder(settings)
    if embedder is None:
        sys.exit("set LOOPGATE_EMBED_MODEL_PATH: the benchmark measures the dense + keyword path")
    store = open_store(settings)
    # the gateway's own retriever: document resolution, query expansion, page navigation
    retriever = build_retriever(settings, store, get_tokenizer(), embedder)
    if args.fusion:
        retriever.config = replace(retriever.config, fusion=args.fusion)
    cfg = retriever.config
    rag = RagPipeline(retriever, answer_floor=settings.rag_answer_floor)
    # the same ONNX session without the query cache: the embedding cost of a new question
    same = {"model": embedder.model_name, "model_path": embedder.model_path,
            "threads": embedder.threads, "max_length": embedder.max_length}
    try:
        raw = FastEmbedEmbedder(**same, query_cache=0)
    except TypeError:  # a version without the query cache (a before/after comparison)
        raw = FastEmbedEmbedder(**same)
    questions = []
    for name in ("en/questions.jsonl", "zh/questions.jsonl", "zh/questions_pdf.jsonl"):
        path = args.eval_dir / name
        if path.exists():
            questions += [
                json.loads(x)["question"] for x in path.read_text("utf-8").splitlines() if x.strip()
            ]
    if args.limit:
        questions = questions[: args.limit]
    warm = [f"{q} (warm-up)" for q in questions[:20]]  # other texts: the query cache stays cold
    for q in warm:  # warm-up: model, engine caches, tokenizer dictionaries
        rag.run(q, args.collection)
    stages: dict[str, list[float]] = {}
    repeated: list[float] = []
    flagged = 0
    tok = get_tokenizer()
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    for rnd in range(args.repeat + 1):
        for q in questions:
            # CPU time of the process (all threads): unaffected by other processes on the core
            c0 = time.process_time()
            ans = rag.run(q, args.collection)
            c1 = time.process_time()
            if rnd == args.repeat:  # the last pass asks every question again: query cache
                repeated.append(ans.timings_ms["total"])
                continue
            if dump is not None and rnd == 0:
                dump.write(json.dumps({"question": q, **_row(ans)}, ensure_ascii=False) + "\n")
            vec = raw.embed_query(q)
            c2 = time.process_time()
            store.dense_search(args.collection, vec, cfg.prefetch_k)
            store.keyword_search(args.collection, tok.sparse_query(q), cfg.prefetch_k)
            c3 = time.process_time()
            stages.setdefault("cpu: total", []).append((c1 - c0) * 1000)
            stages.setdefault("cpu: embed", []).append((c2 - c1) * 1000)
            stages.setdefault("cpu: search", []).append((c3 - c2) * 1000)
            flagged += bool(ans.flags)
            t = ans.timings_ms
            row = {"total": t["total"], **{
                k.removeprefix("retrieve."): v for k, v in t.items()
                if k.startswith("retrieve.") and k != "retrieve.total"},
                "extract": t.get("extract", 0.0)}
            for k, v in row.items():
                stages.setdefault(k, []).append(v)
    if dump is not None:
        dump.close()
    stages["total, asked again (query cache)"] = repeated
    store.close()
    n = len(stages["total"])
    out = {
        k: {
            "p50": round(percentile(v, 0.5), 2),
            "p95": round(percentile(v, 0.95), 2),
            "mean": round(statistics.fmean(v), 2),
        }
        for k, v in stages.items() if v
    }
    total = sum(stages["total"])
    cpu_total = sum(stages["cpu: total"])
    share = {
        k: round(100 * sum(v) / (cpu_total if k.startswith("cpu") else total), 1)
        for k, v in stages.items()
        if k not in ("total", "cpu: total") and not k.startswith("total,")
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
                    "query_cache_hits": getattr(embedder, "query_cache_hits", None),
                },
                indent=2,
            )
        )
        return
    print(f"{n} questions, {args.cores} core(s), fusion={cfg.fusion}, flagged results: {flagged}"
          f"; wall-time stages (search = dense and keyword side by side, fuse = fusion, section"
          f" merge and confidence, extract = evidence scoring and citation check)")
    print("| stage | p50 ms | p95 ms | mean ms | share of total |")
    print("|---|---|---|---|---|")
    for k, v in out.items():
        print(f"| {k} | {v['p50']} | {v['p95']} | {v['mean']} | {share.get(k, 100.0)} % |")


def _compare(a: Path, b: Path) -> int:
    """Print how many questions differ between two ``--dump`` files; 0 when none does."""
    rows_a = [json.loads(x) for x in a.read_text("utf-8").splitlines() if x.strip()]
    rows_b = [json.loads(x) for x in b.read_text("utf-8").splitlines() if x.strip()]
    if [r["question"] for r in rows_a] != [r["question"] for r in rows_b]:
        print("the two dumps hold different questions")
        return 2
    diff = {k: sum(ra[k] != rb[k] for ra, rb in zip(rows_a, rows_b, strict=True))
            for k in ("top_k", "answer", "found", "citations", "confidence")}
    print(f"{len(rows_a)} questions; differing: " + ", ".join(f"{k} {v}" for k, v in diff.items()))
    return 1 if any(diff.values()) else 0


if __name__ == "__main__":
    main()
