"""The offline reading policy (no LLM configured; DESIGN.md "Without an LLM").

Through the same tools and controller as the LLM policies: key terms of the question →
``search`` → ``read`` the best candidates (ranked by key-term coverage, then search rank) →
``next_chunk`` when the best evidence is a table or a section that runs on → ``answer`` with the
best sentence / table row by key-term coverage (verified citation), or ``found=false``.
``fallback_to_rag`` when no key term matches any chunk.
"""

from __future__ import annotations

from corpus.citations import display_quote
from loop.controller import LoopState
from loop.evidence import Evidence, asks_quantity, best_evidence
from loop.policies.base import Turn
from loop.types import NOT_FOUND, ToolCall, ToolResult

__all__ = ["OfflinePolicy"]

_END = tuple("。！？.!?;；:：)")


class OfflinePolicy:
    """Deterministic reading without an LLM.

    :param max_reads: chunks to read before answering (bounded by the loop's budgets).
    :param per_turn: reads proposed in one turn (the controller runs up to 3 calls a turn).
    :param term_search: also search the key terms alone (a second query in the first turn).
    :param max_citations: evidence units cited (from distinct chunks) when they cover nearly
        as much as the best one (within ``close``).
    :param quantity_bonus: ranking bonus of units holding a digit when the question asks for
        a quantity (多少, how many …).
    :param search_weight: weight of the chunk's rank prior in evidence ranking:
        ``search_weight / (1 + 0.5 * rank)``, rank = the order the chunk was shown in (RAG
        candidates first), as the RAG path's extractive answer ranks (``rag.extractive``).
    :param min_coverage: share of key-term weight the best evidence must cover to answer
        (default: the loop's ``LoopConfig.min_coverage``).

    Usage example::

        result = await drive(OfflinePolicy(), state)
    """

    brain = "offline"

    def __init__(self, max_reads: int = 6, per_turn: int = 3, term_search: bool = True,
                 min_coverage: float | None = None,
                 max_citations: int = 3, close: float = 0.5, search_weight: float = 0.3,
                 quantity_bonus: float = 0.2) -> None:
        self.max_reads = max_reads
        self.per_turn = per_turn
        self.term_search = term_search
        self.search_weight = search_weight
        self.quantity_bonus = quantity_bonus
        self.max_citations = max_citations
        self.close = close
        self.min_coverage = min_coverage
        self.searches: list[str] = []
        self.reads = 0
        self.paged = False
        self.last: tuple[ToolCall, ToolResult] | None = None

    def observe(self, call: ToolCall, result: ToolResult) -> None:
        """Remember the last result (the policy reads its state from ``LoopState.ctx``)."""
        self.last = (call, result)

    def _matches(self, state: LoopState) -> bool:
        return any(state.matcher.matched(c.context_text()) for c in state.ctx.seen.values())

    def _answer(self, state: LoopState) -> ToolCall:
        # rank prior from the order chunks were shown in (``ctx.seen``: the RAG candidates best
        # first, then each search's results); search scores themselves tie across searches
        order = {cid: i for i, cid in enumerate(state.ctx.seen)}
        bonus = {cid: self.search_weight / (1.0 + 0.5 * i) for cid, i in order.items()}
        m = state.matcher.known([c.context_text() for c in state.ctx.seen.values()])
        nb = self.quantity_bonus if asks_quantity(state.question) else 0.02
        ev = best_evidence(list(state.ctx.read.values()), m, limit=500, bonus=bonus,
                           number_bonus=nb)
        floor = state.ctx.config.min_coverage if self.min_coverage is None else self.min_coverage
        if not ev or ev[0].coverage < floor:
            return ToolCall("answer", {"response": NOT_FOUND, "found": False, "citations": []})
        best_per_chunk: dict[str, Evidence] = {}
        for e in ev:  # ranked: the first unit seen of a chunk is its best
            best_per_chunk.setdefault(e.chunk.chunk_id, e)
        picked = [e for e in best_per_chunk.values()
                  if e.coverage >= max(floor, ev[0].coverage - self.close)][:self.max_citations]
        return ToolCall("answer", {
            "response": "\n".join(display_quote(e.text) for e in picked), "found": True,
            "citations": [{"chunk_id": e.chunk.chunk_id, "quote": e.text} for e in picked]})

    async def propose(self, state: LoopState) -> Turn:
        """The next calls (up to ``per_turn`` reads at once), from what has been seen and read
        so far (no I/O)."""
        return Turn(calls=self._next(state))

    def _next(self, state: LoopState) -> list[ToolCall]:
        m, ctx = state.matcher, state.ctx
        if not m.terms:
            return [ToolCall("fallback_to_rag", {"reason": "no key terms in the question"})]
        turns_left = ctx.config.max_loops - state.turn  # after this one
        if not self.searches:
            self.searches.append(state.question)
            searches = [ToolCall("search", {"query": state.question})]
            alt = " ".join(m.terms)
            if self.term_search and alt.replace(" ", "") != state.question.replace(" ", ""):
                self.searches.append(alt)
                searches.append(ToolCall("search", {"query": alt}))
            return searches
        if not self._matches(state):
            return [ToolCall("fallback_to_rag", {"reason": "no key term matches any chunk"})]
        if turns_left <= 0:
            return [self._answer(state)]
        best = best_evidence(list(ctx.read.values()), m, limit=1)
        if best and best[0].coverage >= 0.999 and self.reads >= self.per_turn:
            return [self._answer(state)]
        calls: list[ToolCall] = []
        if best and not self.paged:
            c = best[0].chunk
            tail = c.text.rstrip()
            runs_on = c.kind == "table" or "|" in best[0].text or not tail.endswith(_END)
            if runs_on and c.next_id and c.next_id not in ctx.read and best[0].coverage < 0.999:
                self.paged = True
                calls.append(ToolCall("next_chunk", {"chunk_id": c.chunk_id}))
        ranked = sorted(
            (cid for cid in ctx.seen if cid not in ctx.read),
            key=lambda cid: (-round(m.coverage(ctx.seen[cid].context_text()), 1),
                             -ctx.hits.get(cid, 0.0)))
        for cid in ranked:
            if len(calls) >= self.per_turn or self.reads >= self.max_reads:
                break
            if m.matched(ctx.seen[cid].context_text()):
                self.reads += 1
                calls.append(ToolCall("read", {"chunk_id": cid}))
        return calls or [self._answer(state)]
