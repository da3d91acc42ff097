"""The router's stages and the one place where timeouts are enforced (:meth:`RouterStages._stage`).

Split from ``gateway.routing.router`` (which holds the orchestration, :class:`Router`):
each stage — corpus version, retrieval, RAG answer, LoopAgent run — runs under
``min(its own limit, time left before the whole-request deadline)``; a stage that times out is
recorded in the route record's ``timeouts`` and returns ``None``; no time left raises
:class:`DeadlineExceeded`, which the router turns into a degraded answer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from corpus.errors import StoreError
from gateway.errors import DataDirLocked, ServiceUnavailable, is_lock_error
from gateway.routing.reference import DanglingReference, dangling_reference, unresolved_answer
from gateway.routing.trace import RouteTrace
from gateway.routing.types import (
    AnswerCache,
    AnswerDraft,
    ConversationTurn,
    EventSink,
    LoopBackend,
    QueryInput,
    QueryResult,
    RagBackend,
    RagResult,
    RouteSink,
)
from gateway.settings import Settings

__all__ = ["Ctx", "DeadlineExceeded", "RouterStages", "degraded_result", "search_text"]

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """The whole-request deadline has passed (internal; becomes a degraded answer)."""


@dataclass
class Ctx:
    """Per-request state: the route record under construction and the absolute deadline."""

    deadline: float
    record: RouteTrace
    emit: EventSink | None
    timings: dict[str, float] = field(default_factory=dict)
    #: step events held until the route decision is sent (the stream starts with ``route``)
    pending: list[dict[str, Any]] = field(default_factory=list)


class RouterStages:
    """Stage helpers shared by :class:`gateway.routing.Router` (state set by its ``__init__``)."""

    settings: Settings
    rag: RagBackend | None
    loop: LoopBackend | None
    cache: AnswerCache | None
    sink: RouteSink | None
    corpus_version: Callable[[str], str] | None
    cached_version: Callable[[str], str | None] | None
    collections: Callable[[], Awaitable[frozenset[str] | None]] | None

    # ------------------------------------------------------------------ the one timeout place
    async def _stage(
        self, ctx: Ctx, name: str, make: Callable[[], Awaitable[T]], limit_s: float
    ) -> tuple[T | None, bool]:
        """Run ``make()`` under ``min(limit_s, time left before the request deadline)``.

        :returns: ``(value, timed_out)``; ``value`` is ``None`` when it timed out.
        :raises DeadlineExceeded: when no time is left before the stage starts.
        """
        left = ctx.deadline - time.monotonic()
        if left <= 0.001:
            raise DeadlineExceeded(name)
        budget = min(limit_s, left)
        t0 = time.perf_counter()
        try:
            async with asyncio.timeout(budget):
                return await make(), False
        except TimeoutError:
            ctx.record.timeout(name, round(budget, 3), budget < limit_s)
            return None, True
        finally:
            ms = (time.perf_counter() - t0) * 1000
            ctx.timings[name] = round(ctx.timings.get(name, 0.0) + ms, 3)

    async def _emit(self, ctx: Ctx, event: dict[str, Any]) -> None:
        if ctx.emit is not None:
            await ctx.emit(event)
            if event.get("type") == "route" and ctx.pending:
                held, ctx.pending = ctx.pending, []
                for ev in held:
                    await ctx.emit(ev)

    # ------------------------------------------------------------------------------ stages
    def _check_paths(self, q: QueryInput) -> None:
        """:raises ServiceUnavailable: the requested path cannot run at all."""
        if q.mode == "rag" and self.rag is None:
            raise ServiceUnavailable("the chunk store is unavailable, so mode=rag cannot answer")
        if self.loop is None and (q.mode == "loop" or self.rag is None):
            raise ServiceUnavailable("the chunk store is unavailable: no path can answer")

    async def _corpus_version(self, ctx: Ctx, q: QueryInput) -> str | None:
        """Stage ``corpus_version`` (skipped when the version is known without I/O); ``None``
        when the store is down (flag ``store_unavailable``).

        :raises DataDirLocked: another process holds the embedded data directory.
        """
        version = (self.cached_version(q.collection)
                   if self.cached_version is not None and self.corpus_version is not None
                   else None)
        try:
            if version is None:
                version, _ = await self._stage(
                    ctx, "corpus_version", lambda: self._version(q.collection),
                    self.settings.timeout_search_s,
                )
        except StoreError as exc:
            if is_lock_error(exc):
                raise DataDirLocked(str(exc)) from exc
            version = None
            ctx.record.store_unavailable("corpus_version", exc)
        ctx.record.versioned(version)
        return version

    async def _empty_collection(self, ctx: Ctx, q: QueryInput) -> QueryResult:
        """The collection holds no documents yet: a "not found" naming the collections that
        exist (the request may have meant one of them)."""
        ctx.record.empty_collection(q.collection)
        await self._emit(ctx, {"type": "route", **ctx.record.decision})
        names = await self.collections() if self.collections is not None else None
        others = sorted(set(names or ()) - {q.collection})
        answer = f"Not found: collection {q.collection!r} holds no documents yet."
        if others:
            answer += (f" Collections that exist: {', '.join(others)}; name one in the "
                       "request's \"collection\" field.")
        return QueryResult(answer, [], False, {}, cached=False)

    def _dangling(self, q: QueryInput,
                  turn: ConversationTurn | None) -> DanglingReference | None:
        """What in ``q`` leans on an earlier turn when there is none — no previous turn in the
        session memory (``turn.previous``), no user turn in ``history`` —
        (:func:`gateway.routing.reference.dangling_reference`); ``None`` when the question
        stands, has its earlier turn, or the conversation stage did not answer for a session
        (its memory may hold the turn); a pronoun is no dangling reference when the
        request's filters name its documents (the document is the referent)."""
        if getattr(turn, "previous", None) or any(
                t.get("role") == "user" and t.get("content", "").strip() for t in q.history):
            return None
        if turn is None and q.session_id and getattr(self, "conversation", None) is not None:
            return None
        ref = dangling_reference(q.question)
        if (ref is not None and ref.kind == "pronoun" and q.filters is not None
                and not q.filters.is_empty()):
            # the request names its documents: "When does it open?" over canteen.md asks
            # about what the document is about, a referent the caller gave
            return None
        return ref

    async def _unresolved(self, ctx: Ctx, q: QueryInput,
                          turn: ConversationTurn | None) -> QueryResult | None:
        """A "not found" for a question that leans on an earlier turn when there is none
        (:meth:`_dangling`), naming the reference it could not resolve: no citation, nothing
        cached; ``None`` otherwise."""
        ref = self._dangling(q, turn)
        if ref is None:
            return None
        ctx.record.unresolved_reference(ref.kind, ref.phrase)
        await self._emit(ctx, {"type": "route", **ctx.record.decision})
        return QueryResult(unresolved_answer(q.question, ref), [], False, {}, cached=False)

    async def _version(self, collection: str) -> str:
        if self.corpus_version is None:
            return ""
        if self.cached_version is not None:
            known = self.cached_version(collection)
            if known is not None:
                return known
        return await asyncio.to_thread(self.corpus_version, collection)

    async def _retrieve(
        self, ctx: Ctx, q: QueryInput, query: str, top_k: int, stage: str
    ) -> RagResult | None:
        if self.rag is None:
            return None
        rag = self.rag
        flt = q.filters if q.filters and not q.filters.is_empty() else None
        try:
            res, _ = await self._stage(
                ctx, stage, lambda: rag.retrieve(q.collection, query, top_k=top_k, flt=flt),
                self.settings.timeout_retrieve_s,
            )
        except StoreError as exc:
            if is_lock_error(exc):
                raise DataDirLocked(str(exc)) from exc
            ctx.record.store_unavailable(stage, exc)
            if q.mode == "rag":
                raise ServiceUnavailable(
                    f"the chunk store is unavailable, so mode=rag cannot answer: {exc}"
                ) from exc
            return None
        if res is not None:
            ctx.record.flag_all(res.flags)
            step = {"type": "step", "kind": "search", "stage": stage,
                    "text": search_text(query, res, top_k)}
            if ctx.emit is not None and stage == "retrieve":  # sent after the route decision
                ctx.pending.append(step)
            else:
                await self._emit(ctx, step)
        return res

    async def _rag_answer(
        self, ctx: Ctx, question: str, res: RagResult, broad: bool,
        current_date: str | None = None,
    ) -> AnswerDraft | None:
        assert self.rag is not None
        rag = self.rag
        stage = "rag_answer_broad" if broad else "rag_answer"
        # an LLM call may be retried once by the client: allow two calls plus back-off
        limit = self.settings.llm_timeout_s * 2 + 1.0
        draft, timed_out = await self._stage(
            ctx, stage, lambda: rag.answer(question, res, broad=broad,
                                           current_date=current_date), limit
        )
        if timed_out:
            # the grounded LLM call was too slow: answer extractively (pure CPU, bounded)
            ctx.record.llm_timed_out()
            draft, _ = await self._stage(
                ctx, stage + "_extractive",
                lambda: rag.answer(question, res, broad=broad, allow_llm=False,
                                   current_date=current_date),
                self.settings.timeout_retrieve_s,
            )
        return draft


def degraded_result(record: RouteTrace, why: str) -> QueryResult:
    """A flagged "not found" answer used when every path timed out or failed."""
    record.degrade()
    return QueryResult(f"No answer could be produced: {why}.", [], False, {}, cached=False)


def search_text(query: str, res: RagResult, top_k: int) -> str:
    """The stream's step text of one retrieval: ``searching 'warranty' (hybrid): 5 passages,
    best policy.md p.3``; ``keyword-only`` when the dense half did not run. The count is the
    passages (chunks) of the ``top_k`` results, which may exceed ``top_k``: adjacent chunks of one
    section are merged into one result (the stream showed "8 of top 5")."""
    dense_off = "keyword_only" in res.flags or any(f.startswith("embed") for f in res.flags)
    how = "keyword-only" if dense_off else "hybrid"
    shown = query if len(query) <= 80 else query[:79] + "…"
    if not res.hits:
        return f"searching '{shown}' ({how}): nothing found"
    best = res.hits[0].chunk
    n = len(res.hits)
    return (f"searching '{shown}' ({how}): {n} passage{'' if n == 1 else 's'}, best "
            f"{best.path} p.{best.page_start}")
