"""Controller overhead per LoopAgent step, excluding the LLM call (issue 5 goal: ≤ 5 ms).

A policy that answers instantly (pre-written calls: search → read → next_chunk → prev_chunk →
outline → answer with a verbatim quote) is driven through the real controller and tools over a
real embedded Qdrant store holding case 22's knowledge base (or ``--docs DIR``). Per step it
prints: the whole step (decision, tool in its worker thread under the timeout, event, citation
check) and the controller's own share (the whole step minus the tool's own time).

usage: .venv/bin/python benchmarks/loop_overhead.py [--runs 200] [--docs DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from corpus.chunker import chunk_document
from corpus.parsers import parse_file
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from loop import LoopConfig, LoopState, StoreKeywordSearch, ToolCall, ToolContext, drive
from loop.evidence import TermMatcher
from loop.policies.base import Turn
from loop.tools import TOOLS

DEFAULT_DOCS = Path(__file__).resolve().parents[2] / "shared" / "cases" / \
    "22-agent-repeated-search-loop" / "kb"


class _Instant:
    brain = "benchmark"

    def __init__(self, chunk: Any, quote: str) -> None:
        cid = chunk.chunk_id
        self.calls = [ToolCall("search", {"query": "电池 保修"}),
                      ToolCall("read", {"chunk_id": cid}),
                      ToolCall("next_chunk", {"chunk_id": cid}),
                      ToolCall("prev_chunk", {"chunk_id": cid}),
                      ToolCall("outline", {"doc": chunk.path}),
                      ToolCall("answer", {"response": quote, "found": True,
                                          "citations": [{"chunk_id": cid, "quote": quote}]})]
        self.i = 0

    async def propose(self, state: LoopState) -> Turn:
        self.i += 1
        return Turn(calls=[self.calls[self.i - 1]])

    def observe(self, call: ToolCall, result: Any) -> None:
        pass


def _timed_tools(acc: list[float]) -> None:
    """Wrap each tool callable to record its own run time (seconds) into ``acc``."""
    for tool in list(TOOLS.values()):
        if tool.fn is None:
            continue
        fn = tool.fn

        def timed(ctx: Any, args: Any, _fn: Any = fn) -> Any:
            t0 = time.perf_counter()
            try:
                return _fn(ctx, args)
            finally:
                acc.append(time.perf_counter() - t0)
        object.__setattr__(tool, "fn", timed)


async def _bench(store: QdrantChunkStore, tok: Tokenizer, chunks: list[Any], runs: int) -> None:
    search = StoreKeywordSearch(store, tok.sparse_query)
    target = chunks[0]
    quote = target.text.split("\n")[-1][:20]
    tool_time: list[float] = []
    _timed_tools(tool_time)
    cfg = LoopConfig(max_loops=10)
    totals, steps = [], 0
    for _ in range(runs):
        ctx = ToolContext(store, search, "bench", cfg)
        state = LoopState("电池保修多久？", ctx, TermMatcher(tok.key_terms("电池保修多久？"), tok))
        t0 = time.perf_counter()
        res = await drive(_Instant(target, quote), state)
        totals.append(time.perf_counter() - t0)
        steps += sum(1 for s in res.steps if s.kind == "tool")
        assert res.found and res.citations, res
    total_ms = sum(totals) * 1000
    tool_ms = sum(tool_time) * 1000
    print(f"runs {runs}, tool steps {steps} ({steps / runs:.0f} per run)")
    print(f"per step, whole (decision + tool in thread + event + citation check): "
          f"{total_ms / steps:.3f} ms")
    print(f"per step, tool callables alone (Qdrant reads/search): {tool_ms / steps:.3f} ms")
    print(f"per step, controller overhead (whole - tool): {(total_ms - tool_ms) / steps:.3f} ms "
          f"(goal <= 5 ms); run p50 {statistics.median(totals) * 1000:.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--docs", type=Path, default=DEFAULT_DOCS)
    a = ap.parse_args()
    tok = Tokenizer()
    tok.warm_up()
    with tempfile.TemporaryDirectory() as d:
        store = QdrantChunkStore.embedded(d)
        store.ensure_collection("bench", dense_dim=None, embed_model=None)
        chunks = []
        for f in sorted(p for p in a.docs.rglob("*") if p.is_file()):
            cs = chunk_document(parse_file(f), rel_path=f.name)
            store.upsert_chunks("bench", cs, [tok.sparse(c.context_text()) for c in cs])
            chunks += cs
        store.flush()
        chunks.sort(key=lambda c: "电池" not in c.text)
        asyncio.run(_bench(store, tok, chunks, a.runs))
        store.close()


if __name__ == "__main__":
    main()
