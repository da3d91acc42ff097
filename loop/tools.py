"""The LoopAgent's tool set (DESIGN.md "Key contracts"), like Haystack's ``Tool``: a name, a
description, a JSON schema for the parameters and a callable.

``search``, ``read``, ``next_chunk``, ``prev_chunk``, ``outline``, ``scan`` (``loop.scan``) and
``summarize`` are executed by :func:`run_tool` in a worker thread under the per-call timeout; a
timed-out or failing call returns an empty :class:`~loop.types.ToolResult` with a hint, never an
exception. ``answer`` and ``fallback_to_rag`` end the loop and are handled by the controller.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from corpus.types import Chunk, ChunkStore, DocumentInfo, SearchFilter, SearchHit, SparseVector
from loop.config import LoopConfig
from loop.scan import scan
from loop.types import SearchBackend, ToolResult

__all__ = ["TOOLS", "TOOL_NAMES", "StoreKeywordSearch", "Tool", "ToolContext", "run_tool"]


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool: ``parameters`` is a JSON schema; ``defaults`` fill omitted optional arguments
    (so ``search(q)`` and ``search(q, top_k=5)`` are the same call); ``fn`` is ``None`` for the
    terminal tools the controller handles."""

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[[ToolContext, dict[str, Any]], ToolResult] | None = None
    defaults: dict[str, Any] = field(default_factory=dict)
    terminal: bool = False

    def openai_schema(self) -> dict[str, Any]:
        """The tool in OpenAI ``tools`` format."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description, "parameters": self.parameters}}


class StoreKeywordSearch:
    """Keyword-only :class:`~loop.types.SearchBackend` over a chunk store.

    :param store: the chunk store. :param encode: question → sparse BM25 query vector
        (``corpus.tokenizer.Tokenizer``'s query encoder).
    """

    def __init__(self, store: ChunkStore, encode: Callable[[str], SparseVector]) -> None:
        self.store, self.encode = store, encode

    def search(self, query: str, collection: str, top_k: int,
               flt: SearchFilter | None = None) -> list[SearchHit]:
        """Sparse BM25 search; an empty query vector gives no hits."""
        vec = self.encode(query)
        return [] if vec.is_empty() else self.store.keyword_search(collection, vec, top_k, flt)


@dataclass(slots=True)
class ToolContext:
    """Per-question state the tools share: what was shown (``seen``) and ``read``."""

    store: ChunkStore
    search: SearchBackend
    collection: str
    config: LoopConfig
    flt: SearchFilter | None = None
    documents: list[DocumentInfo] = field(default_factory=list)
    seen: dict[str, Chunk] = field(default_factory=dict)
    read: dict[str, Chunk] = field(default_factory=dict)
    hits: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def resolve(self, ref: str) -> str | None:
        """A known chunk id for ``ref``: exact, or a unique prefix/suffix of a shown id."""
        ref = ref.strip().strip("[]()<>\"'")
        if ref in self.seen or ref in self.read:
            return ref
        if len(ref) >= 4:
            found = {c for c in (*self.seen, *self.read) if c.startswith(ref) or c.endswith(ref)}
            if len(found) == 1:
                return found.pop()
        return None

    def fetch(self, ref: str) -> Chunk | None:
        """The chunk for ``ref`` (shown ids first, then the store)."""
        cid = self.resolve(ref)
        if cid is not None:
            return self.read.get(cid) or self.seen[cid]
        got = self.store.get_chunks(self.collection, [ref.strip()]) if ref.strip() else []
        return got[0] if got else None


def _terms(query: str) -> list[str]:
    words = [w for w in re.split(r"[\s,，。？?!！；;：:、()（）\"'“”]+", query.lower()) if w]
    out: list[str] = []
    for w in words:
        out.append(w)
        if len(w) > 4 and any("\u4e00" <= ch <= "\u9fff" for ch in w):
            out += [w[i:i + 2] for i in range(len(w) - 1)]
    return out


def snippet(text: str, query: str, size: int) -> str:
    """A ``size``-character window of ``text`` around the first query term found."""
    flat = " ".join(text.split())
    low = flat.lower()
    pos = min((p for t in _terms(query) if (p := low.find(t)) >= 0), default=0)
    start = max(0, pos - size // 4)
    cut = flat[start:start + size]
    return ("…" if start else "") + cut + ("…" if start + size < len(flat) else "")


def _header(c: Chunk) -> str:
    pages = f"p.{c.page_start}" + (f"-{c.page_end}" if c.page_end > c.page_start else "")
    return f"id={c.chunk_id} | {c.path} | {c.section or '(top)'} | {pages}"


def _search(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    k = min(int(args.get("top_k") or ctx.config.search_top_k), ctx.config.search_top_k)
    hits = ctx.search.search(str(args["query"]), ctx.collection, k, ctx.flt)[:k]
    if not hits:
        return ToolResult("No results.", data=[], status="empty",
                          hint="try other key words (a number, code or a shorter phrase)")
    q, size = str(args["query"]), ctx.config.snippet_chars
    lines = [f"{i}. {_header(h.chunk)} | {snippet(h.chunk.text, q, size)}"
             for i, h in enumerate(hits, 1)]
    return ToolResult("\n".join(lines), data=hits, chunk_ids=tuple(h.chunk.chunk_id for h in hits))


def render_chunk(c: Chunk, max_chars: int) -> str:
    """A chunk as the model reads it: header, text (head + tail when long), continuation note."""
    text = c.text
    if len(text) > max_chars:
        head, tail = int(max_chars * 0.7), int(max_chars * 0.3)
        text = (f"{text[:head]}\n[… {len(c.text) - head - tail} characters omitted …]\n"
                f"{text[-tail:]}")
    more = f"\n(next_chunk continues: id={c.next_id})" if c.next_id else "\n(end of document)"
    return (f"{_header(c)} | lines {c.line_start}-{c.line_end}\n{text}{more}\n"
            "(If this text answers the question, call answer now with a quote copied from it.)")


def _read_like(step: int) -> Callable[[ToolContext, dict[str, Any]], ToolResult]:
    def fn(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        ref = str(args.get("chunk_id", ""))
        base = ctx.fetch(ref)
        if base is None:
            return ToolResult("", status="error", hint=f"unknown chunk id {ref!r}: use an id "
                              "shown by search, read or outline")
        chunk = base if step == 0 else ctx.store.neighbour(ctx.collection, base.chunk_id, step)
        if chunk is None:
            edge = "last" if step > 0 else "first"
            return ToolResult("", status="empty", hint=f"{base.chunk_id} is the {edge} chunk")
        return ToolResult(render_chunk(chunk, ctx.config.read_max_chars), data=[chunk],
                          chunk_ids=(chunk.chunk_id,))
    return fn


def _outline(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    ref = str(args.get("doc", "")).strip()
    docs = {d.doc_id: d.path for d in ctx.documents}
    docs.update({c.doc_id: c.path for c in (*ctx.seen.values(), *ctx.read.values())})
    match = [d for d, p in docs.items() if ref and (d.startswith(ref) or p == ref
                                                     or p.endswith("/" + ref) or ref in p)]
    if len(match) != 1:
        return ToolResult("", status="error", hint=f"unknown or ambiguous document {ref!r}: "
                          "use a path from the directory or a search result")
    chunks = ctx.store.document_chunks(ctx.collection, match[0])
    lines, last = [], None
    for c in chunks:
        if c.section_path != last:
            last = c.section_path
            lines.append(f"{'  ' * max(0, len(c.section_path) - 1)}{c.section or '(top)'} — "
                         f"p.{c.page_start} — id={c.chunk_id}")
    shown = lines[:40] + ([f"(+{len(lines) - 40} more sections)"] if len(lines) > 40 else [])
    return ToolResult(f"{docs[match[0]]}\n" + "\n".join(shown), data=chunks,
                      chunk_ids=tuple(c.chunk_id for c in chunks))


def _summarize(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    ctx.notes.append(str(args.get("notes", ""))[:1000])
    return ToolResult(f"Noted ({len(ctx.notes)} notes). Continue: read more, or answer.")


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


_S = {"type": "string"}
_CID = {"chunk_id": {"type": "string", "description": "a chunk id shown by search/outline/read"}}
TOOLS: dict[str, Tool] = {t.name: t for t in [
    Tool("search", "Search the documents; returns up to 5 candidate chunks (id, file, section, "
         "pages, snippet).", _obj({"query": _S, "top_k": {"type": "integer", "minimum": 1,
                                                           "maximum": 5}}, ["query"]),
         _search, defaults={"top_k": 5}),
    Tool("read", "Read one chunk's text by id.", _obj(_CID, ["chunk_id"]), _read_like(0)),
    Tool("next_chunk", "Read the chunk after this one (same document).", _obj(_CID, ["chunk_id"]),
         _read_like(1)),
    Tool("prev_chunk", "Read the chunk before this one.", _obj(_CID, ["chunk_id"]),
         _read_like(-1)),
    Tool("outline", "Section tree of a document with pages and chunk ids.",
         _obj({"doc": {"type": "string", "description": "document path"}}, ["doc"]), _outline),
    Tool("scan", "Directory of the top candidate documents: the entries (section, pages, "
         "summary, key terms, chunk id) that best match the query; read the ids you pick.",
         _obj({"query": _S, "docs": {"type": "array", "items": _S, "description":
               "document paths (default: the documents of the candidates shown)"}}, ["query"]),
         scan),
    Tool("summarize", "Write down what is known and what is missing; does not end the loop.",
         _obj({"notes": _S}, ["notes"]), _summarize),
    Tool("answer", "Final answer. Cite chunks you read, with quotes copied exactly from them. "
         "found=false when the documents do not contain the answer.",
         _obj({"response": _S, "found": {"type": "boolean"}, "citations": {
             "type": "array", "items": _obj({"chunk_id": _S, "quote": _S},
                                            ["chunk_id", "quote"])}},
              ["response", "found", "citations"]), terminal=True),
    Tool("fallback_to_rag", "Hand a broad question (not about a specific place in the documents) "
         "back to the fast search path.", _obj({"reason": _S}, ["reason"]), terminal=True),
]}
TOOL_NAMES: tuple[str, ...] = tuple(TOOLS)


def validate(tool: Tool, args: dict[str, Any]) -> str:
    """``""`` when ``args`` fit the tool's required string/int fields, else a hint."""
    if "__raw__" in args:
        return f"arguments of {tool.name} are not a JSON object"
    for key in tool.parameters.get("required", []):
        if key not in args:
            return f"{tool.name} needs {key!r}"
    for key, spec in tool.parameters["properties"].items():
        if key in args and spec.get("type") == "string" and not isinstance(args[key], str):
            return f"{tool.name}.{key} must be a string"
    return ""


async def run_tool(tool: Tool, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    """Run a non-terminal tool in a worker thread under ``ctx.config.tool_timeout_s``; record
    shown/read chunks on success. Never raises: failures become results with a hint."""
    assert tool.fn is not None, tool.name
    fn = tool.fn
    try:
        res = await asyncio.wait_for(asyncio.to_thread(fn, ctx, args), ctx.config.tool_timeout_s)
    except TimeoutError:
        return ToolResult("", status="timeout", hint=f"{tool.name} timed out after "
                          f"{ctx.config.tool_timeout_s:g} s; try again differently or answer "
                          "from what you have")
    except Exception as exc:  # noqa: BLE001 - a tool failure becomes a hint for the model
        return ToolResult("", status="error", hint=f"{tool.name} failed: {exc}"[:300])
    if res.status == "ok":
        if tool.name == "search":
            for h in res.data:
                ctx.seen.setdefault(h.chunk.chunk_id, h.chunk)
                ctx.hits[h.chunk.chunk_id] = max(ctx.hits.get(h.chunk.chunk_id, 0.0), h.score)
        elif tool.name == "outline":
            for c in res.data:
                ctx.seen.setdefault(c.chunk_id, c)
        elif tool.name in ("read", "next_chunk", "prev_chunk"):
            for c in res.data:
                ctx.read[c.chunk_id] = c
                ctx.seen.setdefault(c.chunk_id, c)
    return res
