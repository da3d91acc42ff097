"""The router's decision and escalation stages: what retrieval found decides the path (the
threshold rule and question signals of :mod:`gateway.routing.rules`, or the fitted rule of
:mod:`gateway.routing.fit` in ``auto`` mode), and the LoopAgent path with its two ways back to
RAG: the agent's hand-back (``fallback_rag``: a broad retrieval answers) and its failure
(``rag_degraded``: the RAG answer already drafted is served).

Split from :mod:`gateway.routing.router` (the orchestration); stages run through
:meth:`gateway.routing.stages.RouterStages._stage`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from corpus.derived import computable
from corpus.fiscal_calendar import asked_date
from corpus.item_count import asked_count
from corpus.registered_securities import asks_registered_debt
from gateway.errors import ServiceUnavailable
from gateway.routing.fit import RoutingModel, fitted_decision
from gateway.routing.rules import Decision, RuleConfig, decide, detect_signals
from gateway.routing.stages import Ctx, DeadlineExceeded, RouterStages
from gateway.routing.types import AnswerDraft, LoopResult, QueryInput, RagResult
from loop.types import NOT_FOUND as LOOP_NOT_FOUND

__all__ = ["EscalationStages"]


class EscalationStages(RouterStages):
    """Decision and LoopAgent stages of :class:`gateway.routing.Router` (state set by its
    ``__init__``)."""

    rules: RuleConfig
    routing_model: RoutingModel | None

    async def _decide(self, ctx: Ctx, q: QueryInput, rag_res: RagResult | None) -> Decision:
        """Record what retrieval found and decide the path (threshold rule and question
        signals, or the fitted rule in ``auto`` mode); sends the ``route`` event."""
        rec = ctx.record
        signals = detect_signals(q.question, self.rules)
        if rag_res is not None:
            res = getattr(rag_res.raw, "resolution", None)
            resolved = ({"documents": list(res.paths), "reason": res.reason}
                        if res is not None and res.filter is not None else None)
            rec.retrieved(rag_res.confidence, rag_res.features,
                          [h.chunk.chunk_id for h in rag_res.hits], resolved)
        store_ok = "store_unavailable" not in rec.flags
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
                                       detect_signals(q.question),
                                       answer_floor=self.settings.rag_answer_floor)
        rec.decide(decision.route, decision.reason, [s.kind for s in decision.signals])
        await self._emit(ctx, {"type": "route", **rec.decision, "confidence": rec.confidence})
        return decision

    async def _computed_on_rag(self, ctx: Ctx, q: QueryInput,
                               rag_res: RagResult | None) -> AnswerDraft | None:
        """Stage ``rag_computed``, before an ``auto`` escalation of a question asking a figure
        to compute (``corpus.derived.computable``: a defined ratio, a change between years):
        the extractive RAG answer when it is that figure computed from cited statement cells
        (flag ``computed``, ``rag.compose``), kept on RAG (``None``: escalate as decided). The
        arithmetic over verified cells is the answer the deep read would have to reach; on the
        dev questions the LoopAgent matched the 24 computed RAG answers on 23 and lost the
        other (a Best Buy ROCE of 0.263 read as a cover-page sentence). Likewise a fiscal
        period's start or end asked relative to the day (``corpus.fiscal_calendar``: flag
        ``fiscal_date``): a date computed from the calendar a document defines; and a count
        of a document's numbered items (``corpus.item_count``: flag ``item_count``), and the
        debt securities a filer has registered, read off its cover page
        (``corpus.registered_securities``: flag ``registered_securities``)."""
        rag = self.rag
        if (q.mode != "auto" or rag is None or rag_res is None or not rag_res.hits
                or not (computable(q.question) or asked_date(q.question)
                        or asked_count(q.question) or asks_registered_debt(q.question))):
            return None
        draft, _ = await self._stage(
            ctx, "rag_computed",
            lambda: rag.answer(q.question, rag_res, broad=False, allow_llm=False,
                               current_date=q.current_date),
            self.settings.timeout_retrieve_s)
        if (draft is None or not draft.found
                or not {"computed", "fiscal_date", "item_count", "registered_securities"}
                & set(draft.flags)):
            return None
        ctx.record.decide("rag", "RAG kept: the date asked is computed from the cited fiscal "
                          "calendar" if "fiscal_date" in draft.flags
                          else "RAG kept: the items asked are counted in the cited document"
                          if "item_count" in draft.flags
                          else "RAG kept: the securities asked are read off the cited cover "
                          "page" if "registered_securities" in draft.flags
                          else "RAG kept: the figure asked is computed from cited cells")
        ctx.record.rag_path()
        await self._emit(ctx, {"type": "route", **ctx.record.decision})
        return draft

    def _rag_refuses(self, q: QueryInput,
                     seeds: RagResult | None) -> Callable[[], Awaitable[bool]] | None:
        """The RAG path's verdict on ``q`` over the loop's seeds, asked by the LoopAgent for a
        weakly supported answer (``loop.second_opinion``): True when the extractive RAG answer
        (no LLM call) is "not found"; ``None`` without a RAG path or seeds."""
        rag = self.rag
        if rag is None or seeds is None or not seeds.hits:
            return None

        async def refuses() -> bool:
            assert rag is not None and seeds is not None
            draft = await rag.answer(q.question, seeds, broad=False, allow_llm=False,
                                     current_date=q.current_date)
            return not draft.found

        return refuses

    async def _loop_run(
        self, ctx: Ctx, q: QueryInput, seeds: RagResult | None, query: str | None = None
    ) -> LoopResult | None:
        assert self.loop is not None
        loop = self.loop

        async def on_step(step: dict[str, Any]) -> None:
            await self._emit(ctx, {"type": "step", **step})

        # the caller's filter, else the documents the RAG retrieval resolved the question to
        # (issue 15 item 1): every search of the loop then runs inside them
        flt = q.filters if q.filters and not q.filters.is_empty() else (
            seeds.resolved if seeds is not None else None)
        try:
            res, _ = await self._stage(
                ctx, "loop",
                lambda: loop.run(q.collection, q.question, seeds=seeds.hits if seeds else [],
                                 history=q.history, on_event=on_step,
                                 current_date=q.current_date, flt=flt,
                                 search_query=query,
                                 # a name no document is by or about: the cited one must write it
                                 required=getattr(seeds.raw if seeds else None,
                                                  "unknown_subjects", ()),
                                 second_opinion=self._rag_refuses(q, seeds)),
                self.settings.loop_deadline_s + 1.0,
            )
        except (DeadlineExceeded, ServiceUnavailable):
            raise
        except Exception as exc:  # noqa: BLE001 - a LoopAgent failure degrades to the RAG answer
            ctx.record.loop_failed(exc)
            return None
        return res

    async def _loop_path(self, ctx: Ctx, q: QueryInput, query: str,
                         rag_res: RagResult | None) -> AnswerDraft | None:
        """Stage ``loop``: the LoopAgent seeded with the RAG candidates; its hand-back is
        answered by a broad retrieval (``fallback_rag``), its failure by the RAG answer
        (``rag_degraded``)."""
        rec = ctx.record
        rec.escalate(q.mode == "auto")
        loop_res = await self._loop_run(ctx, q, rag_res, query)
        if loop_res is None:
            if rag_res is not None and rag_res.hits and self.rag is not None:
                # the LoopAgent timed out or failed: degrade to the RAG answer we already have
                rec.rag_degraded()
                return await self._rag_answer(ctx, q.question, rag_res, broad=False,
                                              current_date=q.current_date)
            return None
        rec.looped(loop_res.steps, loop_res.tokens, loop_res.flags, loop_res.dropped_citations)
        reason = loop_res.fallback_reason
        draft = loop_res.draft = _other_organisation(loop_res.draft, rag_res)
        if (reason is None and draft is not None and not draft.found
                and draft.brain == "loop-offline" and rec.cross_language):
            # the offline LoopAgent reads evidence by the question's words, which a question in
            # the other language than the documents does not share with them: its "not found"
            # says nothing of the documents (English questions on the zh PDFs: 4 of 30 not
            # found with the gold page among the candidates) — RAG answers, on a broad retrieval
            reason = "cross-language question not found by the offline LoopAgent"
        if reason is None or self.rag is None or "store_unavailable" in rec.flags:
            return loop_res.draft
        return await self._fall_back(ctx, q, query, reason)

    async def _fall_back(self, ctx: Ctx, q: QueryInput, query: str,
                         reason: str) -> AnswerDraft | None:
        """Stage ``retrieve_broad`` then ``rag_answer_broad``: the LoopAgent handed the
        question back (``reason``), a broad retrieval answers it."""
        ctx.record.fell_back(reason)
        await self._emit(ctx, {"type": "route", "route": "rag",
                               "reason": f"fallback_to_rag: {reason}"})
        broad = await self._retrieve(ctx, q, query, self.settings.rag_broad_top_k,
                                     "retrieve_broad")
        return None if broad is None else await self._rag_answer(ctx, q.question, broad,
                                                                 broad=True,
                                                                 current_date=q.current_date)


def _other_organisation(draft: AnswerDraft | None, rag_res: RagResult | None) -> AnswerDraft | None:
    """``draft``, or "not found" (flag ``other_organisation:<names>``) when it quotes a filing of
    another issuer for a question about an organisation no document of the collection is by or
    about (``rag.resolve.Resolution.other_organisation``; the RAG answer makes the same check)."""
    res = getattr(rag_res.raw, "resolution", None) if rag_res is not None else None
    if draft is None or not draft.found or not draft.citations or res is None:
        return draft
    flag = res.other_organisation(draft.citations[0].doc_id)
    if flag is None:
        return draft
    return AnswerDraft(LOOP_NOT_FOUND, [], False, draft.brain, draft.tokens, [*draft.flags, flag],
                       related=[*draft.citations, *draft.related])
