"""Where ingest CPU time goes: each stage's CPU seconds over the given files, in one process.

Stages (``time.process_time`` around the real code): ``parse`` (``corpus.parsers.parse_file``
without the two below), ``ocr`` (Tesseract on scanned pages and pictures of text:
``corpus.parsers.pdf.ocr_textpage``, ``corpus.parsers._pdf_mixed.ocr_clip_lines``),
``find_tables`` (PyMuPDF's table finder), ``chunk``, ``context_text``, ``sparse`` (BM25 vectors),
``text_keys`` (duplicate keys), ``embed.onnx`` (the ONNX session's ``run``), ``embed`` (the rest
of ``FastEmbedEmbedder.embed_passages``: tokenizer, pooling), ``directory`` (extractive
directory entries) and ``write`` (the staged store write, ``corpus._ingest_write``). Each file
is printed with its pages, chunks and stages; then the totals, and the process's peak RSS
after loading the model and at the end.

Run (one ONNX thread, the ingest default per process)::

    LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
        .venv/bin/python benchmarks/ingest_stages.py FILE... [--max-tokens 256]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CPU: dict[str, float] = defaultdict(float)


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` adding its CPU seconds to ``CPU[name]``."""

    def wrap(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            CPU[name] += time.process_time() - t

    return wrap


class _TimedSession:
    """The ONNX session with ``run`` timed (fastembed calls ``run`` and ``get_inputs``)."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self.run = timed("embed.onnx", session.run)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _peak_mb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--max-tokens", type=int, default=256)
    args = ap.parse_args()

    import pymupdf

    import corpus.parsers._pdf_mixed as mixed
    import corpus.parsers.pdf as pdf
    from corpus._ingest_prepare import Prepared
    from corpus._ingest_write import DocumentWriter
    from corpus.catalogue import Catalogue
    from corpus.chunker import chunk_document
    from corpus.directory_build import DirectoryBuilder
    from corpus.parsers import parse_file
    from corpus.qdrant_store import QdrantChunkStore
    from corpus.text_identity import document_key, loose_key
    from corpus.tokenizer import Tokenizer
    from rag.embedder import FastEmbedEmbedder

    pdf.ocr_textpage = timed("ocr", pdf.ocr_textpage)  # type: ignore[attr-defined]
    mixed.ocr_clip_lines = timed("ocr", mixed.ocr_clip_lines)  # type: ignore[attr-defined]
    pymupdf.Page.find_tables = timed(  # type: ignore[method-assign]
        "find_tables", pymupdf.Page.find_tables)
    model = os.environ.get("LOOPGATE_EMBED_MODEL_PATH")
    tok = Tokenizer()
    tok.warm_up()
    emb = FastEmbedEmbedder(model_path=Path(model) if model else None, threads=1,
                            max_length=args.max_tokens, query_cache=0)
    emb.warm_up()
    inner = emb._emb.model  # fastembed's ONNX text model: its ``model`` is the session
    inner.model = _TimedSession(inner.model)
    print(f"peak RSS after loading the tokenizer and model: {_peak_mb()} MB")
    store = QdrantChunkStore.embedded(Path(tempfile.mkdtemp(prefix="ingest-stages-")) / "q")
    store.ensure_collection("stages", dense_dim=emb.dim, embed_model=emb.model_name)
    directory = DirectoryBuilder(tok)
    directory.write = timed("directory", directory.write)  # type: ignore[method-assign]
    writer = DocumentWriter(store, Catalogue(store), tok, None, directory, 64)
    pages = chunks = 0
    for f in args.files:
        before, t0 = dict(CPU), time.process_time()
        doc = timed("parse", parse_file)(f)
        ch = timed("chunk", chunk_document)(doc, rel_path=f.name)
        texts = timed("context_text", lambda cs: [c.context_text() for c in cs])(ch)
        sparse = timed("sparse", lambda ts: [tok.sparse(t) for t in ts])(texts)
        keys = timed("text_keys", lambda bs: (document_key(bs), loose_key(bs)))(doc.blocks)
        dense = timed("embed", emb.embed_passages)(texts)
        prep = Prepared(doc.doc_id, doc.title, doc.media_type, doc.page_count, ch, sparse,
                        list(doc.outline), list(doc.warnings), keys[0], keys[1], dense)
        timed("write", writer.write)("stages", f.name, prep, None, f)
        pages, chunks = pages + doc.page_count, chunks + len(ch)
        spent = {k: round(v - before.get(k, 0.0), 2) for k, v in CPU.items()
                 if v - before.get(k, 0.0) >= 0.01}
        print(f"{f.name}: {doc.page_count} pages, {len(ch)} chunks, "
              f"{time.process_time() - t0:.1f} CPU-s {spent}", flush=True)
    store.flush()
    # nested timers: report each stage without the ones inside it
    CPU["parse"] -= CPU["ocr"] + CPU["find_tables"]
    CPU["embed"] -= CPU["embed.onnx"]
    CPU["write"] -= CPU["directory"]
    total = sum(CPU.values())
    print(f"total: {pages} pages, {chunks} chunks, {total:.1f} CPU-s")
    for name, sec in sorted(CPU.items(), key=lambda kv: -kv[1]):
        print(f"  {name:13s} {sec:8.2f} s {100 * sec / max(total, 1e-9):6.1f} %")
    print(f"peak RSS: {_peak_mb()} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
