"""The offline reading policy (no LLM configured; DESIGN.md "Without an LLM").

Through the same tools and controller as the LLM policies: key terms of the question →
``search`` (the question, its key terms, then once more without the product code every
candidate holds, or with only the key terms some candidate holds) and ``scan`` the directory of
the candidate documents (``loop.scan``; ``LoopConfig.directory_scan``) → ``read`` the best
candidates (ranked by key-term coverage, then search rank; a section the directory picked is
read when it covers the key terms better than the candidates left, a tie going to them) →
``next_chunk`` when the best evidence is a table or a section that runs on, or a chunk read ends
with the caption of a table the chunker put in the next chunk → ``answer`` with the best
sentence / table row by key-term coverage (verified citation), or ``found=false`` — unless
the unit ranked first lies in one of the RAG path's candidates the loop started from and covers
the floor lowered by ``strong_margin`` (``offline_rank.seed_evidence``: the loop does not end
with weaker evidence than the candidates it was given).
``fallback_to_rag`` when no key term matches any chunk.

What it searches and pages: ``loop.policies.offline_next``; the answer's evidence ranking:
``loop.policies.offline_rank``.
"""

from __future__ import annotations

import asyncio

from corpus.tuning import TUNING, OfflineTuning
from corpus.types import Chunk
from loop.controller import LoopState
from loop.evidence import (
    Evidence,
    asks_revision,
    best_evidence,
    is_revision_history,
)
from loop.policies.base import Turn
from loop.policies.offline_next import caption_chunk, first_searches, refine_query
from loop.policies.offline_rank import (
    Similarity,
    answer_call,
    coverage_floor,
    dense_settled,
    lexical_evidence,
    ranked_evidence,
    seed_evidence,
    similarities,
)
from loop.types import ToolCall, ToolResult, UnitEmbedder

__all__ = ["OfflinePolicy"]

_END = tuple("。！？.!?;；:：)")
# what ``_next`` proposes when it is time to answer; ``propose`` builds the real call
_ANSWER = ToolCall("answer", {})
class OfflinePolicy:
    """Deterministic reading without an LLM.

    :param embedder: dense embedder (``loop.types.UnitEmbedder``); on the answer turn the
        ``dense_units`` best units by key terms are embedded (in a worker thread) and their
        cosine to the question, min-max scaled, adds ``dense_weight`` to the ranking.
    :param tuning: the policy's knobs (``corpus.tuning.OfflineTuning``; default
        ``TUNING.offline``, each with the dev run that chose it): reads (``max_reads``,
        ``per_turn``), searches (``term_search``, ``refine``, ``subject_share``),
        ``seed_first``, the ranking (``search_weight`` / ``search_decay``,
        ``quantity_bonus``, ``dense_weight`` / ``dense_units``) and the answer
        (``max_citations``, ``close``, ``strong_margin``).
    :param min_coverage: share of key-term weight a unit must cover to be cited (default: the
        loop's ``LoopConfig.min_coverage``). The loop answers when the best-ranked unit covers
        it, or when another unit covers ``min_coverage + strong_margin``; else "not found".

    Usage example::

        result = await drive(OfflinePolicy(), state)
    """

    brain = "offline"

    def __init__(self, embedder: UnitEmbedder | None = None, *,
                 tuning: OfflineTuning = TUNING.offline,
                 min_coverage: float | None = None) -> None:
        self.tuning = tuning
        self.min_coverage = min_coverage
        self.searches: list[str] = []
        self.reads = 0
        self.paged = False
        self.refined = False
        self.caption_paged = False
        self.embedder = embedder
        self.dense_error = ""  # why the embedder failed (the answer then ranks by key terms)
        self.similarity: Similarity = {}  # the last answer turn's dense similarities (or {})
        self.last: tuple[ToolCall, ToolResult] | None = None
        self.planned: dict[str, Chunk] = {}  # chunks the directory scan picked (jump targets)
        self.seeds: list[str] = []
        self.candidates: frozenset[str] = frozenset()  # the RAG path's candidates (chunk ids)

    def observe(self, call: ToolCall, result: ToolResult) -> None:
        """Remember the last result (the policy reads its state from ``LoopState.ctx``) and
        the chunks a ``scan`` picked (read after the RAG candidates, :meth:`_next`)."""
        self.last = (call, result)
        if call.name == "scan" and result.status == "ok":
            for c in result.data:
                self.planned.setdefault(c.chunk_id, c)

    def _matches(self, state: LoopState) -> bool:
        return any(state.matcher.matched(c.context_text()) for c in state.ctx.seen.values())

    def _floor(self, state: LoopState) -> float:
        return coverage_floor(state, self.min_coverage)

    def ranked_evidence(self, state: LoopState, similarity: Similarity | None = None,
                        lexical: list[Evidence] | None = None) -> list[Evidence]:
        """Units of the chunks read, best first, that cover at least the coverage floor;
        ``[]`` when the loop should say not found (:func:`~loop.policies.offline_rank.
        ranked_evidence` over :func:`~loop.policies.offline_rank.lexical_evidence`;
        ``similarity`` from :meth:`similarities`, ``lexical`` when already computed)."""
        ev = lexical_evidence(state, self.tuning) if lexical is None else lexical
        return ranked_evidence(self.tuning, self._floor(state), similarity, ev)

    def similarities(self, state: LoopState,
                     lexical: list[Evidence] | None = None) -> Similarity:
        """Cosine of the question and each of the ``dense_units`` best units by the lexical
        ranking (``lexical`` when already computed), by ``(chunk id, unit text)`` (``{}``
        without an embedder). Blocking."""
        if self.embedder is None:
            return {}
        ev = lexical_evidence(state, self.tuning) if lexical is None else lexical
        return similarities(state, self.embedder, self.tuning.dense_units, ev)

    async def _final_answer(self, state: LoopState) -> ToolCall:
        """The answer call: evidence ranked by key terms once, then (with an embedder, in a
        worker thread) re-ranked with the dense similarity unless the key terms settle the
        answer whatever it is (:func:`~loop.policies.offline_rank.dense_settled`: nothing
        embedded); an embedder failure leaves the key-term ranking (``dense_error`` says
        why). When that says not found, :func:`~loop.policies.offline_rank.seed_evidence`
        may still answer from the RAG candidates (:attr:`candidates`)."""
        lexical = lexical_evidence(state, self.tuning)
        sims: Similarity = {}
        if self.embedder is not None and not dense_settled(self.tuning, self._floor(state),
                                                           lexical):
            try:
                sims = await asyncio.to_thread(self.similarities, state, lexical)
            except Exception as exc:  # noqa: BLE001 - dense ranking is optional: key terms only
                self.dense_error = f"{type(exc).__name__}: {exc}"[:200]
        self.similarity = sims
        floor = self._floor(state)
        ev = self.ranked_evidence(state, sims, lexical)
        if not ev:  # not found: unless the RAG candidates and the ranking agree (seed_evidence)
            ev, floor = seed_evidence(self.tuning, floor, lexical, self.candidates)
        return answer_call(ev, self.tuning, floor, state.matcher, state.question)

    async def final_answer(self, state: LoopState) -> ToolCall:
        """The ``answer`` call over the chunks read so far (as on the answer turn)."""
        return await self._final_answer(state)

    async def propose(self, state: LoopState) -> Turn:
        """The next calls (up to ``per_turn`` reads at once), from what has been seen and read
        so far; the answer turn ranks evidence with the embedder (in a worker thread) when
        there is one."""
        calls = self._next(state)
        if len(calls) == 1 and calls[0] is _ANSWER:
            calls = [await self._final_answer(state)]
        return Turn(calls=calls)

    def _next(self, state: LoopState) -> list[ToolCall]:
        m, ctx = state.matcher, state.ctx
        if not m.terms:
            return [ToolCall("fallback_to_rag", {"reason": "no key terms in the question"})]
        turns_left = ctx.config.max_loops - state.turn  # after this one
        if not self.searches:
            # the RAG candidates (shown first, best first): the first reads when seed_first
            self.candidates = frozenset(ctx.seen)
            self.seeds = [cid for cid in ctx.seen if m.matched(ctx.seen[cid].context_text())]
            searches = first_searches(state, self.tuning)
            self.searches.extend(searches)
            opening = [ToolCall("search", {"query": q}) for q in searches]
            if ctx.config.directory_scan:  # after the searches: their documents are candidates
                opening.append(ToolCall("scan", {"query": " ".join(m.terms)}))
            return opening
        if not self._matches(state):
            return [ToolCall("fallback_to_rag", {"reason": "no key term matches any chunk"})]
        if turns_left <= 0:
            return [_ANSWER]
        calls: list[ToolCall] = []
        if self.tuning.refine and not self.refined:
            self.refined = True
            query = refine_query(state, self.tuning)
            if query and query not in self.searches:
                self.searches.append(query)
                calls.append(ToolCall("search", {"query": query}))
        best = best_evidence(list(ctx.read.values()), m, limit=1)
        if best and best[0].coverage >= 0.999 and self.reads >= self.tuning.per_turn:
            return [_ANSWER]
        if best and not self.paged:
            c = best[0].chunk
            tail = c.text.rstrip()
            runs_on = c.kind == "table" or "|" in best[0].text or not tail.endswith(_END)
            if runs_on and c.next_id and c.next_id not in ctx.read and best[0].coverage < 0.999:
                self.paged = True
                calls.append(ToolCall("next_chunk", {"chunk_id": c.chunk_id}))
        if not self.caption_paged:
            page = caption_chunk(state, self._floor(state))
            # the best evidence's own paging may already have asked for the same next chunk
            if page is not None and ToolCall("next_chunk", {"chunk_id": page}) not in calls:
                self.caption_paged = True
                calls.append(ToolCall("next_chunk", {"chunk_id": page}))
        demote = not asks_revision(state.question)

        unread = [
            cid
            for cid in ctx.seen
            if cid not in ctx.read and m.matched(ctx.seen[cid].context_text())
        ]
        # scan → jump: sections the directory picked that no search showed, once the first
        # candidates are read (or none is left) and the best unit read is weak (below the
        # coverage a unit needs to answer on its own: floor + strong_margin); read when they
        # cover the key terms better than the candidates left (a tie goes to them)
        floor = self._floor(state)
        first = self.reads < self.tuning.per_turn and unread
        done = bool(best) and best[0].coverage >= floor + self.tuning.strong_margin
        jump = set() if first or done else {
            cid for cid, c in self.planned.items()
            if cid not in ctx.seen and cid not in ctx.read
            and m.coverage(c.context_text()) >= floor}

        def score(cid: str) -> float:
            c = ctx.seen[cid] if cid in ctx.seen else self.planned[cid]
            demoted = demote and is_revision_history(c)
            penalty = TUNING.evidence.revision_penalty if demoted else 0.0
            return round(m.coverage(c.context_text()) - penalty, 1)

        ranked = sorted([*unread, *jump], key=lambda cid: (-score(cid), cid in jump,
                                                           -ctx.hits.get(cid, 0.0), cid))
        if self.tuning.seed_first and self.reads == 0:  # start from what RAG found, in its order
            first_seeds = [c for c in self.seeds[:self.tuning.per_turn] if c in unread]
            ranked = [*first_seeds, *(c for c in ranked if c not in first_seeds)]
        # never let the tool-call budget end the loop: the next turn must still answer
        room = 2 * ctx.config.max_loops - 1 - state.tool_calls
        calls = calls[:max(0, room)]
        for cid in ranked:
            if (len(calls) >= min(self.tuning.per_turn, room)
                    or self.reads >= self.tuning.max_reads):
                break
            self.reads += 1
            calls.append(ToolCall("read", {"chunk_id": cid}))
        return calls or [_ANSWER]
