"""The RAG fast path end to end: hybrid retrieval → confidence → extractive answer.

:class:`RagPipeline` composes a :class:`~rag.retriever.HybridRetriever` and
``corpus.citations.make_citation``; ``run`` and ``run_async`` share one flow (``rag.steps``).
The answer is decided by ``rag.decision.AnswerDecider`` (shared with the gateway's RAG engine).
Below the confidence floor, or when no evidence verifies, the answer is an explicit
"not found" (``found=False``) that still carries the retrieval (for escalation to the
LoopAgent). Nothing here raises for timeouts or index failures: see ``RagAnswer.flags``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from corpus.answer_support import SupportModel
from corpus.document_vocabulary import DocumentVocabulary
from corpus.fiscal_calendar import asked_on
from corpus.presence import DocumentTermProbe
from corpus.types import Chunk, Citation, SearchFilter
from rag.decision import AnswerDecider
from rag.retriever import HybridRetriever
from rag.stage import FlowStage
from rag.steps import Flow, drive_inline
from rag.types import RagAnswer, Retrieval, RetrievalMode

__all__ = ["RagPipeline"]


def _default_citation_maker() -> Callable[[Chunk, str], Citation | None]:
    from corpus.citations import make_citation

    return make_citation


class RagPipeline(FlowStage[RagAnswer]):
    """Question → extractive answer with verified citations, without any LLM.

    Usage example::

        rag = RagPipeline(HybridRetriever(store, tokenizer, embedder), answer_floor=0.2)
        ans = rag.run("保修期是多久？", "manuals")
        print(ans.found, ans.answer, [c.page for c in ans.citations], ans.confidence)

    :param retriever: the hybrid retriever.
    :param answer_floor: confidence below which the answer is "not found" (0..1).
    :param max_evidence: evidence units in the answer (sentences / table rows).
    :param make_citation: the quote verifier (default ``corpus.citations.make_citation``).
    :param presence_check: ask the index whether the answer's document holds the question's
        specific terms (codes, years; ``corpus.presence``) and answer "not found"
        when it lacks one (flag ``absent_in_document:<terms>``); a failed or timed-out check
        keeps the answer, flagged ``presence_timeout`` / ``presence_error``.
    :param support_model: the answer-support decision (``corpus.answer_support``): the best
        unit's probability of holding what was asked becomes the answer's confidence, and
        below the model's threshold the answer is "not found" (flag ``unsupported:<p>``).
        Default: the packaged ``corpus/answer_support.json`` (none: no decision).
    """

    def __init__(
        self,
        retriever: HybridRetriever,
        *,
        answer_floor: float = 0.2,
        max_evidence: int = 3,
        make_citation: Callable[[Chunk, str], Citation | None] | None = None,
        presence_check: bool = True,
        support_model: SupportModel | None = None,
    ) -> None:
        self.retriever = retriever
        tok = retriever.tokenizer
        self.support_model = support_model if support_model is not None else SupportModel.load()
        self.vocabulary = (
            DocumentVocabulary(retriever.store, tok.sparse_query, tok.normalize)
            if hasattr(retriever.store, "keyword_search")
            else None
        )
        self.presence = (
            DocumentTermProbe(retriever.store, tok.sparse_query, tok.normalize)
            if presence_check and hasattr(retriever.store, "keyword_search")
            else None
        )
        self.answer_floor = answer_floor
        self.max_evidence = max_evidence
        self.make_citation = make_citation or _default_citation_maker()
        expander = retriever.expander
        self._phrases = expander.phrases if expander is not None else None
        self.decider = AnswerDecider(
            tok, retriever.store, make_citation=self.make_citation, answer_floor=answer_floor,
            max_evidence=max_evidence, presence=self.presence, vocabulary=self.vocabulary,
            support_model=self.support_model, phrases=self._phrases,
            embedder=retriever.embedder)

    def warm_up(self) -> None:
        """Load the embedding model now."""
        self.retriever.warm_up()

    def refuses(self, retrieval: Retrieval, *, current_date: str | None = None) -> bool:
        """True when the answer decision over a retrieval already made (the LoopAgent's
        seeds) is "not found": the RAG path's second opinion on a weakly supported loop answer
        (``loop.second_opinion``). Runs the decision's index checks in this thread, each under
        the search timeout.

        :raises ValueError: ``current_date`` is not an ISO date (``YYYY-MM-DD``)."""
        d = drive_inline(self.decider.flow(retrieval,
                                           timeout_s=self.retriever.config.search_timeout_s,
                                           today=asked_on(current_date)))
        return not d.found

    def flow(self, question: str, collection: str, *, top_k: int | None = None,
             flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid",
             current_date: str | None = None) -> Flow[RagAnswer]:
        """The I/O-free flow (:meth:`rag.stage.FlowStage.flow`): the retriever's steps, then
        the answer decision (``rag.decision``: extraction, then its index checks as steps).
        ``current_date`` (``YYYY-MM-DD``; default today) is the day a fiscal period asked
        relative to today is counted from (``rag.dated``).

        :raises ValueError: ``current_date`` is not an ISO date."""
        today = asked_on(current_date)
        t0 = time.perf_counter()
        retrieval = yield from self.retriever.flow(
            question, collection, top_k=top_k, flt=flt, mode=mode
        )
        t1 = time.perf_counter()
        d = yield from self.decider.flow(retrieval,
                                         timeout_s=self.retriever.config.search_timeout_s,
                                         today=today)
        t2 = time.perf_counter()
        timings = {
            **{f"retrieve.{k}": v for k, v in retrieval.timings_ms.items()},
            "retrieve": (t1 - t0) * 1000.0,
            "extract": (t2 - t1) * 1000.0,
            "total": (t2 - t0) * 1000.0,
        }
        return RagAnswer(
            answer=d.answer,
            found=d.found,
            citations=d.citations,
            # not found: the closest passages, shown apart, none of them the answer
            related=tuple(e.citation for e in d.evidence if e.citation not in d.citations),
            evidence=d.evidence,
            retrieval=retrieval,
            timings_ms=timings,
            missing=d.missing,
            answer_flags=d.flags,
            support=d.support,
            support_p=d.support_p,
        )
