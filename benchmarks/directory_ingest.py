"""Ingest time with and without the document directory (issue 14 item 1, acceptance: extractive
entries add at most 10 % to the ingest time).

Ingests the same folders into fresh data directories, once per mode (``off`` then
``extractive``, repeated ``--rounds`` times, alternating so machine load hits both), each folder
into its own collection, with the configured embedder (``LOOPGATE_EMBED_MODEL_PATH``), and
prints per run: wall seconds, chunks, and the seconds the directory builder itself spent
(``DirectoryStats.seconds``: tokenising, key terms, lead sentences — not the record write).
The data directories are kept (``--work``) so an eval can run on them afterwards.

Usage (2 cores shared: run with ``nice``)::

    LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small nice -n 10 \\
      .venv/bin/python benchmarks/directory_ingest.py --work /tmp/dir-bench \\
      zhpdf=../shared/eval/zh/docs/pdf zhtext=../shared/eval/zh/docs/drcd
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from statistics import median


def run(work: Path, mode: str, rnd: int, folders: dict[str, Path], embedder: object) -> dict:
    """One ingest of every folder into a fresh store; returns the figures."""
    from corpus.directory_build import DirectoryBuilder
    from corpus.ingest import Ingestor
    from corpus.qdrant_store import QdrantChunkStore
    from corpus.tokenizer import Tokenizer

    data = work / f"{mode}-{rnd}"
    shutil.rmtree(data, ignore_errors=True)
    store = QdrantChunkStore.embedded(data / "qdrant")
    tok = Tokenizer()
    builder = DirectoryBuilder(tok) if mode == "extractive" else None
    ing = Ingestor(store, tok, embedder, workers=1, directory=builder)  # type: ignore[arg-type]
    t0 = time.perf_counter()
    chunks = 0
    for name, folder in folders.items():
        chunks += ing.ingest_paths([folder], name).chunks
    wall = time.perf_counter() - t0
    store.close()
    return {"mode": mode, "round": rnd, "wall_s": round(wall, 2), "chunks": chunks,
            "directory_s": round(builder.stats.seconds, 2) if builder else 0.0,
            "data_dir": str(data)}


def main() -> None:
    """Parse arguments, run the rounds, print one JSON line per run and the summary."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", help="collection=folder")
    ap.add_argument("--work", type=Path, required=True, help="where the data dirs go")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    folders = {f.split("=", 1)[0]: Path(f.split("=", 1)[1]) for f in args.folders}
    from gateway.wiring import get_embedder
    from gateway.settings import get_settings

    embedder = get_embedder(get_settings())
    if embedder is not None and hasattr(embedder, "warm_up"):
        embedder.warm_up()
    rows = []
    for rnd in range(args.rounds):
        for mode in ("off", "extractive"):
            row = run(args.work, mode, rnd, folders, embedder)
            rows.append(row)
            print(json.dumps(row), flush=True)
    off = median(r["wall_s"] for r in rows if r["mode"] == "off")
    on = median(r["wall_s"] for r in rows if r["mode"] == "extractive")
    own = median(r["directory_s"] for r in rows if r["mode"] == "extractive")
    print(f"embedder: {'yes' if embedder is not None else 'no (keyword-only)'}; "
          f"median wall: off {off:.1f} s, extractive {on:.1f} s ({100 * (on - off) / off:+.1f} %); "
          f"directory builder itself {own:.1f} s = {100 * own / off:.1f} % of the ingest")


if __name__ == "__main__":
    main()
