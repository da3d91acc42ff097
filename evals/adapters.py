"""Answerers for the three evaluation modes, over the real product components.

- ``rag``  → :class:`RagPipelineAnswerer`: ``rag.pipeline.RagPipeline`` (hybrid retrieval,
  calibrated confidence, extractive answer); candidates = the retrieval's top-k items. Given the
  router, it reads every question as the gateway's rag mode does (``/v1/query`` with mode
  ``rag`` goes through ``Router.ask``, which reads it with ``Router.read_as``: a follow-up
  rewritten from the session memory, exclusion clauses left out, a relative period dated,
  cross-language terms, the session's focus document as the filter), and asks a follow-up's
  earlier turns through the router in mode ``rag`` in one session.
- ``loop`` → :class:`LoopAgentAnswerer`: ``loop.agent.LoopAgent`` seeded with the RAG
  retrieval's hits (as the router seeds it); offline reading policy when no LLM is configured;
  candidates = the chunks the agent read, in reading order, then the unread seeds. Given the
  router, it reads every question as the router does (``Router.read_as``: a follow-up rewritten
  from the session memory, exclusion clauses left out, a relative period dated), and asks a
  follow-up's earlier turns through the router in loop mode in one session.
- ``auto`` → :class:`RouterAnswerer`: ``gateway.routing.router.Router`` (mode ``auto``; answer cache
  bypassed); candidates = the route record's candidate chunk ids resolved in the store.

Follow-ups: the rag and loop answerers given the router read them from the session memory (or
the history) as the router does; without one, the retrieval query is built from the history as
the router builds it (``gateway.routing.rules.retrieval_query``); both through
:class:`evals.reading.RouterReading`. Blocking calls run in worker threads.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, Literal, cast

from corpus.types import Chunk, ChunkStore, SearchFilter, SearchHit
from evals.questions import Question
from evals.reading import Reading, RouterReading, ask_in_session
from evals.types import AnswerRecord, chunk_location, citation_location
from loop.types import NOT_FOUND as LOOP_NOT_FOUND

__all__ = [
    "LoopAgentAnswerer",
    "RagPipelineAnswerer",
    "RouterAnswerer",
    "citation_location",
    "chunk_location",
]

_PATHS = {"fallback_rag": "fallback_to_rag", "fallback_to_rag": "fallback_to_rag"}


class RagPipelineAnswerer(RouterReading):
    """``mode=rag``: the RAG fast path alone.

    :param pipeline: a warmed-up ``rag.pipeline.RagPipeline``.
    :param top_k: retrieval top-k (``None`` = the pipeline's configuration).
    :param router: the gateway's ``Router``: every question is read as its rag mode reads it
        (``Router.read_as``; the pipeline retrieves and answers the retrieval text, inside the
        session's focus document) and a follow-up's earlier turns are asked through it (mode
        ``rag``) in one session (:meth:`converse`); ``None``: the question as written, a
        follow-up with its earlier turn as ``history``.
    """

    mode: Literal["rag", "loop"] = "rag"

    def __init__(self, pipeline: Any, *, top_k: int | None = None,
                 router: Any | None = None) -> None:
        self.pipeline, self.top_k, self.router = pipeline, top_k, router

    async def run(self, read: Reading, collection: str, *, current_date: str | None,
                  t0: float) -> AnswerRecord:
        """Answer the question read as the router reads it from the top-k retrieval
        extractively (no LLM)."""
        ans = await asyncio.to_thread(self.pipeline.run, read.text, collection,
                                      top_k=self.top_k, flt=read.scope,
                                      current_date=current_date)
        ms = (time.perf_counter() - t0) * 1000.0
        r = ans.retrieval
        return AnswerRecord(
            answer=ans.answer,
            found=ans.found,
            citations=[citation_location(c) for c in (*ans.citations, *ans.related)],
            candidates=[chunk_location(it.chunk, it.score, it.pages[1]) for it in r.items],
            confidence=float(ans.confidence),
            route="rag",
            escalated=False,
            brain="extractive",
            latency_ms=round(ms, 2),
            route_record={
                "final_path": "rag",
                "retrieval_query": read.text,
                **read.shown,
                "mode": r.mode,
                "confidence": ans.confidence,
                # what the router's fitted rule reads at run time (RagResult.confidence)
                "retrieval_confidence": float(r.confidence.value) if r.items else None,
                "features": r.confidence.features.to_dict(),
                "support": dict(ans.support),
                "support_p": ans.support_p,
                **(
                    {"resolution": {"documents": list(r.resolution.paths),
                                    "reason": r.resolution.reason}}
                    if r.resolution is not None and r.resolution.filter is not None
                    else {}
                ),
                "flags": list(ans.flags),
                "timings_ms": {k: round(v, 2) for k, v in ans.timings_ms.items()},
            },
        )


class LoopAgentAnswerer(RouterReading):
    """``mode=loop``: the LoopAgent alone, seeded with the RAG retrieval's hits.

    :param agent: a ``loop.agent.LoopAgent``.
    :param retriever: the hybrid retriever used for the seeds (``None`` = no seeds).
    :param store: chunk store to resolve read chunk ids into locations.
    :param offline: force the offline reading policy.
    :param fallback: a ``RagPipeline`` that answers broadly (``top_k=broad_top_k``) when the
        agent hands the question back (``fallback_to_rag``), as the router does; ``None`` keeps
        the agent's own answer.
    :param router: the gateway's ``Router`` over the same agent: every question is read as it
        reads it (``Router.read_as``) and a follow-up's earlier turns are asked through it
        (mode ``loop``) in one session (:meth:`converse`); ``None``: the question as written,
        a follow-up with its earlier turn as ``history``.
    """

    mode: Literal["rag", "loop"] = "loop"

    def __init__(
        self,
        agent: Any,
        retriever: Any | None,
        store: ChunkStore,
        *,
        offline: bool = False,
        fallback: Any | None = None,
        broad_top_k: int = 12,
        router: Any | None = None,
    ) -> None:
        self.agent, self.retriever, self.store, self.offline = agent, retriever, store, offline
        self.fallback, self.broad_top_k, self.router = fallback, broad_top_k, router

    async def run(self, read: Reading, collection: str, *, current_date: str | None,
                  t0: float) -> AnswerRecord:
        """Seed, read, answer the question read as the router reads it; the record carries the
        loop's steps as its route record (with ``rewritten_question`` when it was rewritten)."""
        q, query = read.query, read.text
        seeds: list[SearchHit] = []
        confidence = None
        resolution: Any = None
        # the session's focus document (a follow-up stepping along its list), as the router
        scope = read.scope
        flt: SearchFilter | None = scope
        if self.retriever is not None:
            r = await asyncio.to_thread(self.retriever.run, query, collection, flt=scope)
            seeds = [SearchHit(c, it.score) for it in r.items for c in it.chunks]
            confidence = float(r.confidence.value)
            resolution = r.resolution
            # as the router does: that filter, else the loop reads inside the documents the
            # retrieval resolved the question to
            flt = scope or r.resolved_filter
        second_opinion = None
        if self.fallback is not None and self.retriever is not None and seeds:
            pipeline, retrieval = self.fallback, r

            async def second_opinion() -> bool:  # as the router asks it (gateway.routing)
                return bool(await asyncio.to_thread(pipeline.refuses, retrieval,
                                                    current_date=current_date))

        res = await self.agent.run_async(
            q.question,
            collection,
            candidates=seeds,
            history=list(q.history),
            current_date=current_date,
            offline=self.offline,
            flt=flt,
            search_query=query,
            second_opinion=second_opinion,
        )
        fallback = res.stop_reason == "fallback_to_rag"
        answer, found = res.answer, res.found
        citations = [citation_location(c) for c in (*res.citations, *res.related)]
        if (found and res.citations and resolution is not None
                and resolution.other_organisation(res.citations[0].doc_id)):
            # as the router does (gateway.routing.escalation): another issuer's figure for a
            # question about an organisation the collection has no document of
            answer, found = LOOP_NOT_FOUND, False
        if fallback and self.fallback is not None:
            broad = await asyncio.to_thread(
                self.fallback.run, query, collection, top_k=self.broad_top_k, flt=scope
            )
            answer, found = broad.answer, broad.found
            citations = [citation_location(c) for c in broad.citations]
        ms = (time.perf_counter() - t0) * 1000.0
        chunks_read = await asyncio.to_thread(self.store.get_chunks, collection,
                                              list(res.read_chunk_ids))
        seen = {c.chunk_id for c in chunks_read}
        cands = [chunk_location(c) for c in chunks_read]
        cands += [chunk_location(h.chunk, h.score) for h in seeds if h.chunk.chunk_id not in seen]
        return AnswerRecord(
            answer=answer,
            found=found,
            citations=citations,
            candidates=cands,
            confidence=confidence,
            route="fallback_to_rag" if fallback else "loop",
            escalated=False,
            brain=res.brain,
            unverified_citations=res.dropped_citations,
            llm_calls=res.llm_calls,
            tokens=res.tokens,
            latency_ms=round(ms, 2),
            route_record={
                "final_path": "loop",
                "retrieval_query": query,
                "seed_confidence": confidence,
                **read.shown,
                **res.to_dict(),
            },
        )


class RouterAnswerer(RouterReading):
    """``mode=auto`` (or ``rag``/``loop`` through the router): ``gateway.routing.router.Router.ask``
    with the answer cache bypassed. It asks the question as the other answerers' router reading
    does (:meth:`evals.reading.RouterReading.query`), and ``Router.ask`` reads it itself.

    :param router: the router, built over the real components.
    :param store: chunk store to resolve the route record's candidate chunk ids.
    :param mode: router mode sent with every question.
    """

    router: Any

    def __init__(self, router: Any, store: ChunkStore | None, *, mode: str = "auto") -> None:
        if mode not in ("auto", "rag", "loop"):
            raise ValueError(f"mode must be auto, rag or loop, not {mode!r}")
        self.router, self.store = router, store
        self.mode = cast(Literal["auto", "rag", "loop"], mode)

    async def converse(
        self, question: Question, collection: str, *, turns: Sequence[str],
        current_date: str | None,
    ) -> AnswerRecord:
        """Ask the earlier ``turns`` and then the question in one fresh session (through the
        session memory, no history sent; :func:`evals.reading.ask_in_session`); the record is
        the question's; the session is forgotten afterwards."""
        return await ask_in_session(self.router, self.mode, self.answer, question, collection,
                                    turns=turns, current_date=current_date)

    async def _read_as(self, question: Question, collection: str,
                       history: list[dict[str, str]], current_date: str | None,
                       session_id: str | None) -> Reading:
        """The question as sent (``Router.ask`` reads it itself)."""
        return Reading(self.query(question, collection, history, current_date, session_id),
                       question.question)

    async def run(self, read: Reading, collection: str, *, current_date: str | None,
                  t0: float) -> AnswerRecord:
        """Ask the router; map its route record onto the scored record."""
        res = await self.router.ask(read.query)
        ms = (time.perf_counter() - t0) * 1000.0
        route: dict[str, Any] = dict(res.route or {})
        ids = [str(i) for i in route.get("candidates") or []]
        chunks: Sequence[Chunk] = []
        if ids and self.store is not None:
            chunks = await asyncio.to_thread(self.store.get_chunks, collection, ids)
        steps = route.get("steps") or []
        llm_calls = sum(1 for s in steps if isinstance(s, dict) and s.get("kind") == "llm")
        if route.get("brain", "").startswith("llm") and not llm_calls:
            llm_calls = 1
        path = str(route.get("final_path") or "")
        conf = route.get("confidence")
        return AnswerRecord(
            answer=res.answer,
            found=res.found,
            citations=[citation_location(c) for c in (*res.citations, *res.related)],
            candidates=[chunk_location(c) for c in chunks],
            confidence=None if conf is None else float(conf),
            route=_PATHS.get(path, path or "unknown"),
            escalated=bool(route.get("escalated")),
            brain=str(route.get("brain") or ""),
            unverified_citations=int(route.get("dropped_citations") or 0),
            llm_calls=llm_calls,
            tokens=int(route.get("tokens") or 0),
            latency_ms=round(ms, 2),
            route_record=route,
        )
