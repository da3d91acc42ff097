"""Where the line-reading protocol reads next (issue 14): the reading plan (start from what the
offline pass and RAG found) and the moves the model asks for — ``next`` / ``previous`` block,
``other`` planned block — resolved by the loop, which runs ``read`` / ``next_chunk`` /
``prev_chunk`` itself (under the per-tool timeout) with the id to read next: the model never
writes an id. Also the step events of the protocol (:meth:`Navigator.emit`)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Sequence
from typing import Any

from corpus.labels import asked_item
from corpus.tuning import TUNING
from corpus.types import Chunk
from loop.controller import EventCallback, LoopState
from loop.evidence import asks_revision, best_evidence, is_revision_history
from loop.policies.read_blocks import BLOCK_CHARS, Block, block_of, chunk_blocks
from loop.results import LoopResult, StepEvent
from loop.tools import TOOLS, run_tool

__all__ = ["Navigator", "OutOfTime"]


class OutOfTime(Exception):
    """The reading deadline passed before a tool call (``str(exc)`` says which)."""


class Navigator:
    """Blocks shown so far, the plan of blocks still to show, and the moves between them.

    :param state: the loop state (``ctx.read`` / ``ctx.seen``, counters, events).
    :param on_event: the step-event callback (sync or async), or ``None``.
    :param deadline: ``time.monotonic()`` after which no tool call starts.
    :param block_chars: characters of numbered lines per block.
    """

    def __init__(self, state: LoopState, on_event: EventCallback | None, deadline: float,
                 block_chars: int = BLOCK_CHARS) -> None:
        self.state, self.on_event, self.deadline = state, on_event, deadline
        self.block_chars = block_chars
        self.shown: set[tuple[str, int]] = set()
        self.plan: list[Block | str] = []
        self._blocks: dict[str, list[Block]] = {}

    async def emit(self, **kw: Any) -> None:
        """Append a :class:`StepEvent` (next step number, current turn) and pass it on."""
        st = self.state
        st.step += 1
        ev = StepEvent(step=st.step, turn=st.turn, **kw)
        st.events.append(ev)
        if self.on_event is not None and inspect.isawaitable(maybe := self.on_event(ev)):
            await maybe

    def blocks(self, chunk: Chunk) -> list[Block]:
        """``chunk``'s blocks (cached per question)."""
        if chunk.chunk_id not in self._blocks:
            self._blocks[chunk.chunk_id] = chunk_blocks(chunk, self.block_chars)
        return self._blocks[chunk.chunk_id]

    async def _read(self, tool: str, chunk_id: str) -> Chunk | None:
        if time.monotonic() >= self.deadline:
            raise OutOfTime(f"no time left for {tool}")
        t0 = time.perf_counter()
        args = {"chunk_id": chunk_id}
        res = await run_tool(TOOLS[tool], self.state.ctx, args)
        self.state.tool_calls += 1
        await self.emit(kind="tool", tool=tool, arguments=args, status=res.status,
                        result_chars=len(res.text()), note=res.hint,
                        elapsed_ms=(time.perf_counter() - t0) * 1000)
        return res.data[0] if res.status == "ok" and res.data else None

    def make_plan(self, base: LoopResult, planned: Sequence[Chunk] = ()) -> None:
        """Blocks to read, best first: the block of the offline answer's first citation, the
        blocks of the best units of the chunks read (key-term coverage, revision histories
        demoted unless the question asks about versions), then the ids of unread candidates
        that hold a key term, by coverage, then the unread sections the directory scan
        picked (``planned``, :class:`~loop.policies.offline.OfflinePolicy` ``planned``)."""
        ctx = self.state.ctx
        m = self.state.matcher.known([c.context_text() for c in ctx.seen.values()],
                                     label=asked_item(self.state.question))
        plan: list[Block | str] = []
        if base.found and base.citations and (c := ctx.read.get(base.citations[0].chunk_id)):
            if (b := block_of(self.blocks(c), base.citations[0].quote)) is not None:
                plan.append(b)
        demote = not asks_revision(self.state.question)
        bonus = {cid: -TUNING.evidence.revision_penalty for cid, c in ctx.read.items()
                 if demote and is_revision_history(c)}
        for e in best_evidence(list(ctx.read.values()), m, limit=300, bonus=bonus):
            if (b := block_of(self.blocks(e.chunk), e.text)) is not None:
                plan.append(b)
        unread = [cid for cid, c in ctx.seen.items()
                  if cid not in ctx.read and m.matched(c.context_text())]
        unread.sort(key=lambda i: -m.coverage(ctx.seen[i].context_text()))
        jump = [c.chunk_id for c in planned if c.chunk_id not in ctx.read
                and c.chunk_id not in unread and m.matched(c.context_text())]
        self.plan = [*plan, *unread, *jump]

    async def other(self, skip_doc: str = "") -> Block | None:
        """The next planned block not shown yet (not of document ``skip_doc``): an unread
        candidate is read first and its best block by key-term coverage taken."""
        while self.plan:
            item = self.plan.pop(0)
            if isinstance(item, str):
                chunk = self.state.ctx.read.get(item) or await self._read("read", item)
                if chunk is None or chunk.doc_id == skip_doc:
                    continue
                m = self.state.matcher
                fresh = [b for b in self.blocks(chunk) if b.key not in self.shown]
                best = max(fresh, key=lambda b: m.coverage("\n".join(b.lines)), default=None)
                if best is None:
                    continue
                item = best
            if item.key not in self.shown and item.chunk.doc_id != skip_doc:
                return item
        return None

    async def neighbour(self, block: Block, step: int) -> Block | None:
        """The block just after (``step`` 1) or before (-1) ``block``, paging to the next /
        previous chunk when ``block`` is its chunk's last / first; ``None`` at a document's
        edge or when that block was shown already."""
        own = self.blocks(block.chunk)
        got: Block | None = None
        if 0 <= block.index + step < len(own):
            got = own[block.index + step]
        elif nid := (block.chunk.next_id if step > 0 else block.chunk.prev_id):
            chunk = self.state.ctx.read.get(nid) or await self._read(
                "next_chunk" if step > 0 else "prev_chunk", block.chunk.chunk_id)
            near = self.blocks(chunk) if chunk is not None else []
            got = (near[0] if step > 0 else near[-1]) if near else None
        return None if got is None or got.key in self.shown else got
