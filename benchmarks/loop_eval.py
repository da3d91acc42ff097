"""LoopAgent evaluation on the development questions (issue 5 acceptance).

Per dataset: evidence hit of the verified citations (a verified citation at the gold location,
``evals.gold.location_hits_gold`` — the team's one definition), "not found" rate on
questions tagged ``unanswerable``, answer-contains rate (``evals.scoring``), mean steps,
and with an LLM: mean LLM calls and tokens per question and the share of loops ended by
``answer`` / a budget / ``fallback_to_rag``. Zero unverifiable citations is re-checked here:
every printed citation's quote is verified again against its chunk.

``--search hybrid`` runs the LoopAgent as the gateway's mode ``loop`` does: the gateway's
retriever (``gateway.wiring.factories.build_retriever``: document resolution, query expansion,
page navigation), the e5 unit embedder of the offline policy's dense re-rank, and each question
started from the RAG retrieval's top 5 hits with the documents it resolved as the filter
(``--no-seeds``: without them). Before, the benchmark gave the offline policy none of these.

usage:
  .venv/bin/python benchmarks/loop_eval.py --data-dir /work/data/<me>-eval --collection eval \
      ../shared/eval/zh/questions_pdf.jsonl [--llm http://127.0.0.1:8089/v1] [--limit N] \
      [--search hybrid|keyword] [--ids a,b] [--out results.jsonl [--resume]] \
      [--protocol json|read|pick|json_actions|tools|auto] [--versus offline.jsonl] [--no-seeds]
  .venv/bin/python benchmarks/loop_eval.py --data-dir D --out results.jsonl --report [--versus F]
  .venv/bin/python benchmarks/loop_eval.py --build DIR --data-dir D --collection C  # keyword-only
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from corpus.citations import make_citation
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from evals.gold import location_hits_gold
from evals.questions import load_questions
from evals.scoring import answer_contains
from loop import LLMConfig, LoopAgent, LoopConfig, StoreKeywordSearch


def _search(kind: str, store: QdrantChunkStore, tok: Tokenizer, data_dir: Path,
            model_path: str | None) -> tuple[Any, dict[str, Any]]:
    """The search backend and the LoopAgent's other arguments the gateway gives it
    (``gateway.wiring.build.assemble``): with ``hybrid``, the e5 unit embedder the offline
    policy re-ranks evidence with and the expander's phrases; ``keyword``: neither."""
    if kind == "keyword":
        return StoreKeywordSearch(store, tok.sparse_query), {}
    from gateway.engines import RetrieverSearch
    from gateway.settings import Settings
    from gateway.wiring.factories import build_retriever

    settings = Settings(data_dir=data_dir, embed_model_path=model_path)
    from gateway.wiring import get_embedder  # the gateway's own embedder factory

    emb = get_embedder(settings)
    emb = emb[0] if isinstance(emb, tuple) else emb
    r = build_retriever(settings, store, tok, emb)  # resolver, expander, pages: the gateway's
    r.warm_up()
    from gateway.engines.unit_embedder import SharedUnitEmbedder
    from gateway.wiring.build import UNIT_EMBED_BATCH

    unit = SharedUnitEmbedder(emb.with_batch_size(UNIT_EMBED_BATCH)) if emb is not None else None
    return RetrieverSearch(r), {
        "embedder": unit, "phrases": r.expander.phrases if r.expander is not None else None,
        "retriever": r}


async def _seeds(retriever: Any, question: str, collection: str) -> dict[str, Any]:
    """What the router gives the LoopAgent in mode ``loop`` (``gateway.routing.stages``): the
    RAG retrieval's hits (top 5, ``rag_top_k``) as candidates and the documents it resolved
    the question to as the filter every search of the loop runs in."""
    from gateway.engines.rag_engine import to_hits

    r = await retriever.run_async(question, collection, top_k=5)
    return {"candidates": to_hits(r), "flt": r.resolved_filter}


class _Docs:
    def __init__(self, store: QdrantChunkStore) -> None:
        from corpus.catalogue import Catalogue

        self.cat = Catalogue(store)

    def list_documents(self, collection: str) -> list[Any]:
        return list(self.cat.documents(collection))


async def _run(args: argparse.Namespace) -> None:
    tok = Tokenizer()
    tok.warm_up()
    store = QdrantChunkStore.embedded(Path(args.data_dir) / "qdrant")
    search, extra = _search(args.search, store, tok, Path(args.data_dir), args.embed_model_path)
    llm = LLMConfig(base_url=args.llm, model="local", protocol=args.protocol,
                    timeout_s=args.llm_timeout, max_tokens=256) if args.llm else None
    deadline = 120.0 if args.deadline == "auto" else float(args.deadline)
    if llm is not None and args.deadline == "auto":  # sized from the model's measured speed
        from loop.llm_client import AsyncLLMClient
        from loop.llm_speed import fit_budgets, probe_speed

        probe = AsyncLLMClient(llm)
        try:
            speed = await probe_speed(probe)
        finally:
            await probe.aclose()
        fit = fit_budgets(speed)
        llm = dataclasses.replace(llm, timeout_s=fit.call_timeout_s)
        deadline = fit.deadline_s
        print(f"speed probe: prompt {speed.prompt_tps} tok/s, generation {speed.gen_tps} tok/s "
              f"-> call timeout {fit.call_timeout_s} s, deadline {fit.deadline_s} s", flush=True)
    cfg = LoopConfig(max_loops=args.max_loops, deadline_s=deadline, token_budget=args.tokens,
                     min_coverage=args.min_coverage)
    retriever = extra.pop("retriever", None)
    retriever = retriever if args.seeds else None
    agent = LoopAgent(store, search, llm=llm, config=cfg, key_terms=tok, documents=_Docs(store),
                      **extra)
    qs = load_questions(args.questions, limit=args.limit, ids=_ids(args.ids))
    rows: list[dict[str, Any]] = []
    if args.resume and args.out and Path(args.out).exists():  # noqa: ASYNC240 - resume by id
        text = Path(args.out).read_text(encoding="utf-8")  # noqa: ASYNC240
        rows = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
    done = {r["id"] for r in rows}
    out = open(args.out, "a" if args.resume else "w", encoding="utf-8") if args.out else None  # noqa: ASYNC230, SIM115
    for q in qs:
        if q.id in done:
            continue
        hist = [{"role": "user", "content": q.context}] if q.context else []
        date = next((t.split(":", 1)[1] for t in q.tags if t.startswith("assumes_current_date:")),
                    None)
        t0 = time.perf_counter()
        seeds = await _seeds(retriever, q.question, args.collection) if retriever else {}
        res = await agent.run_async(q.question, args.collection, history=hist, current_date=date,
                                    **seeds)
        ms = (time.perf_counter() - t0) * 1000
        chunks = {c.chunk_id: c for c in store.get_chunks(args.collection,
                                                          [c.chunk_id for c in res.citations])}
        unverifiable = sum(make_citation(chunks[c.chunk_id], c.quote) is None
                           if c.chunk_id in chunks else 1 for c in res.citations)
        row: dict[str, Any] = {
               "id": q.id, "dataset": q.source_dataset, "unanswerable": "unanswerable" in q.tags,
               "found": res.found, "hit": any(location_hits_gold(q, c) for c in res.citations),
               "hit1": bool(res.citations) and location_hits_gold(q, res.citations[0]),
               "contains": answer_contains((q.answer, *q.answer_aliases), res.answer)
               if res.found else False,
               "steps": sum(1 for s in res.steps if s.kind == "tool"), "stop": res.stop_reason,
               "llm_calls": res.llm_calls, "tokens": res.tokens, "ms": round(ms),
               "prompt_tokens": res.prompt_tokens, "completion_tokens": res.completion_tokens,
               "invalid": res.invalid_actions, "brain": res.brain, "guard": res.guard,
               "unverifiable": unverifiable, "dropped": res.dropped_citations,
               "answer": res.answer[:200], "citations": [c.to_dict() for c in res.citations],
               "llm_notes": [s.note[:200] for s in res.steps if s.kind == "llm"]}
        rows.append(row)
        if out:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
        if args.verbose:
            print(q.id, row["hit"], row["found"], row["stop"], row["steps"], row["answer"][:60])
    await agent.aclose()
    store.close()
    _report(rows, bool(args.llm))
    if args.versus:
        _versus(rows, args.versus)


def _versus(rows: list[dict[str, Any]], path: str) -> None:
    """Per-question wins and losses of ``rows`` against another run's rows (``path``, e.g. the
    offline policy's) on the same ids: evidence hit and answer-contains, answerable only."""
    text = Path(path).read_text(encoding="utf-8")
    other = {r["id"]: r for r in (json.loads(ln) for ln in text.splitlines() if ln.strip())}
    both = [(r, other[r["id"]]) for r in rows if r["id"] in other and not r["unanswerable"]]
    for key in ("hit", "contains"):
        won = [r["id"] for r, o in both if r[key] and not o[key]]
        lost = [r["id"] for r, o in both if o[key] and not r[key]]
        mine, theirs = sum(r[key] for r, _ in both), sum(o[key] for _, o in both)
        print(f"{key} vs {Path(path).name} on {len(both)} answerable ids: {mine} vs {theirs}; "
              f"won {len(won)} {won}; lost {len(lost)} of the {theirs} it got right {lost}")


def _ids(spec: str | None) -> list[str]:
    """``--ids``: comma-separated ids, or ``@FILE`` with one id a line (``#`` comments), such
    as ``benchmarks/loop_eval_en_ids.txt`` (the fixed English sample)."""
    if not spec:
        return []
    if spec.startswith("@"):
        lines = Path(spec[1:]).read_text(encoding="utf-8").splitlines()
        return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]
    return [i for i in spec.split(",") if i]


def _report(rows: list[dict[str, Any]], llm: bool) -> None:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["dataset"]].append(r)
    by["ALL"] = rows
    head = "dataset | n | evidence hit % | ans-contains % | not-found on unanswerable | mean steps"
    head += (" | LLM calls | tokens | end answer/budget/fallback % | mean s | prompt tokens"
             " | p50/p95 s | invalid per 100 calls | LLM answer kept") if llm else " | mean ms"
    print(head)
    for name, rs in by.items():
        ans = [r for r in rs if not r["unanswerable"]]
        una = [r for r in rs if r["unanswerable"]]
        hit = 100 * sum(r["hit"] for r in ans) / max(1, len(ans))
        cont = 100 * sum(r["contains"] for r in ans) / max(1, len(ans))
        nf = f"{sum(not r['found'] for r in una)}/{len(una)}" if una else "-"
        steps = statistics.mean(r["steps"] for r in rs)
        line = f"{name} | {len(rs)} | {hit:.1f} | {cont:.1f} | {nf} | {steps:.2f}"
        if llm:
            ends = [r["stop"] for r in rs]
            share = "/".join(f"{100 * sum(e in grp for e in ends) / len(ends):.0f}" for grp in (
                ("answer",), ("max_loops", "token_budget", "deadline", "repeated_calls",
                              "no_action", "llm_error"), ("fallback_to_rag",)))
            secs = sorted(r["ms"] / 1000 for r in rs)
            calls = sum(r["llm_calls"] for r in rs)
            p95 = secs[min(len(secs) - 1, int(0.95 * len(secs)))]
            line += (f" | {statistics.mean(r['llm_calls'] for r in rs):.2f} | "
                     f"{statistics.mean(r['tokens'] for r in rs):.0f} | {share} | "
                     f"{statistics.mean(secs):.1f} | "
                     f"{statistics.mean(r.get('prompt_tokens', 0) for r in rs):.0f} | "
                     f"{secs[len(secs) // 2]:.1f}/{p95:.1f}"
                     f" | {100 * sum(r.get('invalid', 0) for r in rs) / max(1, calls):.1f} | "
                     f"{sum(r.get('brain', '').startswith('llm:') for r in rs)}/{len(rs)}")
        else:
            line += f" | {statistics.mean(r['ms'] for r in rs):.0f}"
        print(line)
    print(f"unverifiable citations in output: {sum(r['unverifiable'] for r in rows)}; "
          f"dropped (model citations refused): {sum(r['dropped'] for r in rows)}")


def _build(args: argparse.Namespace) -> None:
    from corpus.ingest import Ingestor

    tok = Tokenizer()
    store = QdrantChunkStore.embedded(Path(args.data_dir) / "qdrant")
    rep = Ingestor(store, tok, None, workers=1).ingest_paths([args.build], args.collection,
                                                            root=args.root or None)
    print(rep.counts)
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description="LoopAgent evaluation (issue 5)")
    ap.add_argument("questions", nargs="*")
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--collection", default="eval")
    ap.add_argument("--build", help="ingest this folder keyword-only first, then exit")
    ap.add_argument("--root", help="ingest root (paths are stored relative to it)")
    ap.add_argument("--search", choices=["hybrid", "keyword"], default="keyword")
    ap.add_argument("--embed-model-path", default=str(
        Path(__file__).resolve().parents[2] / "shared" / "models" / "multilingual-e5-small"))
    ap.add_argument("--llm", help="OpenAI-compatible base URL; absent = offline policy")
    ap.add_argument("--protocol", default="json",
                    choices=["auto", "tools", "json", "read", "pick", "json_actions"])
    ap.add_argument("--resume", action="store_true", help="keep --out rows, run the other ids")
    ap.add_argument("--no-seeds", dest="seeds", action="store_false",
                    help="hybrid: do not start from the RAG retrieval's hits and resolved "
                    "documents (the router gives both to the LoopAgent in mode loop)")
    ap.add_argument("--llm-timeout", type=float, default=120.0)
    ap.add_argument("--max-loops", type=int, default=6)
    ap.add_argument("--deadline", default="120",
                    help="seconds per question, or 'auto': sized from a speed probe of --llm")
    ap.add_argument("--tokens", type=int, default=24000)
    ap.add_argument("--min-coverage", type=float, default=LoopConfig().min_coverage)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--ids", help="a,b,c or @FILE (one id a line), e.g. "
                    "@benchmarks/loop_eval_en_ids.txt")
    ap.add_argument("--out")
    ap.add_argument("--versus", help="another run's --out file: per-question wins / losses")
    ap.add_argument("--report", action="store_true", help="print the report of --out, no run")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.build:
        _build(args)
    elif args.report:
        text = Path(args.out).read_text(encoding="utf-8")
        rows = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
        _report(rows, any(r["llm_calls"] for r in rows))
        if args.versus:
            _versus(rows, args.versus)
    else:
        asyncio.run(_run(args))


if __name__ == "__main__":
    main()
