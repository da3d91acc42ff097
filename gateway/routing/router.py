"""The RAG-first router: cache → RAG path → (escalate) LoopAgent → (fallback) broad RAG → cache
store → route record (DESIGN.md "The data that flows", step 2).

Every stage runs through :meth:`gateway.routing.stages.RouterStages._stage`, the one place
where per-stage timeouts (``timeout_search_s`` for the corpus version, ``timeout_retrieve_s``,
2 × ``llm_timeout_s`` + 1 s for an LLM answer, ``loop_deadline_s`` + 1 s for the LoopAgent,
``timeout_cache_s``) and the whole-request deadline (``request_deadline_s``) are enforced; LLM
calls also end ``llm_deadline_reserve_s`` before it (``loop.llm_breaker.llm_deadline``), which
leaves time for the answer without the LLM. A stage that times out is recorded
in the route record's ``timeouts``; the request then ends with the best answer it has — flagged
``degraded`` — and never raises to the HTTP layer. Per-tool timeouts inside the LoopAgent come
from ``timeout_tool_s`` and are passed to the agent (``gateway.engines``).

The router only talks to small protocols (:class:`RagBackend`, :class:`LoopBackend`,
:class:`AnswerCache`, :class:`RouteSink`) that ``gateway.engines`` implements over the real
``rag``, ``loop`` and cache/route-log components; decisions are the pure functions of
:mod:`gateway.routing.rules`.

Usage example::

    router = Router(settings, rag=rag_backend, loop=loop_backend, cache=cache, sink=sink,
                    corpus_version=lambda c: store.collection_meta(c).get("corpus_version", ""))
    result = await router.ask(QueryInput(question="退货期限是几天？", collection="default"))
    result.answer, result.citations, result.route["decision"]["reason"]

A multi-part or comparison question is split into parts that run this path concurrently
(``gateway.routing.plan``); an answer whose cited passages disagree with another document's is
rewritten around the newer one (stage ``conflict``, ``gateway.routing.conflict``).

``Router.ask`` runs the named stages below, each filling the typed route record
(:class:`gateway.routing.trace.RouteTrace`) through its methods; the record is serialised once,
when the answer is ready (``QueryResult.route``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from corpus.types import Chunk
from gateway.routing.cache_stages import CacheStages
from gateway.routing.conflict_stage import ConflictStages
from gateway.routing.escalation import EscalationStages
from gateway.routing.fit import load_routing_model
from gateway.routing.focus import apply_focus
from gateway.routing.plan import PlanStages, not_found_text
from gateway.routing.reference import DanglingReference
from gateway.routing.rules import RuleConfig, search_query
from gateway.routing.stages import Ctx, DeadlineExceeded, degraded_result
from gateway.routing.trace import RouteTrace
from gateway.routing.types import (
    AnswerCache,
    ConversationStage,
    ConversationTurn,
    EventSink,
    LoopBackend,
    QueryInput,
    QueryResult,
    RagBackend,
    RouteSink,
)
from gateway.settings import Settings
from loop.llm_breaker import llm_deadline

__all__ = ["ReadAs", "Router"]


@dataclass(frozen=True, slots=True)
class ReadAs:
    """A question as the router reads it before picking a path (:meth:`Router.read_as`).

    :ivar query: the question routed: a follow-up rewritten into a standalone question (its
        ``history`` then empty), exclusion clauses left out, cross-language key terms appended;
        ``filters`` the caller's, else the session's focus document when the rewrite stepped
        along a list of the previous answer's document, else none.
    :ivar retrieval_query: the text retrieval searches for it (follow-up with its previous turn
        when no memory rewrote it, a relative period with its year).
    :ivar record: the route record so far: ``rewritten_question`` (``None`` when read as
        asked), ``rewrite``, ``session``, ``cross_language``, flags.
    """

    query: QueryInput
    retrieval_query: str
    record: RouteTrace
    #: what leans on an earlier turn there is none of (``gateway.routing.reference``), or
    #: ``None``: the caller answers "not found" (:func:`gateway.routing.unresolved_answer`)
    unresolved: DanglingReference | None = None

    @property
    def rewritten_question(self) -> str | None:
        """The question shown as ``read as: …``, or ``None`` when it was read as asked."""
        return self.record.rewritten_question


class Router(PlanStages, CacheStages, EscalationStages, ConflictStages):
    """Routes one question through cache, RAG path and LoopAgent; see the module docstring.

    :param settings: thresholds, rules, timeouts.
    :param rag: the RAG path, or ``None`` when the chunk store is unavailable.
    :param loop: the LoopAgent path, or ``None`` when it cannot run.
    :param cache: the answer cache (Redis or in-process), or ``None``.
    :param sink: receives the finished route record (route log + metrics), or ``None``.
    :param corpus_version: ``collection -> version string`` (blocking; run in a thread).
    :param cached_version: ``collection -> version`` when known without I/O, else ``None``.
    :param collections: the names of the collections that exist (async; ``None`` when
        unknown), named in the answer for a collection that holds no documents.
    :param doc_head: ``(collection, doc_id) -> the document's first chunks`` (blocking; run in a
        thread): where the conflict check reads two disagreeing documents' titles and dates.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        rag: RagBackend | None,
        loop: LoopBackend | None,
        cache: AnswerCache | None = None,
        sink: RouteSink | None = None,
        corpus_version: Callable[[str], str] | None = None,
        cached_version: Callable[[str], str | None] | None = None,
        conversation: ConversationStage | None = None,
        doc_head: Callable[[str, str], list[Chunk]] | None = None,
        collections: Callable[[], Awaitable[frozenset[str] | None]] | None = None,
    ) -> None:
        self.settings = settings
        self.rag = rag
        self.loop = loop
        self.cache = cache
        self.sink = sink
        self.corpus_version = corpus_version
        self.cached_version = cached_version
        self.conversation = conversation
        self.doc_head = doc_head
        self.collections = collections
        self.routing_model = load_routing_model(settings)
        self.rules = RuleConfig(
            confidence_threshold=settings.confidence_threshold,
            on_reference=settings.escalate_on_reference,
            on_comparison=settings.escalate_on_comparison,
            on_multipart=settings.escalate_on_multipart,
            min_parts=settings.escalate_min_parts,
        )

    # ------------------------------------------------------------------------------- entry
    async def ask(self, q: QueryInput, on_event: EventSink | None = None) -> QueryResult:
        """Answer one question; never raises for timeouts (degraded answer instead).

        :raises ServiceUnavailable: ``mode=rag`` while the chunk store is down, or the requested
            path cannot run at all.
        """
        t0 = time.perf_counter()
        trace = RouteTrace.start(q.question, q.collection, q.mode)
        ctx = Ctx(time.monotonic() + self.settings.request_deadline_s, trace, on_event)
        turn = None
        try:
            # every LLM call below ends llm_deadline_reserve_s before the request deadline
            with llm_deadline(ctx.deadline - self.settings.llm_deadline_reserve_s):
                turn = await self._converse(ctx, q)
                if turn is not None and turn.reuse is not None:
                    result = turn.reuse  # a fact card of this session answers, nothing re-read
                elif (refused := await self._unresolved(ctx, q, turn)) is not None:
                    result = refused  # "下一条呢？" with no earlier turn: nothing to read it by
                else:
                    routed = self._routed(turn, q, ctx.record)
                    plan = self._plan_for(routed, ctx.record)
                    result = await (self._run_plan(ctx, routed, plan) if plan is not None
                                    else self._route(ctx, routed))
        except DeadlineExceeded as exc:
            trace.timeout(str(exc), 0.0, True)
            why = "the request deadline passed before an answer was ready"
            result = degraded_result(trace, why)
        total = round((time.perf_counter() - t0) * 1000, 3)
        trace.close({**ctx.timings, "total": total}, found=bool(result.found), cached=result.cached)
        await self._finish(ctx, turn, result)
        return result

    async def read_as(self, q: QueryInput) -> ReadAs:
        """``q`` as :meth:`ask` reads it before it picks a path, without answering: the
        conversation stage (session memory of ``q.session_id`` or ``q.history``: a follow-up
        rewritten into a standalone question, the session's focus document as the filter,
        cross-language key terms) and the focus rule (exclusion clauses left out), then the
        retrieval text (:func:`gateway.routing.rules.search_query`). Nothing is saved in the
        session. For callers that run one path themselves and must read the question as the
        router does (``loopgate ask --mode loop``, ``loopgate eval -m loop``).

        Never raises for a slow or failing session store (the question is then read as asked,
        like :meth:`ask` does)."""
        trace = RouteTrace.start(q.question, q.collection, q.mode)
        ctx = Ctx(time.monotonic() + self.settings.request_deadline_s, trace, None)
        turn = None
        with llm_deadline(ctx.deadline - self.settings.llm_deadline_reserve_s):
            try:
                turn = await self._converse(ctx, q)
            except DeadlineExceeded:
                pass
        routed = self._routed(turn, q, trace)
        return ReadAs(routed, search_query(routed.question, routed.history, routed.current_date),
                      trace, self._dangling(q, turn))

    @staticmethod
    def _routed(turn: ConversationTurn | None, q: QueryInput, record: RouteTrace) -> QueryInput:
        """The question every path reads: the conversation stage's (rewritten) question, else
        ``q``, without its exclusion clauses (``gateway.routing.focus``)."""
        return apply_focus(turn.query if turn is not None else q, record)

    async def _converse(self, ctx: Ctx, q: QueryInput) -> ConversationTurn | None:
        """Stage ``conversation``: session memory and query rewriting (``None``: nothing to do);
        a slow memory is not a degraded answer. It may use the time left before the deadline
        minus ``llm_deadline_reserve_s`` (at least 0.5 s), the time kept for retrieval and the
        extractive answer: a stall here (a frozen session store, the cross-language
        dictionary still loading at a cold start) never eats the whole request."""
        if (conv := self.conversation) is None:
            return None
        idle = getattr(conv, "idle_for", None)
        if idle is not None and idle(q):
            return None  # nothing to do, known without I/O (no session, no history, ...)
        keep = max(self.settings.llm_deadline_reserve_s, 0.5)
        # an LLM rewrite / key-term call adds its own timeout (conversation_llm_timeout_s)
        limit = min(self.settings.timeout_retrieve_s + getattr(conv, "llm_budget_s", 0.0),
                    max(0.05, ctx.deadline - time.monotonic() - keep))
        turn, _ = await self._stage(ctx, "conversation", lambda: conv.begin(q, ctx.record),
                                    limit)
        ctx.record.forget_timeouts("conversation")
        return turn

    async def _finish(self, ctx: Ctx, turn: ConversationTurn | None, result: QueryResult) -> None:
        """Save the turn in the session's memory, hand the record to the route log and metrics,
        serialise it once into ``result.route`` and send the ``answer`` event."""
        trace = ctx.record
        if turn is not None and self.conversation is not None \
                and "unresolved_reference" not in trace.flags:  # no turn to read a later one by
            try:
                async with asyncio.timeout(self.settings.timeout_cache_s * 2):
                    await self.conversation.finish(turn, result, trace)
            except Exception as exc:  # noqa: BLE001 - memory must never fail a request
                trace.error(f"session save: {type(exc).__name__}: {exc}")
        trace.assess(bool(result.found), result.citations, result.parts)
        result.route = trace.to_dict()
        later = getattr(self.sink, "record_later", None)
        if later is not None:  # recorded after the reply is written (RouteRecorder)
            later(result.route)
        elif self.sink is not None:
            try:
                async with asyncio.timeout(self.settings.timeout_cache_s):
                    await self.sink.record(result.route)
            except Exception as exc:  # noqa: BLE001 - the route log must never fail a request
                trace.error(f"route log: {exc}")  # result.route holds the same error list
        await self._emit(ctx, {"type": "answer", **result.to_dict(), "cached": result.cached,
                               "route": result.route})

    # ----------------------------------------------------------------------------- stages
    async def _route(self, ctx: Ctx, q: QueryInput) -> QueryResult:
        """Corpus version → cache → retrieval and decision → RAG or LoopAgent → cache store."""
        self._check_paths(q)
        version = await self._corpus_version(ctx, q)
        if version == "" and self.corpus_version is not None:
            return await self._empty_collection(ctx, q)
        if version is not None and q.cacheable() and self.cache is not None:
            hit = await self._cache_lookup(ctx, q, version)
            if hit is not None:
                return hit
        query = search_query(q.question, q.history, q.current_date)
        ctx.record.querying(query)
        rag_res = await self._retrieve(ctx, q, query, self.settings.rag_top_k, "retrieve")
        decision = await self._decide(ctx, q, rag_res)
        if decision.route == "rag":
            ctx.record.rag_path()
            draft = None if rag_res is None else await self._rag_answer(
                ctx, q.question, rag_res, broad=False, current_date=q.current_date)
        else:
            draft = (await self._computed_on_rag(ctx, q, rag_res)
                     or await self._loop_path(ctx, q, query, rag_res))
        if draft is None:
            return degraded_result(ctx.record, "no path produced an answer in time"
                                   if ctx.record.timeouts else "no path could answer")
        if self.settings.conflict_check and rag_res is not None and draft.found:
            draft = await self._conflicts(ctx, q, draft, rag_res)
        ctx.record.answered(draft.brain, draft.tokens, draft.flags)
        answer = draft.answer if draft.found else not_found_text(q.question, draft.answer)
        result = QueryResult(answer, draft.citations, draft.found, {}, cached=False,
                             related=draft.related, conflict=draft.conflict)
        if version is not None and q.cacheable() and self.cache is not None:
            await self._cache_store(ctx, q, version, result, draft.brain)
        return result
