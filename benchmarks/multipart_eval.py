"""Multi-part and comparison questions (issue 16 item 3): the 34 questions of
``benchmarks/multipart/questions.jsonl`` (written by us over the dev documents, 15 Chinese and
19 English, 75 parts, 7 with three parts), each part with its gold place — a dev question's id
(``gold_of``: its document, page or section and answer are read from ../shared at run time,
never copied here) or a document and page — asked through the gateway's router; prints how
many parts were split out, cited, cited at the gold place and answered with the gold value, and
the latency of each three-part question against its slowest part asked alone.

Build a small collection of the documents the questions use (the 8 zh PDFs and the GitLab
handbook pages), then run:

    LOOPGATE_DATA_DIR=/tmp/mp LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
      .venv/bin/loopgate ingest ../shared/eval/zh/docs/pdf \\
        ../shared/eval/en/docs/gitlab-handbook/content --collection mp --root ../shared/eval
    LOOPGATE_DATA_DIR=/tmp/mp LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
      .venv/bin/python benchmarks/multipart_eval.py --collection mp [--reps 5] [--out F]
      [--fake-llm-delay S --mode rag]

``--fake-llm-delay S`` answers through a fake remote LLM that replies after S seconds (a real
HTTP server on loopback): the parts then wait instead of compute, which is what the plan's
concurrency can overlap on a machine whose cores are busy (its part figures are not answers).

A part is *right* when one of its own citations is at its gold place (``evals.gold``: the gold
page for PDFs, the gold document for GitLab pages, whose section is reported beside). Latency:
each three-part question and each of its parts alone, ``--reps`` times, answer cache off and the
embedder's query vectors and the LoopAgent's shared passage vectors forgotten before every ask
(the parts of a question share them; an earlier ask must not warm a later one); the p95 of the
whole question is compared with the p95 of the slowest part alone, pooled over the three-part
questions and per question (the pooled p95s come from different questions: the slowest
Chinese LoopAgent ones), with the load average at start and end. Without an LLM the parts are
CPU-bound: they overlap only as far as the cores other jobs leave (the one-minute load is
printed beside the figures).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "eval"


def _gold_index() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in ("en/questions.jsonl", "zh/questions_pdf.jsonl"):
        for line in (SHARED / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                out[q["id"]] = q
    return out


def load(path: Path) -> list[dict[str, Any]]:
    """The questions with each part's gold joined (``gold``: an ``evals.questions.Question``)."""
    from evals.questions import parse_question

    gold = _gold_index()
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        for i, part in enumerate(q["parts"]):
            if "gold_of" in part:
                g = dict(gold[part["gold_of"]])
            else:
                g = {"answer": part["answer"], "doc": part["doc"], "page": part.get("page"),
                     "pages": [part["page"]] if part.get("page") else [],
                     "source_dataset": "zh-pdf-authored" if q["lang"] == "zh" else "authored",
                     "lang": "zh-Hans" if q["lang"] == "zh" else "en"}
            g["id"], g["question"] = f"{q['id']}#{i + 1}", q["question"]
            if part.get("also"):  # other pages that hold the same fact (checked by reading them)
                g["evidence_pages"] = [*(g.get("evidence_pages") or []), *part["also"]]
            part["gold"] = parse_question(g)
        rows.append(q)
    return rows


async def run(rows: list[dict[str, Any]], collection: str, reps: int, mode: str = "auto",
              alone: bool = True) -> dict[str, Any]:
    """Ask every question (and, for the three-part ones, each part alone ``reps`` times)."""
    from evals.gold import location_hits_gold, section_hits_gold
    from evals.scoring import answer_contains
    from gateway.routing import QueryInput, decompose
    from gateway.settings import get_settings
    from gateway.wiring import build_components

    load0 = os.getloadavg()[0]  # the parts' overlap depends on the cores other jobs leave
    c = build_components(get_settings())
    if c.retriever is not None:
        c.retriever.warm_up()
    router = c.router
    records: list[dict[str, Any]] = []

    def cold() -> None:
        """Forget the vectors earlier asks left (the embedder's query cache and the LoopAgent's
        shared passage vectors), so every timed ask starts from the same state."""
        for emb in (c.embedder, getattr(c.agent, "embedder", None)):
            for name in ("_queries", "_vecs"):
                cache = getattr(emb, name, None)
                if cache is not None:
                    cache.clear()

    async def ask(text: str) -> tuple[Any, float]:
        cold()
        t0 = time.perf_counter()
        res = await router.ask(QueryInput(text, collection, mode, use_cache=False))  # type: ignore[arg-type]
        return res, (time.perf_counter() - t0) * 1000

    try:
        await ask("warm-up question")
        for q in rows:
            res, ms = await ask(q["question"])
            parts = res.parts or []
            split = len(parts) == len(q["parts"])
            for i, gp in enumerate(q["parts"]):
                gold = gp["gold"]
                if split:
                    p = parts[i]
                    cites = [res.citations[k] for k in p["citations"]]
                    answer, found = p["answer"], p["found"]
                else:  # not split as written: the whole answer's citations stand for each part
                    cites, answer, found = list(res.citations), res.answer, res.found
                records.append({
                    "id": gold.id, "lang": q["lang"], "kind": q["kind"], "split": split,
                    "part": parts[i]["question"] if split else q["question"],
                    "found": found, "cited": bool(cites),
                    "hit": any(location_hits_gold(gold, ct) for ct in cites),
                    "first_hit": bool(cites) and location_hits_gold(gold, cites[0]),
                    "section_hit": (any(section_hits_gold(gold, ct.path, ct.section_path)
                                        for ct in cites) if gold.section else None),
                    "answer_ok": answer_contains(gold.gold_answers, answer),
                    "paths": [f"{ct.path} p.{ct.page}" for ct in cites][:3],
                    "final_path": [p.get("final_path") for p in res.route["plan"]["parts"]][i]
                    if split else res.route.get("final_path"),
                    "latency_ms": round(ms, 1),
                })
        if alone:  # control: the same part questions asked one by one, not through a plan
            i = 0
            for q in rows:
                plan = decompose(q["question"])
                texts = list(plan.parts) if plan is not None else []
                for k, gp in enumerate(q["parts"]):
                    rec = records[i]
                    i += 1
                    if k >= len(texts):
                        rec["hit_alone"] = None
                        continue
                    res, _ = await ask(texts[k])
                    rec["hit_alone"] = any(location_hits_gold(gp["gold"], ct)
                                           for ct in res.citations)
        three = [q for q in rows if len(q["parts"]) == 3]
        lat: list[dict[str, Any]] = []
        for _ in range(reps):
            for q in three:
                plan = decompose(q["question"])
                assert plan is not None
                _, whole = await ask(q["question"])
                parts_ms = [(await ask(p))[1] for p in plan.parts]
                lat.append({"id": q["id"], "whole_ms": whole, "parts_ms": parts_ms,
                            "slowest_ms": max(parts_ms)})
    finally:
        await c.aclose()
    return {"parts": records, "latency": lat, "load": [load0, os.getloadavg()[0]]}


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def report(out: dict[str, Any], n_questions: int) -> None:
    """Print the figures."""
    recs = out["parts"]
    n = len(recs)

    def share(key: str, rs: list[dict[str, Any]]) -> str:
        k = sum(bool(r[key]) for r in rs)
        return f"{k}/{len(rs)} ({k / max(1, len(rs)):.1%})"

    print(f"{n_questions} questions, {n} parts")
    for key in ("split", "cited", "hit", "first_hit", "answer_ok"):
        line = f"  {key:10s} all {share(key, recs)}"
        for lang in ("zh", "en"):
            line += f"   {lang} {share(key, [r for r in recs if r['lang'] == lang])}"
        print(line)
    ctl = [r for r in recs if r.get("hit_alone") is not None]
    if ctl:
        print(f"  hit_alone  all {share('hit_alone', ctl)}   (the same part questions asked one "
              f"by one)")
    sec = [r for r in recs if r["section_hit"] is not None]
    if sec:
        print(f"  section_hit (GitLab parts) {share('section_hit', sec)}")
    lat = out["latency"]
    if lat:
        whole = [r["whole_ms"] for r in lat]
        slow = [r["slowest_ms"] for r in lat]
        ratios = [r["whole_ms"] / r["slowest_ms"] for r in lat]
        print(f"3-part questions: {len(lat)} runs; whole p50 {statistics.median(whole):.0f} ms "
              f"p95 {_p95(whole):.0f} ms; slowest part alone p50 {statistics.median(slow):.0f} "
              f"ms p95 {_p95(slow):.0f} ms; p95 ratio {_p95(whole) / _p95(slow):.2f}; "
              f"per-run ratio median {statistics.median(ratios):.2f}, "
              f"sum of parts alone p50 "
              f"{statistics.median([sum(r['parts_ms']) for r in lat]):.0f} ms")
        # the goal read per question: each 3-part question against its own slowest part
        per = {}
        for qid in dict.fromkeys(r["id"] for r in lat):
            rs = [r for r in lat if r["id"] == qid]
            per[qid] = _p95([r["whole_ms"] for r in rs]) / _p95([r["slowest_ms"] for r in rs])
        within = sum(v <= 1.5 for v in per.values())
        print(f"  per question p95 whole / p95 slowest part alone ({within}/{len(per)} <= 1.5): "
              + ", ".join(f"{k} {v:.2f}" for k, v in per.items()))
    if out.get("load"):
        print(f"load average (1 min) at start / end: {out['load'][0]:.1f} / {out['load'][1]:.1f}")
    for r in recs:
        if not r["hit"]:
            print("  MISS", r["id"], r["part"][:60], r["paths"][:2], r["final_path"])


def _fake_llm(delay_s: float) -> Any:
    """A real OpenAI-compatible server on loopback (``tests/loop/scripted_server.py``) whose every
    reply comes after ``delay_s`` — a remote LLM's wait, to time parts that wait rather than
    compute — configured through ``LOOPGATE_LLM_*`` before the settings are read. Its reply is
    not an answer (the parts' answers fall back to the extractive ones, flagged)."""
    sys.path.insert(0, str(HERE.parent / "tests" / "loop"))
    from scripted_server import ScriptedChatServer

    srv = ScriptedChatServer([{"content": "Not found in the given passages.", "delay": delay_s}])
    os.environ.update({"LOOPGATE_LLM_BASE_URL": srv.base_url, "LOOPGATE_LLM_MODEL": "fake",
                       "LOOPGATE_LLM_PROTOCOL": "json", "LOOPGATE_CROSS_LANGUAGE": "false"})
    return srv


def main() -> None:
    """Load, run, print (and save the records with ``--out``)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="mp")
    ap.add_argument("--questions", type=Path, default=HERE / "multipart" / "questions.jsonl")
    ap.add_argument("--reps", type=int, default=5, help="latency repetitions (0 = none)")
    ap.add_argument("--mode", default="auto", choices=["auto", "rag", "loop"])
    ap.add_argument("--no-alone", action="store_true", help="skip the one-by-one control")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--fake-llm-delay", type=float, default=None, metavar="S",
                    help="answer with a fake remote LLM that replies after S seconds (latency "
                         "only: its replies are not answers)")
    args = ap.parse_args()
    if not SHARED.exists():
        sys.exit(f"shared evaluation material not found at {SHARED}")
    rows = load(args.questions)
    if args.fake_llm_delay is None:
        out = asyncio.run(run(rows, args.collection, args.reps, args.mode, not args.no_alone))
    else:
        with _fake_llm(args.fake_llm_delay) as srv:
            out = asyncio.run(run(rows, args.collection, args.reps, args.mode, not args.no_alone))
            print(f"fake LLM: {len(srv.requests)} calls, each answered after "
                  f"{args.fake_llm_delay:g} s")
    if args.out:
        args.out.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    report(out, len(rows))


if __name__ == "__main__":
    main()
