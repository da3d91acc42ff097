"""The LoopAgent path behind the router's ``LoopBackend`` protocol (``gateway.routing.types``).

:class:`LoopAgentEngine` – ``loop.agent.LoopAgent``; step events become short progress texts
("searching 'warranty'", "reading policy.md p.12", :func:`describe_step`); its LLM calls end
``llm_reserve_s`` before the agent's deadline (``loop.llm_breaker.llm_deadline``); an LLM
that could not be reached or failed mid-run is flagged ``llm_unavailable`` and the offline
policy answers; an embedder failure in the offline policy's evidence ranking is flagged
``embedder_unavailable``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from corpus.types import ChunkStore, SearchFilter, SearchHit
from gateway.routing import AnswerDraft, EventSink, LoopResult
from loop.agent import LoopAgent
from loop.llm_breaker import llm_deadline
from loop.results import StepEvent
from loop.second_opinion import SecondOpinion

__all__ = ["LoopAgentEngine", "describe_step"]


def describe_step(ev: dict[str, Any], page_of: dict[str, str] | None = None) -> str:
    """A short progress text for one LoopAgent step ("searching 'warranty'", "reading p.12")."""
    tool, args = ev.get("tool", ""), ev.get("arguments") or {}
    if ev.get("kind") == "llm":
        if ev.get("status") == "ok":
            return "thinking"
        return f"LLM {ev.get('status')}: {ev.get('note', '')}"
    if ev.get("kind") == "stop":
        return f"stopped: {ev.get('status')}"
    ref = str(args.get("chunk_id", ""))
    where = (page_of or {}).get(ref, ref[:20])
    return {
        "search": f"searching '{args.get('query', '')}'",
        "read": f"reading {where}",
        "next_chunk": f"reading on: {where}",
        "prev_chunk": f"reading back: {where}",
        "scan": f"looking up '{args.get('query', '')}' in the documents' section directory",
        "outline": f"outline of {args.get('doc', args.get('document', ''))}",
        "summarize": "taking notes",
        "answer": "answering",
        "fallback_to_rag": f"handing back to RAG: {args.get('reason', '')}",
    }.get(tool, tool or str(ev.get("kind", "")))


class LoopAgentEngine:
    """The LoopAgent path for the router.

    :param agent: a ``loop.agent.LoopAgent``.
    :param store: the chunk store (to name the page of a chunk being read in progress events).
    :param deadline_s: the agent's wall-clock budget, seconds (default: ``agent.config``).
    :param llm_reserve_s: seconds before that deadline at which every LLM call ends, left for
        the offline policy's answer when the LLM fails.
    """

    def __init__(self, agent: LoopAgent, store: ChunkStore | None, *,
                 deadline_s: float | None = None, llm_reserve_s: float = 1.0) -> None:
        self.agent = agent
        self.store = store
        cfg = getattr(agent, "config", None)
        self.deadline_s = deadline_s if deadline_s is not None else getattr(cfg, "deadline_s", None)
        self.llm_reserve_s = llm_reserve_s

    async def run(self, collection: str, question: str, *, seeds: Sequence[SearchHit],
                  history: Sequence[dict[str, str]], on_event: EventSink | None,
                  flt: SearchFilter | None = None, current_date: str | None = None,
                  search_query: str | None = None, required: Sequence[str] = (),
                  second_opinion: SecondOpinion | None = None) -> LoopResult:
        """Run the agent; returns the router's ``LoopResult`` (draft or fallback reason).
        ``required``: names the cited document must write; ``second_opinion``: the RAG path's
        verdict, asked for a weakly supported answer (``LoopAgent.run_async``)."""
        pages: dict[str, str] = {h.chunk.chunk_id: f"{h.chunk.path} p.{h.chunk.page_start}"
                                 for h in seeds}

        offline_switch: list[str] = []  # notes of LLM failures (every step passes through here)

        async def forward(step: StepEvent) -> None:
            ev = step.to_dict()
            if ev.get("kind") == "llm" and ev.get("status") == "error":
                offline_switch.append(str(ev.get("note", "")))
            ref = str((ev.get("arguments") or {}).get("chunk_id", ""))
            if ref and ref not in pages and self.store is not None:
                try:
                    found = await asyncio.to_thread(self.store.get_chunks, collection, [ref])
                    if found:
                        pages[ref] = f"{found[0].path} p.{found[0].page_start}"
                except Exception:  # noqa: BLE001 - progress text only
                    pass
            ev["text"] = describe_step(ev, pages)
            if on_event is not None:
                await on_event(ev)

        kw: dict[str, Any] = dict(candidates=list(seeds), history=list(history),
                                  on_event=forward, flt=flt, current_date=current_date,
                                  search_query=search_query, required=list(required),
                                  second_opinion=second_opinion)
        end = (time.monotonic() + self.deadline_s - self.llm_reserve_s) if self.deadline_s else None
        with llm_deadline(end):
            res = await self.agent.run_async(question, collection, **kw)
        prior: list[dict[str, Any]] = []
        tokens = res.tokens
        if res.stop_reason == "llm_error":  # the LLM failed mid-run: the offline policy answers
            offline_switch.append("offline policy after an LLM fault")
            prior = [s.to_dict() for s in res.steps]
            res = await self.agent.run_async(question, collection, offline=True, **kw)
            tokens += res.tokens
        steps = prior + [s.to_dict() for s in res.steps]
        flags = ["llm_unavailable"] if any("offline" in n for n in offline_switch) else []
        if res.stop_reason not in ("answer", "fallback_to_rag"):
            flags.append(f"loop_stop:{res.stop_reason}")
        if res.dense_error:
            flags.append("embedder_unavailable")
        if res.unsupported_sentences:  # dropped by loop.answer_checks.checked
            flags.append(f"unsupported_sentences:{res.unsupported_sentences}")
        if res.computed:  # a change or ratio computed from the statement rows read
            flags.append("computed")
        if res.absent_terms:  # the cited document lacks a number / code / year asked for
            flags.append("absent_in_document:" + ",".join(res.absent_terms))
        flags.extend(res.out_of_scope)  # not on the page asked, no colour stated …
        if res.fast_path_refused:  # weak support, and RAG refused too (loop.second_opinion)
            flags.append("fast_path_refused")
        brain = "loop-offline" if res.brain == "offline" else f"loop-{res.brain}"
        if res.fallback:
            return LoopResult(None, res.fallback_reason or "broad question", steps, tokens,
                              flags, res.dropped_citations)
        draft = AnswerDraft(res.answer, list(res.citations), res.found, brain, 0, [],
                            related=list(res.related))
        return LoopResult(draft, None, steps, tokens, flags, res.dropped_citations)
