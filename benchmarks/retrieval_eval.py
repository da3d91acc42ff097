"""Evidence hit@k of dense-only, keyword-only and hybrid retrieval on the development questions.

Runs against an ingested collection (the full evaluation index: all of ../shared/eval/en/docs and
zh/docs in one collection). Scores with ``evals.gold`` (gold page for PDFs, gold section for
DRCD, gold document for CMRC2018 and GitLab) over the questions the naive baseline scored
(``../shared/eval/baseline/B3.jsonl`` rows with a ``hit@5``), and prints per dataset hit@1, hit@5
and doc@5 for each mode beside the baseline's B3 hit@5, plus confidence AUROC per language.

Each question's dense and keyword lists are fetched once (``prefetch`` deep); every mode and every
fusion setting of ``--sweep`` is then computed in-process with the same ``rag.fusion.fuse`` the
retriever uses. ``--check`` also runs ``HybridRetriever.run`` per question and counts any
disagreement. ``--out`` writes per-question records that ``loopgate calibrate`` reads.

Usage::

    LOOPGATE_DATA_DIR=/work/data/c-eval \\
    LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
        .venv/bin/python benchmarks/retrieval_eval.py --collection eval --out /tmp/rag-eval.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpus.types import SearchHit  # noqa: E402
from evals.gold import doc_matches, location_hits_gold  # noqa: E402
from evals.questions import Question, load_questions  # noqa: E402
from rag.confidence import LogisticConfidence, auroc, compute_features  # noqa: E402
from rag.fusion import fuse  # noqa: E402

DATASETS = [
    "FinanceBench",
    "MMLongBench-Doc",
    "deep-rag-benchmark (GitLab Handbook)",
    "DRCD",
    "CMRC2018",
    "zh-pdf-authored",
]


def _lang(q: Question) -> str:
    return "en" if q.lang == "en" else "zh"


def load_scored(eval_dir: Path, with_pdf: bool) -> tuple[list[Question], dict[str, dict[str, Any]]]:
    """Questions the baseline scored (B3 rows with hit@5), and the B3 rows by id."""
    files = [eval_dir / "en/questions.jsonl", eval_dir / "zh/questions.jsonl"]
    if with_pdf:
        files.append(eval_dir / "zh/questions_pdf.jsonl")
    base = {}
    for line in (eval_dir / "baseline/B3.jsonl").read_text("utf-8").splitlines():
        row = json.loads(line)
        if row.get("hit@5") is not None:
            base[row["id"]] = row
    qs = [q for q in load_questions(files) if q.id in base]
    return qs, base


def fetch(args: argparse.Namespace, qs: list[Question]) -> tuple[list[dict[str, Any]], Any]:
    """Dense and keyword lists per question (plus timings), through the real store."""
    from corpus.tokenizer import Tokenizer
    from gateway.wiring import retrieval_config
    from gateway.wiring import get_embedder, open_store
    from gateway.settings import get_settings
    from rag.retriever import HybridRetriever

    settings = get_settings()
    store = open_store(settings)
    embedder = get_embedder(settings)
    tok = Tokenizer()
    tok.warm_up()
    if embedder is not None:
        embedder.warm_up()
    from corpus.types import SearchFilter
    from rag.resolve import ProfileSource

    retriever = HybridRetriever(store, tok, embedder, config=retrieval_config(settings))
    profiles = ProfileSource(store, tok.terms, max_docs=settings.rag_resolve_max_docs)
    from rag.pages import PageNavigator

    navigator = PageNavigator(store)
    from rag.expand import QueryExpander

    expander = (
        QueryExpander(tok.query_terms, tok.normalize) if settings.rag_expand_queries else None
    )
    out = []
    for q in qs:
        text = q.question if not (args.with_context and q.context) else f"{q.context}\n{q.question}"
        sparse = tok.sparse_query(text)
        if expander is not None and not sparse.is_empty():
            sparse, _ = expander.expand(text, sparse)
        terms = tok.key_terms(text)
        vec = embedder.embed_query(text) if embedder is not None else None
        dense = store.dense_search(args.collection, vec, args.prefetch) if vec is not None else []
        kw = (
            store.keyword_search(args.collection, sparse, args.prefetch)
            if not sparse.is_empty()
            else []
        )
        res = profiles.resolve(args.collection, text, tok.name_terms(text))
        row = {"q": q, "text": text, "dense": dense, "keyword": kw, "terms": terms, "res": res}
        if res.sure and res.doc_ids:
            flt = SearchFilter(doc_ids=res.doc_ids)
            row["dense_r"] = (
                store.dense_search(args.collection, vec, args.prefetch, flt)
                if vec is not None
                else []
            )
            row["keyword_r"] = (
                store.keyword_search(args.collection, sparse, args.prefetch, flt)
                if not sparse.is_empty()
                else []
            )
            row["pages_r"] = navigator.page_hits(args.collection, res.doc_ids, text)
        out.append(row)
    return out, (retriever, tok)


def resolution_table(rows: list[dict[str, Any]]) -> str:
    """Markdown table per dataset: share of questions resolved to documents (sure), the right
    document among them, and how many documents a resolution held on average."""
    lines = [
        "| dataset | n | resolved % | right document in set % (of resolved) | docs per set |",
        "|---|---|---|---|---|",
    ]
    for name in [*DATASETS, "ALL"]:
        sel = [r for r in rows if name == "ALL" or r["q"].source_dataset == name]
        if not sel:
            continue
        done = [r for r in sel if r["res"].sure and r["res"].doc_ids]
        right = [r for r in done if any(doc_matches(r["q"], p) for p in r["res"].paths)]
        size = sum(len(r["res"].doc_ids) for r in done) / max(1, len(done))
        lines.append(
            f"| {name} | {len(sel)} | {100 * len(done) / len(sel):.1f} "
            f"| {100 * len(right) / max(1, len(done)):.1f} | {size:.2f} |"
        )
    return "\n".join(lines)


def evaluate(rows: list[dict[str, Any]], mode: str, cfg: dict[str, Any], tok: Any) -> list[dict]:
    """Per-question hit@1/hit@5/doc@5 (and features for hybrid) for one mode and setting."""
    res = []
    scorer = cfg.get("scorer")
    for r in rows:
        q: Question = r["q"]
        if mode in ("resolved", "paged") and "dense_r" in r:
            dense: list[SearchHit] = r["dense_r"]
            kw: list[SearchHit] = r["keyword_r"]
        else:
            dense = r["dense"] if mode != "keyword" else []
            kw = r["keyword"] if mode != "dense" else []
        items = fuse(
            dense,
            kw,
            top_k=cfg.get("top_k", 5),
            rrf_k=cfg.get("rrf_k", 60),
            dense_weight=cfg.get("dense_weight", 1.0),
            keyword_weight=cfg.get("keyword_weight", 1.0),
            doc_weight=cfg.get("doc_weight", 0.0),
            key_terms=r["terms"],
            merge=cfg.get("merge", True),
            pages=r.get("pages_r", ()) if mode == "paged" else (),
            page_weight=cfg.get("page_weight", 1.0),
        )
        hit_rank = next(
            (
                i
                for i, it in enumerate(items, 1)
                if any(location_hits_gold(q, c) for c in it.chunks)
            ),
            None,
        )
        row: dict[str, Any] = {
            "id": q.id,
            "dataset": q.source_dataset,
            "lang": _lang(q),
            "hit@1": hit_rank == 1,
            "hit@5": hit_rank is not None,
            "doc@5": any(doc_matches(q, it.chunk.path) for it in items),
        }
        if mode in ("hybrid", "resolved", "paged"):
            feats = compute_features(dense, kw, items, r["terms"], tok.normalize,
                                     question=r["text"], analyse=tok.terms)
            row["features"] = feats.to_dict()
            row["hit"] = row["hit@5"]
            if scorer is not None:
                row["confidence"] = scorer.score(feats)
        res.append(row)
    return res


def table(results: dict[str, list[dict]], base: dict[str, dict]) -> str:
    """Markdown table: per dataset and overall, each mode's hit@1/hit@5/doc@5 and B3 hit@5."""
    modes = list(results)
    head = "| dataset | n | " + " | ".join(f"{m} hit@1 | {m} hit@5 | {m} doc@5" for m in modes)
    lines = [head + " | B3 hit@5 |", "|" + "---|" * (2 + 3 * len(modes) + 1)]
    groups = [(d, lambda r, d=d: r["dataset"] == d) for d in DATASETS]
    groups += [
        ("ALL en", lambda r: r["lang"] == "en"),
        ("ALL zh", lambda r: r["lang"] == "zh"),
        ("ALL", lambda r: True),
    ]
    for name, pred in groups:
        cells = []
        n = 0
        for m in modes:
            sel = [r for r in results[m] if pred(r)]
            n = len(sel)
            for key in ("hit@1", "hit@5", "doc@5"):
                cells.append(f"{100 * sum(r[key] for r in sel) / max(1, n):.1f}")
        sel = [r for r in results[modes[0]] if pred(r)]
        b3 = 100 * sum(bool(base[r["id"]]["hit@5"]) for r in sel) / max(1, len(sel))
        if n:
            lines.append(f"| {name} | {n} | " + " | ".join(cells) + f" | {b3:.1f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="eval")
    ap.add_argument("--eval-dir", type=Path, default=REPO.parent / "shared" / "eval")
    ap.add_argument("--prefetch", type=int, default=50)
    ap.add_argument("--no-pdf", action="store_true", help="leave out zh/questions_pdf.jsonl")
    ap.add_argument("--with-context", action="store_true", help="prepend a follow-up's context")
    ap.add_argument("--rrf-k", type=int, default=None)
    ap.add_argument("--dense-weight", type=float, default=None)
    ap.add_argument("--keyword-weight", type=float, default=None)
    ap.add_argument("--doc-weight", type=float, default=None)
    ap.add_argument("--sweep", action="store_true", help="grid over rrf-k, weights, doc-weight")
    ap.add_argument(
        "--check", action="store_true", help="also run HybridRetriever.run per question"
    )
    ap.add_argument(
        "--compare-server",
        action="store_true",
        help="also score fusion inside Qdrant (one query, RRF prefetches) per dataset",
    )
    ap.add_argument(
        "--only-ingested",
        action="store_true",
        help="score only questions whose gold documents are in the collection (partial index)",
    )
    ap.add_argument("--out", type=Path, help="per-question hybrid records (for loopgate calibrate)")
    args = ap.parse_args()

    from gateway.wiring import retrieval_config
    from gateway.settings import get_settings

    s = retrieval_config(get_settings())
    cfg = {
        "rrf_k": args.rrf_k or s.rrf_k,
        "top_k": s.top_k,
        "dense_weight": s.dense_weight if args.dense_weight is None else args.dense_weight,
        "keyword_weight": s.keyword_weight if args.keyword_weight is None else args.keyword_weight,
        "doc_weight": s.doc_weight if args.doc_weight is None else args.doc_weight,
        "merge": s.merge_adjacent,
        "page_weight": s.page_weight,
        "scorer": LogisticConfidence.load(),
    }
    qs, base = load_scored(args.eval_dir, not args.no_pdf)
    if args.only_ingested:
        from corpus.catalogue import Catalogue
        from gateway.wiring import open_store
        from evals.gold import doc_matches as _dm

        st = open_store(get_settings())
        paths = [d.path for d in Catalogue(st).documents(args.collection)]
        st.close()
        qs = [q for q in qs if any(_dm(q, p) for p in paths)]
        print(f"{len(paths)} documents in the collection; {len(qs)} questions with gold there")
    t0 = time.perf_counter()
    rows, (retriever, tok) = fetch(args, qs)
    print(f"{len(qs)} questions fetched in {time.perf_counter() - t0:.1f} s; setting {cfg}")

    if args.sweep:
        print("| rrf_k | dense_w | keyword_w | doc_w | hit@5 all | en | zh | doc@5 all |")
        for k, dw, kw, docw in itertools.product(
            (10, 30, 60), (1.0, 1.5, 2.0), (1.0,), (0.0, 0.5, 1.0, 2.0, 4.0)
        ):
            c = {**cfg, "rrf_k": k, "dense_weight": dw, "keyword_weight": kw, "doc_weight": docw}
            res = evaluate(rows, "hybrid", {**c, "scorer": None}, tok)
            en = [r for r in res if r["lang"] == "en"]
            zh = [r for r in res if r["lang"] == "zh"]
            pct = lambda sel, key="hit@5": 100 * sum(r[key] for r in sel) / max(1, len(sel))  # noqa: E731
            print(
                f"| {k} | {dw} | {kw} | {docw} | {pct(res):.1f} | {pct(en):.1f} | {pct(zh):.1f} "
                f"| {pct(res, 'doc@5'):.1f} |"
            )

    modes = ("dense", "keyword", "hybrid", "resolved", "paged")
    results = {m: evaluate(rows, m, cfg, tok) for m in modes}
    print(table(results, base))
    print("document resolution (rag.resolve; 'resolved' above = hybrid inside the resolved set):")
    print(resolution_table(rows))
    hyb = results["resolved" if get_settings().rag_resolve_documents else "hybrid"]
    for lang in ("en", "zh", None):
        sel = [r for r in hyb if lang is None or r["lang"] == lang]
        a = auroc([r["confidence"] for r in sel], [int(r["hit"]) for r in sel])
        print(f"confidence AUROC ({lang or 'all'}): {a:.3f}  n={len(sel)}")
    if args.check:
        diff = 0
        for r, res in zip(rows, hyb, strict=True):
            got = retriever.run(r["text"], args.collection)
            hit = any(location_hits_gold(r["q"], c) for it in got.items for c in it.chunks)
            diff += hit != res["hit@5"]
        print(f"HybridRetriever.run disagreements with the offline fusion: {diff}")
    if args.compare_server:
        from dataclasses import replace

        from rag.retriever import HybridRetriever

        server = HybridRetriever(
            retriever.store,
            retriever.tokenizer,
            retriever.embedder,
            config=replace(retriever.config, fusion="server", rrf_k=cfg["rrf_k"]),
        )
        per: dict[str, list[bool]] = defaultdict(list)
        for r in rows:
            got = server.run(r["text"], args.collection)
            hit = any(location_hits_gold(r["q"], c) for it in got.items for c in it.chunks)
            per[r["q"].source_dataset].append(hit)
            per["ALL " + _lang(r["q"])].append(hit)
            per["ALL"].append(hit)
        for name, hits in per.items():
            print(
                f"server-side RRF hit@5 {name}: {100 * sum(hits) / len(hits):.1f} (n={len(hits)})"
            )
    if args.out:
        with args.out.open("w", encoding="utf-8") as fh:
            for r in hyb:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
