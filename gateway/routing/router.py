"""The RAG-first router: cache → RAG path → (escalate) LoopAgent → (fallback) broad RAG → cache
store → route record (DESIGN.md "The data that flows", step 2).

Every stage runs through :meth:`gateway.routing.stages.RouterStages._stage`, the one place
where per-stage timeouts (``timeout_search_s`` for the corpus version, ``timeout_retrieve_s``,
2 × ``llm_timeout_s`` + 1 s for an LLM answer, ``loop_deadline_s`` + 1 s for the LoopAgent,
``timeout_cache_s``) and the whole-request deadline (``request_deadline_s``) are enforced; LLM
calls also end ``llm_deadline_reserve_s`` before it (``loop.llm_breaker.llm_deadline``), which
leaves time for the answer without the LLM. A stage that times out is recorded
in ``route["timeouts"]``; the request then ends with the best answer it has — flagged
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
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from corpus.errors import StoreError
from gateway.errors import DataDirLocked, ServiceUnavailable, is_lock_error
from gateway.routing.fit import RoutingModel, decision_features
from gateway.routing.rules import (
    Decision,
    RuleConfig,
    Signal,
    decide,
    detect_signals,
    retrieval_query,
)
from gateway.routing.stages import Ctx, DeadlineExceeded, RouterStages, degraded_result, new_record
from gateway.routing.types import (
    AnswerCache,
    AnswerDraft,
    ConversationStage,
    EventSink,
    LoopBackend,
    QueryInput,
    QueryResult,
    RagBackend,
    RagResult,
    RouteSink,
)
from gateway.settings import Settings
from loop.llm_breaker import llm_deadline

__all__ = ["Router"]


class Router(RouterStages):
    """Routes one question through cache, RAG path and LoopAgent; see the module docstring.

    :param settings: thresholds, rules, timeouts.
    :param rag: the RAG path, or ``None`` when the chunk store is unavailable.
    :param loop: the LoopAgent path, or ``None`` when it cannot run.
    :param cache: the answer cache (Redis or in-process), or ``None``.
    :param sink: receives the finished route record (route log + metrics), or ``None``.
    :param corpus_version: ``collection -> version string`` (blocking; run in a thread).
    :param cached_version: ``collection -> version`` when known without I/O, else ``None``.
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
    ) -> None:
        self.settings = settings
        self.rag = rag
        self.loop = loop
        self.cache = cache
        self.sink = sink
        self.corpus_version = corpus_version
        self.cached_version = cached_version
        self.conversation = conversation
        self.routing_model = _routing_model(settings)
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
        record = new_record(q)
        ctx = Ctx(time.monotonic() + self.settings.request_deadline_s, record, on_event)
        turn = None
        try:
            # every LLM call below ends llm_deadline_reserve_s before the request deadline
            with llm_deadline(ctx.deadline - self.settings.llm_deadline_reserve_s):
                if (conv := self.conversation) is not None:  # memory + query rewriting
                    turn, _ = await self._stage(ctx, "conversation",
                                                lambda: conv.begin(q, record),
                                                self.settings.timeout_retrieve_s)
                    record["timeouts"] = [t for t in record["timeouts"]
                                          if t["stage"] != "conversation"]
                if turn is not None and turn.reuse is not None:
                    result = turn.reuse  # a fact card of this session answers, nothing re-read
                else:
                    result = await self._ask(ctx, turn.query if turn is not None else q)
        except DeadlineExceeded as exc:
            record["timeouts"].append({"stage": str(exc), "limit_s": 0.0, "request_deadline": True})
            result = degraded_result(record, "the request deadline passed before an answer was ready")
        record["latency_ms"] = {**ctx.timings, "total": round((time.perf_counter() - t0) * 1000, 3)}
        cut = bool(record["timeouts"]) or "loop_error" in record["flags"]
        record["degraded"] = cut and not result.cached
        if record["degraded"] and "degraded" not in record["flags"]:
            record["flags"].append("degraded")
        record["found"] = bool(result.found)  # the dashboard's and metrics' not-found figures
        result.route = record
        if turn is not None and self.conversation is not None:
            try:
                async with asyncio.timeout(self.settings.timeout_cache_s * 2):
                    await self.conversation.finish(turn, result, record)
            except Exception as exc:  # noqa: BLE001 - memory must never fail a request
                record["errors"].append(f"session save: {type(exc).__name__}: {exc}")
        if self.sink is not None:
            try:
                async with asyncio.timeout(self.settings.timeout_cache_s):
                    await self.sink.record(record)
            except Exception as exc:  # noqa: BLE001 - the route log must never fail a request
                record["errors"].append(f"route log: {exc}")
        await self._emit(
            ctx, {"type": "answer", **result.to_dict(), "cached": result.cached, "route": record}
        )
        return result

    async def _ask(self, ctx: Ctx, q: QueryInput) -> QueryResult:
        rec = ctx.record
        if q.mode == "rag" and self.rag is None:
            raise ServiceUnavailable("the chunk store is unavailable, so mode=rag cannot answer")
        if self.loop is None and (q.mode == "loop" or self.rag is None):
            raise ServiceUnavailable("the chunk store is unavailable: no path can answer")
        known = (self.cached_version(q.collection)
                 if self.cached_version is not None and self.corpus_version is not None else None)
        try:
            version = known
            if known is None:
                version, _ = await self._stage(
                    ctx, "corpus_version", lambda: self._version(q.collection),
                    self.settings.timeout_search_s,
                )
        except StoreError as exc:
            if is_lock_error(exc):
                raise DataDirLocked(str(exc)) from exc
            version = None
            rec["flags"].append("store_unavailable")
            rec["errors"].append(f"corpus_version: {exc}")
        rec["corpus_version"] = version or ""
        if version == "" and self.corpus_version is not None:
            rec.update(final_path="empty_collection", brain="none")
            rec["decision"] = {"route": "none", "reason": f"collection {q.collection!r} holds "
                               "no documents yet"}
            await self._emit(ctx, {"type": "route", **rec["decision"]})
            return QueryResult(f"Not found: collection {q.collection!r} holds no documents yet.",
                               [], False, {}, cached=False)
        # 1. cache
        if self.cache is not None and version is not None and _cacheable(q):
            cache = self.cache
            hit = self._peek(ctx, q, version)  # in-process near-cache: no I/O, no timeout
            if hit is not None:
                return await self._cache_hit(ctx, hit, "answer cache hit (near)")
            try:
                hit, _ = await self._stage(
                    ctx, "cache_get",
                    lambda: cache.get(q.question, q.collection, q.mode, version or ""),
                    self.settings.timeout_cache_s,
                )
            except (ServiceUnavailable, ValueError, OSError) as exc:
                hit = None
                rec["flags"].append("cache_unavailable")
                rec["errors"].append(f"cache_get: {exc}")
            if rec["timeouts"] and rec["timeouts"][-1]["stage"] == "cache_get":
                rec["timeouts"].pop()  # a slow cache is a miss, not a degraded answer
                rec["flags"].append("cache_timeout")
            if hit is not None:
                return await self._cache_hit(ctx, hit, "answer cache hit")
        # 2. RAG retrieval (also seeds the LoopAgent)
        query = retrieval_query(q.question, q.history)
        rec["retrieval_query"] = query
        signals = detect_signals(q.question, self.rules)
        rag_res = await self._retrieve(ctx, q, query, self.settings.rag_top_k, "retrieve")
        if rag_res is not None:
            rec["confidence"] = rag_res.confidence
            rec["features"] = rag_res.features
            res = getattr(rag_res.raw, "resolution", None)
            if res is not None and res.sure and res.doc_ids:
                rec["resolution"] = {"documents": list(res.paths), "reason": res.reason}
            rec["candidates"] = [h.chunk.chunk_id for h in rag_res.hits]
        store_ok = "store_unavailable" not in rec["flags"]
        decision = decide(
            q.mode, rag_res.confidence if rag_res and rag_res.hits else None, signals, self.rules,
            rag_available=self.rag is not None and store_ok, loop_available=self.loop is not None,
        )
        # the fitted rule replaces the confidence threshold; question signals still escalate
        # unless the fit found that they do not gain (RoutingModel.signals_escalate)
        if (self.routing_model is not None and q.mode == "auto" and rag_res is not None
                and rag_res.hits and store_ok and self.loop is not None
                and (not decision.signals or not self.routing_model.signals_escalate)):
            decision = fitted_decision(self.routing_model, q.question, rag_res,
                                       detect_signals(q.question))
        rec["decision"] = {"route": decision.route, "reason": decision.reason,
                           "signals": [s.kind for s in decision.signals]}
        await self._emit(ctx, {"type": "route", **rec["decision"],
                               "confidence": rec.get("confidence")})
        draft: AnswerDraft | None = None
        if decision.route == "rag":
            rec["final_path"] = "rag"
            if rag_res is not None:
                draft = await self._rag_answer(ctx, q.question, rag_res, broad=False)
        else:
            rec["escalated"] = q.mode == "auto"
            rec["final_path"] = "loop"
            loop_res = await self._loop_run(ctx, q, rag_res)
            if loop_res is not None:
                rec["steps"] = loop_res.steps
                rec["tokens"] += loop_res.tokens
                rec["flags"].extend(f for f in loop_res.flags if f not in rec["flags"])
                rec["dropped_citations"] = loop_res.dropped_citations
                if loop_res.fallback_reason is not None and self.rag is not None and store_ok:
                    rec["fallback"] = {"reason": loop_res.fallback_reason}
                    rec["final_path"] = "fallback_rag"
                    await self._emit(ctx, {"type": "route", "route": "rag",
                                           "reason": f"fallback_to_rag: {loop_res.fallback_reason}"})
                    broad = await self._retrieve(
                        ctx, q, query, self.settings.rag_broad_top_k, "retrieve_broad"
                    )
                    if broad is not None:
                        draft = await self._rag_answer(ctx, q.question, broad, broad=True)
                else:
                    draft = loop_res.draft
            elif rag_res is not None and rag_res.hits and self.rag is not None:
                # the LoopAgent timed out or failed: degrade to the RAG answer we already have
                rec["final_path"] = "rag_degraded"
                draft = await self._rag_answer(ctx, q.question, rag_res, broad=False)
        if draft is None:
            return degraded_result(rec, "no path produced an answer in time"
                             if rec["timeouts"] else "no path could answer")
        rec["brain"] = draft.brain
        rec["tokens"] += draft.tokens
        rec["flags"].extend(f for f in draft.flags if f not in rec["flags"])
        result = QueryResult(draft.answer, draft.citations, draft.found, {}, cached=False,
                             related=draft.related)
        # 3. cache store (never a degraded answer)
        if (self.cache is not None and version is not None and _cacheable(q)
                and not rec["timeouts"] and "loop_error" not in rec["flags"]):
            cache = self.cache
            payload = {**result.to_dict(), "brain": draft.brain}
            try:
                await self._stage(
                    ctx, "cache_put",
                    lambda: cache.put(q.question, q.collection, q.mode, version or "", payload),
                    self.settings.timeout_cache_s,
                )
            except (ServiceUnavailable, ValueError, OSError, TypeError) as exc:
                if "cache_unavailable" not in rec["flags"]:
                    rec["flags"].append("cache_unavailable")
                rec["errors"].append(f"cache_put: {exc}")
            # a slow cache write is not a degraded answer
            rec["timeouts"] = [t for t in rec["timeouts"] if t["stage"] != "cache_put"]
        return result


def _cacheable(q: QueryInput) -> bool:
    """Whether the answer cache may serve or store this request: not when the caller turned it
    off, nor when filters restrict the documents (the cache key does not carry filters, so a
    filtered question must never be answered from, or leave, an unfiltered entry); likewise a
    question asked with a ``current_date``, whose answer may depend on that date."""
    return (q.use_cache and q.current_date is None
            and (q.filters is None or q.filters.is_empty()))


def _routing_model(settings: Settings) -> RoutingModel | None:
    """The fitted escalation rule when ``router_rule`` is ``fitted`` and a model file exists."""
    if settings.router_rule != "fitted":
        return None
    from pathlib import Path

    return RoutingModel.load(Path(settings.router_model_path) if settings.router_model_path
                             else None)


def fitted_decision(model: RoutingModel, question: str, rag_res: RagResult,
                    signals: list[Signal]) -> Decision:
    """Route by the fitted rule (``gateway.routing.fit``); the reason names score and threshold."""
    kinds = [s.kind for s in signals]
    res = getattr(rag_res.raw, "resolution", None)
    feats = decision_features(rag_res.confidence, rag_res.features, question, kinds,
                              rag_res.hits[0].chunk.path,
                              resolved=bool(res is not None and res.sure and res.doc_ids))
    esc, p = model.escalate(feats)
    if esc:
        return Decision("loop", f"escalated: fitted rule, LoopAgent gain score {p:.2f} >= "
                        f"{model.threshold:.2f}", tuple(signals))
    return Decision("rag", f"RAG kept: fitted rule, LoopAgent gain score {p:.2f} < "
                    f"{model.threshold:.2f}")
