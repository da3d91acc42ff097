"""Questions whose document is not in the collection (issue 15 items 4–5): a seeded share of the
dev questions' gold documents is deleted from a **copy** of an index, and the questions about
them, now unanswerable, are written out as a question file for ``loopgate eval``.

A new user deleted a document and asked about it again: the answer came back "found" at
confidence 0.92–0.995, quoting an unrelated law. The dev sets have few unanswerable questions,
all of them "the document does not say" (MMLongBench-Doc); this makes the other kind — "the
collection holds no such document" — in every dataset and both languages, from documents and
questions that exist, so refusal can be measured (and the answer-support model refitted with
``loopgate calibrate --support … --also RESULTS``) on it.

Steps: ``loopgate serve`` on ``--data`` (a copy: documents are deleted from it), ``GET
/v1/documents`` for the stored paths, the gold documents of ``--questions`` matched to them
(``evals.gold.doc_matches``), ``--share`` of them per dataset picked with ``--seed``, each
deleted with ``DELETE /v1/documents/{path}``; then every question all of whose gold documents
are gone is written to ``--out`` with the tag ``unanswerable`` (answer ``Not answerable``; its
gold places dropped; its ``context`` kept) and the id ``<id>#absent``. A question whose answer
may stand in a document that is left (another filing of the company, another handbook page)
still counts as unanswerable here: read the refusals per dataset with that in mind.

Usage (the copy is changed; ~20 s to start the server, ~1 s per deleted document)::

    cp -r data-eval /tmp/absent && cd ../shared/eval
    LOOPGATE_DATA_DIR=/tmp/absent LOOPGATE_EMBED_MODEL_PATH=…/multilingual-e5-small \\
      python …/benchmarks/absent_documents.py --collection eval --share 0.25 --seed 15 \\
      --questions en/questions.jsonl zh/questions.jsonl zh/questions_pdf.jsonl \\
      --out /tmp/absent-questions.jsonl
    loopgate eval /tmp/absent-questions.jsonl -c eval --mode rag --out eval-runs/absent-rag

Prints, per dataset, the documents deleted and the questions written.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import httpx
from _common import free_port, stop_process, wait_healthy

from evals.gold import doc_matches
from evals.questions import load_questions
from evals.types import Question


def _stored_paths(client: httpx.Client, collection: str) -> list[str]:
    """Every document path of ``collection`` (``GET /v1/documents``, all pages)."""
    got = client.get("/v1/documents", params={"collection": collection})
    got.raise_for_status()
    return [str(d["path"]) for d in got.json()["documents"]]


def pick_documents(questions: list[Question], paths: list[str], share: float,
                   seed: int) -> dict[str, list[str]]:
    """Per dataset, the stored paths to delete: ``share`` (0..1) of the dataset's gold
    documents held by the collection, at least one, picked by ``random.Random(seed)`` from the
    sorted list (the same picks for the same inputs)."""
    by_ds: dict[str, set[str]] = defaultdict(set)
    for q in questions:
        if q.unanswerable:
            continue
        for p in paths:
            if doc_matches(q, p):
                by_ds[q.source_dataset].add(p)
    rng = random.Random(seed)
    return {ds: sorted(rng.sample(sorted(docs), max(1, round(share * len(docs)))))
            for ds, docs in sorted(by_ds.items())}


def absent_questions(questions: list[Question], deleted: set[str],
                     records: dict[str, dict[str, object]]) -> list[dict[str, object]]:
    """The records (``records``: id → the question file's JSON object) of the answerable
    questions all of whose gold documents are among ``deleted`` (stored paths), rewritten as
    unanswerable (module docstring)."""
    out = []
    for q in questions:
        if q.unanswerable or not q.gold_docs:
            continue
        if not all(any(doc_matches(_only(q, d), p) for p in deleted) for d in q.gold_docs):
            continue
        rec = {k: v for k, v in records[q.id].items()
               if k not in ("doc", "page", "pages", "evidence", "evidence_pages", "section",
                            "answer_aliases")}
        rec.update(id=f"{q.id}#absent", answer="Not answerable",
                   tags=[*[t for t in q.tags if t != "unanswerable"], "unanswerable",
                         "absent_document"])
        out.append(rec)
    return out


def _only(q: Question, doc: str) -> Question:
    """``q`` with ``doc`` as its only gold document."""
    return replace(q, doc=doc, evidence_pages=())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="eval")
    ap.add_argument("--questions", nargs="+", required=True, type=Path)
    ap.add_argument("--share", type=float, default=0.25,
                    help="share of each dataset's gold documents to delete (0..1)")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--out", type=Path, required=True, help="question file to write")
    args = ap.parse_args()
    if not 0.0 < args.share <= 1.0:
        ap.error("--share must be in (0, 1]")
    if not os.environ.get("LOOPGATE_DATA_DIR"):
        ap.error("set LOOPGATE_DATA_DIR to a copy of the index (its documents are deleted)")
    questions = load_questions(args.questions)
    records: dict[str, dict[str, object]] = {}
    for path in args.questions:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rec = json.loads(line)
                records[str(rec["id"])] = rec
    port = free_port()
    env = {**os.environ, "LOOPGATE_PORT": str(port), "LOOPGATE_REDIS_URL": ""}
    proc = subprocess.Popen([sys.executable, "-c", "from gateway.cli import main; main()",
                             "serve", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_healthy(base, proc, timeout_s=300):
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            print(f"error: the gateway did not start\n{err[-2000:]}", file=sys.stderr)
            return 1
        with httpx.Client(base_url=base, timeout=120) as client:
            paths = _stored_paths(client, args.collection)
            picks = pick_documents(questions, paths, args.share, args.seed)
            for docs in picks.values():
                for p in docs:
                    got = client.delete(f"/v1/documents/{quote(p)}",
                                        params={"collection": args.collection})
                    got.raise_for_status()
    finally:
        stop_process(proc)
    deleted = {p for docs in picks.values() for p in docs}
    rows = absent_questions(questions, deleted, records)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                        encoding="utf-8")
    per_ds: dict[str, int] = defaultdict(int)
    for r in rows:
        per_ds[str(r["source_dataset"])] += 1
    print(f"{len(deleted)} of {len(paths)} documents deleted; {len(rows)} questions → {args.out}")
    for ds, docs in picks.items():
        print(f"  {ds:24} {len(docs):4} documents  {per_ds.get(ds, 0):4} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
