"""The ``scan`` tool (issue 14 item 1): the directory of the top candidate documents — one line
per chunk, title (section path), pages, one-line summary and key terms
(:mod:`corpus.directory`) — bounded to the entries that best match a query, so a reader plans
where to read (scan), picks sections (jump) and reads inside them (refine).

The candidate documents are those of the chunks shown so far, in the order shown (the RAG
path's candidates first, then search results), or the documents named in ``docs``. Entries are
ranked by the query's key-term coverage of their title, summary and terms
(:class:`loop.evidence.TermMatcher`); the ``LoopConfig.scan_entries`` best are listed per
document in reading order, and their chunks are the result's ``data`` (nothing is marked seen
or read: a reader reads what it picks).

Usage example::

    res = await run_tool(TOOLS["scan"], ctx, {"query": "存储 温度"})
    print(res.content)        # "esp32_pico_d4_datasheet_cn.pdf (50 entries)\\n  id=… | p.14 | …"
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from corpus.directory import DirectoryEntry, load_directory
from corpus.types import Chunk
from loop.evidence import TermMatcher
from loop.types import ToolResult

if TYPE_CHECKING:
    from loop.tools import ToolContext

__all__ = ["candidate_docs", "directory_of", "scan"]

_CACHE_DOCS = 128
_cache: OrderedDict[tuple[int, str, str], list[DirectoryEntry]] = OrderedDict()
_lock = threading.Lock()
_tokenizer: Any = None


def _tok() -> Any:
    global _tokenizer
    if _tokenizer is None:
        from corpus.tokenizer import Tokenizer

        _tokenizer = Tokenizer()
    return _tokenizer


def directory_of(ctx: ToolContext, doc_id: str) -> list[DirectoryEntry]:
    """A document's directory entries (cached per process by store, collection and ``doc_id``:
    a ``doc_id`` is the hash of the document's bytes, so its chunks never change)."""
    key = (id(ctx.store), ctx.collection, doc_id)
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    entries = load_directory(ctx.store, ctx.collection, doc_id, _tok())
    with _lock:
        _cache[key] = entries
        while len(_cache) > _CACHE_DOCS:
            _cache.popitem(last=False)
    return entries


def candidate_docs(ctx: ToolContext, docs: list[str] | None, limit: int
                   ) -> list[tuple[str, str]]:
    """``(doc_id, path)`` of the documents to scan: those named in ``docs`` (path, file name
    or ``doc_id`` prefix of a document shown so far or in the catalogue), else the documents of
    the chunks shown so far in the order shown; at most ``limit``."""
    known: dict[str, str] = {d.doc_id: d.path for d in ctx.documents}
    shown = list(dict.fromkeys((c.doc_id, c.path) for c in (*ctx.seen.values(),
                                                            *ctx.read.values())))
    known.update(shown)
    if not docs:
        return shown[:limit]
    out: list[tuple[str, str]] = []
    for ref in docs:
        ref = str(ref).strip()
        hit = [(d, p) for d, p in known.items() if ref and (
            p == ref or p.endswith("/" + ref) or (len(ref) >= 8 and d.startswith(ref)))]
        if len(hit) == 1 and hit[0] not in out:
            out.append(hit[0])
    return out[:limit]


def scan(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """The ``scan`` tool: ``{"query": str, "docs"?: [str]}`` → the directory lines of the
    best-matching entries of the candidate documents (see the module docstring); ``data`` =
    their chunks, best entry first; ``status`` ``empty`` when no entry matches the query."""
    query = str(args.get("query", "")).strip()
    cfg = ctx.config
    named = args.get("docs") or None
    docs = candidate_docs(ctx, [named] if isinstance(named, str) else named, cfg.scan_docs)
    if not docs:
        return ToolResult("", status="empty", hint="no candidate documents yet: search first")
    tok = _tok()
    m = TermMatcher(tok.key_terms(query) or tok.query_terms(query), tok)
    if not m.terms:
        return ToolResult("", status="error", hint="scan needs a query with key words")
    scored: list[tuple[float, int, int, DirectoryEntry]] = []
    sizes: dict[str, int] = {}
    for rank, (doc_id, _) in enumerate(docs):
        entries = directory_of(ctx, doc_id)
        sizes[doc_id] = len(entries)
        for i, e in enumerate(entries):
            cov = m.coverage(" ".join((e.title, e.summary, " ".join(e.terms))))
            if cov > 0:
                scored.append((cov, rank, i, e))
    scored.sort(key=lambda x: (-x[0], x[1], x[2]))
    best = scored[: cfg.scan_entries]
    if not best:
        return ToolResult("", status="empty", hint="no directory entry of "
                          f"{', '.join(p for _, p in docs)} matches; search other words")
    lines: list[str] = []
    for rank, (doc_id, path) in enumerate(docs):
        mine = sorted((i, e) for _, r, i, e in best if r == rank)
        if not mine:
            continue
        lines.append(f"{path} ({sizes[doc_id]} entries; {len(mine)} shown)")
        lines += [f"  id={e.chunk_id} | {e.line()}"
                  + (" (read)" if e.chunk_id in ctx.read else "") for _, e in mine]
    chunks = {c.chunk_id: c for c in ctx.store.get_chunks(
        ctx.collection, [e.chunk_id for *_, e in best])}
    data: list[Chunk] = [chunks[e.chunk_id] for *_, e in best if e.chunk_id in chunks]
    return ToolResult("\n".join(lines), data=data, chunk_ids=tuple(c.chunk_id for c in data))
