"""Throughput of parse + chunk (+ tokenize) on the FinanceBench PDFs, in pages per second per core.

Issue 2 acceptance ("benchmark"): goal ≥ 20 pages/s per core, tables included. One process
runs every stage in turn for each PDF, so the CPU time it uses (``time.process_time``) is
single-core work: **pages / CPU seconds = pages/s per core**. Wall time is printed too; on a
shared machine it includes waiting for the CPU.

Stages timed separately: ``parse`` (``corpus.parsers.parse_file``: PyMuPDF text, running
header/footer removal, ruled-table detection with ``find_tables`` on grid pages only),
``chunk`` (``corpus.chunker.chunk_document``), ``tokenize`` (``corpus.tokenizer.Tokenizer.sparse``
over every chunk's ``context_text()``, when that module exists). Also printed: how many pages
ran ``find_tables`` and how many Markdown tables came out.

Run: ``.venv/bin/python benchmarks/parse_throughput.py [--eval-dir ../shared/eval] [--limit N]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.chunker import chunk_document  # noqa: E402
from corpus.parsers import parse_file  # noqa: E402


def _tokenizer() -> object | None:
    try:
        from corpus.tokenizer import Tokenizer
    except ImportError:
        return None
    tok = Tokenizer()
    tok.warm_up()
    return tok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = Path(__file__).resolve().parents[2] / "shared" / "eval"
    ap.add_argument("--eval-dir", type=Path, default=default)
    ap.add_argument("--limit", type=int, default=0, help="only the first N PDFs")
    ap.add_argument("--no-tokenize", action="store_true")
    args = ap.parse_args()
    folder = args.eval_dir / "en" / "docs" / "financebench"
    pdfs = sorted(folder.glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs under {folder}")
        return 2
    if args.limit:
        pdfs = pdfs[: args.limit]
    import corpus.parsers._pdf_page as page_mod

    calls = {"find_tables": 0}
    real = page_mod.find_ruled_tables

    def counting(page, lines):  # type: ignore[no-untyped-def]
        calls["find_tables"] += 1
        return real(page, lines)

    import corpus.parsers.pdf as pdf_mod

    pdf_mod.find_ruled_tables = counting  # count, do not change behaviour
    tok = None if args.no_tokenize else _tokenizer()
    cpu = {"parse": 0.0, "chunk": 0.0, "tokenize": 0.0}
    pages = chunks = tables = 0
    sizes: list[int] = []
    wall0 = time.perf_counter()
    for pdf in pdfs:
        t = time.process_time()
        doc = parse_file(pdf)
        t1 = time.process_time()
        cs = chunk_document(doc, rel_path=pdf.name)
        t2 = time.process_time()
        if tok is not None:
            for c in cs:
                tok.sparse(c.context_text())  # type: ignore[attr-defined]
        t3 = time.process_time()
        cpu["parse"] += t1 - t
        cpu["chunk"] += t2 - t1
        cpu["tokenize"] += t3 - t2
        pages += doc.page_count
        chunks += len(cs)
        sizes.extend(len(c.text) for c in cs)
        tables += sum(b.kind == "table" for b in doc.blocks)
    wall = time.perf_counter() - wall0
    total = sum(cpu.values())
    print(
        f"FinanceBench PDFs: {len(pdfs)}, pages: {pages}, chunks: {chunks}, "
        f"Markdown tables: {tables}, pages that ran find_tables: {calls['find_tables']}"
    )
    sizes.sort()
    print(
        f"chunk chars: median {sizes[len(sizes) // 2]}, max {sizes[-1]}, "
        f"< 80: {sum(n < 80 for n in sizes)}, > 1580: {sum(n > 1580 for n in sizes)}"
    )
    for k, v in cpu.items():
        if k == "tokenize" and tok is None:
            print("tokenize: skipped (corpus.tokenizer not available)")
            continue
        print(f"{k:9s} CPU {v:7.2f} s  = {pages / v if v else float('inf'):8.1f} pages/s")
    stages = "parse+chunk" + ("+tokenize" if tok is not None else "")
    print(
        f"{stages}: CPU {total:.2f} s -> {pages / total:.1f} pages/s per core "
        f"(wall {wall:.2f} s -> {pages / wall:.1f} pages/s on this shared machine)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
