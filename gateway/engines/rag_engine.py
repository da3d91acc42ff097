"""The RAG path behind the router's ``RagBackend`` protocol (``gateway.routing.types``).

:class:`HybridRagEngine` – ``rag.retriever.HybridRetriever`` for retrieval; the answer is
extractive (``rag.decision.AnswerDecider``, the decision ``rag.pipeline`` makes) without an
LLM, or one grounded LLM call over the retrieved chunks whose citations are checked exactly like
the LoopAgent's (``loop.citations.check_citations``: the chunk was shown, the quote is verbatim
in it). An LLM fault (timeout, HTTP error, a reply that is not a chat completion, the circuit
breaker open: any ``loop.errors.LLMError``) falls back to the extractive answer flagged
``llm_unavailable``; a reply whose text is not the grounded-answer JSON, ``llm_bad_json``;
an answer with no verifiable citation, ``llm_citations_unverified``. Answer sentences the
verified quotes do not support are dropped (``unsupported_sentences:N``; none left:
extractive, ``llm_answer_unsupported``); "not found" is a fixed text.
"""

from __future__ import annotations

import asyncio
import json
from datetime import date

from pydantic import ValidationError

from corpus.fiscal_calendar import asked_date, asked_on
from corpus.types import SearchFilter, SearchHit
from gateway.engines.grounded import (
    FENCE,
    GROUNDED_SCHEMA,
    NOT_FOUND_TEXT,
    GroundedReply,
    grounded_messages,
)
from gateway.routing import AnswerDraft, RagResult
from loop.errors import LLMError
from loop.llm_client import AsyncLLMClient
from rag.retriever import HybridRetriever
from rag.types import Retrieval

__all__ = ["HybridRagEngine", "to_hits"]


def to_hits(retrieval: Retrieval) -> list[SearchHit]:
    """Retrieval items → ``SearchHit`` list (one per chunk, the item's fused score)."""
    return [SearchHit(c, float(item.score)) for item in retrieval.items for c in item.chunks]


class HybridRagEngine:
    """The RAG path for the router.

    :param retriever: a ``rag.retriever.HybridRetriever``.
    :param llm: a shared ``loop.llm_client.AsyncLLMClient`` or ``None`` (extractive answers).
    :param answer_floor: confidence below which the extractive answer is "not found".
    :param max_evidence: evidence units in an extractive answer.
    :param llm_max_chars: characters of each chunk shown to the LLM.
    :param presence_check: an extractive answer whose document lacks one of the question's
        specific terms (codes, years: ``corpus.presence``) is "not found", flagged
        ``absent_in_document:<terms>``; a failed check keeps the answer (``presence_error``).
        An extractive answer whose best unit scores below the packaged answer-support model's
        threshold (``corpus.answer_support``) is "not found" too, flagged ``unsupported:<p>``.

    While the client's circuit breaker is open (the LLM failed repeatedly) its ``chat`` raises
    at once, so the extractive answer comes at RAG speed.
    """

    def __init__(self, retriever: HybridRetriever, *, llm: AsyncLLMClient | None = None,
                 answer_floor: float = 0.2,
                 max_evidence: int = 3, llm_max_chars: int = 1500,
                 presence_check: bool = True) -> None:
        from corpus.answer_support import SupportModel
        from corpus.document_vocabulary import DocumentVocabulary
        from corpus.presence import DocumentTermProbe
        from loop.citations import make_citation
        from rag.decision import AnswerDecider

        self.retriever = retriever
        tok = retriever.tokenizer
        self.support_model = SupportModel.load()
        self.vocabulary = (DocumentVocabulary(retriever.store, tok.sparse_query, tok.normalize)
                           if self.support_model is not None else None)
        self.presence = (DocumentTermProbe(retriever.store, tok.sparse_query, tok.normalize)
                         if presence_check else None)
        self.llm = llm
        self.answer_floor = answer_floor
        self.max_evidence = max_evidence
        self.llm_max_chars = llm_max_chars
        # the RAG answer decision, shared with rag.pipeline.RagPipeline: here the support
        # model is asked only when it can refuse, and a code no unit names is flagged
        self.decider = AnswerDecider(
            tok, retriever.store, make_citation=make_citation, answer_floor=answer_floor,
            max_evidence=max_evidence, presence=self.presence, vocabulary=self.vocabulary,
            support_model=self.support_model,
            phrases=getattr(retriever.expander, "phrases", None),
            record_support=False, flag_missing=True, embedder=retriever.embedder)

    async def retrieve(self, collection: str, query: str, *, top_k: int,
                       flt: SearchFilter | None) -> RagResult:
        """Hybrid retrieval (the retriever flags timeouts; store failures raise ``StoreError``)."""
        r = await self.retriever.run_async(query, collection, top_k=top_k, flt=flt)
        flags = list(r.flags)
        errors = [f for f in flags if f.endswith("_error")]
        if errors and not r.items and any("search" in f for f in errors):
            from corpus.errors import StoreError

            # surface the store's own error (e.g. "held by another LoopGate process")
            await asyncio.to_thread(self.retriever.store.collection_meta, collection)
            raise StoreError(f"index queries failed: {', '.join(errors)}")
        return RagResult(to_hits(r), float(r.confidence.value) if r.items else None,
                         r.confidence.features.to_dict(), flags, raw=r,
                         resolved=r.resolved_filter)

    def _extractive(self, res: RagResult, flags: list[str],
                    today: date | None = None) -> AnswerDraft:
        """The extractive answer (``rag.decision.AnswerDecider``, its index checks run in this
        worker thread, without timeouts; a failed check keeps the answer, flagged); ``today``:
        the day a fiscal period asked relative to it is counted from (``rag.dated``)."""
        from rag.steps import drive_inline

        d = drive_inline(self.decider.flow(res.raw, flags,
                                           coverage=res.features.get("coverage", 1.0),
                                           today=today))
        if not d.found:  # the closest passages go with it, under "related" (issue 15 item 4)
            return AnswerDraft(d.answer, [], False, "extractive", flags=list(d.flags),
                               related=[e.citation for e in d.evidence])
        if d.computed:  # a figure computed from cited rows, or the row that holds it
            return AnswerDraft(d.answer, list(d.citations), True, "extractive",
                               flags=list(d.flags),
                               related=[e.citation for e in d.evidence
                                        if e.citation not in d.citations])
        # the answer is the unit that answers, first and alone (its quote in display form: no
        # PDF line breaks inside a sentence); the other evidence is "related"
        return AnswerDraft(d.answer, list(d.citations), True, "extractive", flags=list(d.flags),
                           related=[e.citation for e in d.evidence[1:]])

    async def answer(self, question: str, retrieval: RagResult, *, broad: bool,
                     allow_llm: bool = True, current_date: str | None = None) -> AnswerDraft:
        """Extractive answer, or one grounded LLM call when an LLM is configured; any LLM fault
        gives the extractive answer flagged ``llm_unavailable`` (never raises for the LLM).
        A fiscal period's start or end asked relative to ``current_date`` (``YYYY-MM-DD``;
        ``None``: today) is computed from the calendar a document defines, without the LLM
        (``rag.dated``)."""
        if retrieval.raw is None or not retrieval.hits:
            from rag.extractive import NOT_FOUND_TEXT

            return AnswerDraft(NOT_FOUND_TEXT, [], False, "extractive")
        today = asked_on(current_date)
        if self.llm is None or not allow_llm or asked_date(question) is not None:
            return await asyncio.to_thread(self._extractive, retrieval, [], today)
        return await self._grounded(self.llm, question, retrieval)

    async def _grounded(self, llm: AsyncLLMClient, question: str,
                        res: RagResult) -> AnswerDraft:
        from corpus.answer_check import check_answer
        from loop.citations import check_citations

        messages, shown = grounded_messages(question, res.hits, self.llm_max_chars)
        try:
            reply = await llm.chat(messages, json_schema=GROUNDED_SCHEMA)
        except LLMError:
            return await asyncio.to_thread(self._extractive, res, ["llm_unavailable"])
        tokens = reply.prompt_tokens + reply.completion_tokens
        try:
            data = GroundedReply.model_validate(json.loads(FENCE.sub("", reply.content.strip())))
        except (ValueError, ValidationError):
            draft = await asyncio.to_thread(self._extractive, res, ["llm_bad_json"])
            draft.tokens = tokens
            return draft

        def resolve(ref: str) -> str | None:
            if ref in shown:
                return ref
            matches = [k for k in shown if k.startswith(ref)] if len(ref) >= 6 else []
            return matches[0] if len(matches) == 1 else None

        check = check_citations(data.citations, shown, resolve)
        flags = [f"dropped_citations:{check.dropped}"] if check.dropped else []
        if not data.found:  # a fixed text: no words of the model leave as "not found"
            return AnswerDraft(NOT_FOUND_TEXT, [], False, "llm", tokens, flags)
        # every sentence must be held by the verified quotes (numbers, names, URLs)
        chk = check_answer(data.answer, [c.quote for c in check.verified],
                           [" ".join((c.path, *c.section_path)) for c in check.verified])
        if chk.dropped:
            flags.append(f"unsupported_sentences:{chk.dropped}")
        if not check.verified or not chk.text:
            why = "llm_citations_unverified" if not check.verified else "llm_answer_unsupported"
            draft = await asyncio.to_thread(self._extractive, res, [*flags, why])
            draft.tokens = tokens
            return draft
        return AnswerDraft(chk.text, check.verified, True, "llm", tokens, flags)
