"""Ingest the evaluation corpus twice and print the acceptance figures of issue 2:

- first run: files per status, failures (goal 0) with their reasons, pages, chunks, wall time;
- second run (nothing changed): wall time (goal ≤ 5 s) and whether anything changed;
- a keyword probe: a Traditional and a Simplified spelling of one Chinese term, and FW-301-like
  codes, against the built index (top hit path).

Runs ``loopgate ingest`` as a subprocess (the real console script, as a user would), so the
times include process start-up. Usage (run with ``nice``; it parses ~100 PDFs)::

    nice .venv/bin/python benchmarks/ingest_eval.py --data-dir /work/data/b-index [--fresh]
        [--embed]   # default keyword-only (--no-embed)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVAL = Path(os.environ.get("LOOPGATE_SHARED_DIR", REPO.parent / "shared")) / "eval"


def ingest(data_dir: Path, paths: list[Path], collection: str, embed: bool) -> tuple[dict, float]:
    """One ``loopgate ingest --json`` run; returns its JSON summary and wall seconds."""
    cmd = [
        sys.executable,
        "-c",
        "from gateway.cli import main; main()",
        "ingest",
        *map(str, paths),
        "--collection",
        collection,
        "--json",
    ]
    if not embed:
        cmd.append("--no-embed")
    env = {**os.environ, "LOOPGATE_DATA_DIR": str(data_dir)}
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO, check=False)
    wall = time.perf_counter() - t0
    if not done.stdout.strip():
        sys.exit(f"ingest failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout), wall


def probe(data_dir: Path, collection: str) -> None:
    """Keyword searches against the built index (after the CLI released it)."""
    from corpus.qdrant_store import QdrantChunkStore
    from corpus.tokenizer import Tokenizer

    tok = Tokenizer()
    with QdrantChunkStore.embedded(data_dir / "qdrant") as store:
        for q in ("梵語", "梵语", "吠陀", "GB/T 2828", "FY2018", "3M 10-K"):
            hits = store.keyword_search(collection, tok.sparse_query(q), 3)
            top = hits[0].chunk if hits else None
            print(
                f"  {q!r:14} → {top.path if top else '(none)'}"
                + (f" p.{top.page_start} [{top.section[:40]}]" if top else "")
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--collection", default="eval")
    ap.add_argument("--fresh", action="store_true", help="delete the data dir first")
    ap.add_argument("--embed", action="store_true", help="compute dense vectors too")
    args = ap.parse_args()
    paths = [EVAL / "en" / "docs", EVAL / "zh" / "docs"]
    if not all(p.is_dir() for p in paths):
        sys.exit(f"evaluation documents not found under {EVAL}")
    if args.fresh and args.data_dir.exists():
        shutil.rmtree(args.data_dir)
    first, t1 = ingest(args.data_dir, paths, args.collection, args.embed)
    c = first["counts"]
    print(
        f"first run : {t1:7.1f} s wall  files {len(first['files'])} ({first['ignored']} "
        f"non-document files ignored)  counts {c}"
    )
    print(
        f"            pages {first['pages']}  chunks {first['chunks']}  failures {c['failed']}  "
        f"corpus version {first['corpus_version']}"
    )
    for f in first["files"]:
        if f["status"] == "failed":
            print(f"            FAILED {f['path']}: {f['error_code']} {f['error_message']}")
    second, t2 = ingest(args.data_dir, paths, args.collection, args.embed)
    print(
        f"second run: {t2:7.1f} s wall  changed={second['changed']}  counts {second['counts']}"
        f"  corpus version {second['corpus_version']}  (goal ≤ 5 s, nothing changed)"
    )
    print("keyword probes:")
    probe(args.data_dir, args.collection)


if __name__ == "__main__":
    main()
