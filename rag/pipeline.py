"""The RAG fast path end to end: hybrid retrieval → confidence → extractive answer.

:class:`RagPipeline` composes a :class:`~rag.retriever.HybridRetriever` and
``corpus.citations.make_citation``; ``run`` and ``run_async`` share one flow (``rag.steps``).
Below the confidence floor, or when no evidence verifies, the answer is an explicit
"not found" (``found=False``) that still carries the retrieval (for escalation to the
LoopAgent). Nothing here raises for timeouts or index failures: see ``RagAnswer.flags``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from corpus.answer_support import DocumentVocabulary, SupportModel
from corpus.presence import DocumentTermProbe
from corpus.types import Chunk, Citation, SearchFilter
from rag.answerability import answer_support, present_evidence, supported_evidence
from rag.compose import asks_figure, figure_answer
from rag.extractive import NOT_FOUND_TEXT, answer_text, extract_answer
from rag.retriever import HybridRetriever
from rag.steps import Flow, Step, drive_async, drive_sync
from rag.types import RagAnswer, RetrievalMode

__all__ = ["RagPipeline"]


def _default_citation_maker() -> Callable[[Chunk, str], Citation | None]:
    from corpus.citations import make_citation

    return make_citation


class RagPipeline:
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

    def warm_up(self) -> None:
        """Load the embedding model now."""
        self.retriever.warm_up()

    def run(
        self,
        question: str,
        collection: str,
        *,
        top_k: int | None = None,
        flt: SearchFilter | None = None,
        mode: RetrievalMode = "hybrid",
    ) -> RagAnswer:
        """Answer ``question`` from ``collection`` (blocking); never raises for timeouts."""
        return drive_sync(self.flow(question, collection, top_k=top_k, flt=flt, mode=mode))

    async def run_async(
        self,
        question: str,
        collection: str,
        *,
        top_k: int | None = None,
        flt: SearchFilter | None = None,
        mode: RetrievalMode = "hybrid",
    ) -> RagAnswer:
        """Async twin of :meth:`run` (same flow)."""
        return await drive_async(self.flow(question, collection, top_k=top_k, flt=flt, mode=mode))

    def flow(
        self,
        question: str,
        collection: str,
        *,
        top_k: int | None = None,
        flt: SearchFilter | None = None,
        mode: RetrievalMode = "hybrid",
    ) -> Flow[RagAnswer]:
        """The I/O-free flow: the retriever's steps, then extraction (pure CPU)."""
        t0 = time.perf_counter()
        retrieval = yield from self.retriever.flow(
            question, collection, top_k=top_k, flt=flt, mode=mode
        )
        t1 = time.perf_counter()
        evidence = extract_answer(
            retrieval,
            retrieval.key_terms,
            self.make_citation,
            max_evidence=self.max_evidence,
            normalize=self.retriever.tokenizer.normalize,
        )
        # every code the question names must be in the answer unit or its context
        evidence, missing = supported_evidence(evidence, retrieval.chunks, retrieval.key_terms)
        found = bool(evidence) and retrieval.confidence.value >= self.answer_floor
        flags: list[str] = []
        if found and self.presence is not None:
            check = partial(
                present_evidence,
                evidence,
                retrieval.chunks,
                retrieval.key_terms,
                self.retriever.tokenizer.normalize(retrieval.question),
                partial(self.presence.absent, collection),
            )
            (out,) = yield [Step("presence", check, self.retriever.config.search_timeout_s)]
            if out.ok:
                evidence, absent = out.value
                if absent:
                    found, missing = False, [str(t) for t in absent]
                    flags.append("absent_in_document:" + ",".join(missing))
            else:
                flags.append(out.flag)
        support: dict[str, float] = {}
        support_p = 0.0 if self.support_model is not None else None
        if evidence:
            check_support = partial(answer_support, retrieval, evidence,
                                    self.retriever.tokenizer, collection, self.vocabulary,
                                    self.support_model)
            (got,) = yield [Step("support", check_support,
                                 self.retriever.config.search_timeout_s)]
            if got.ok:
                support, support_p = got.value
            else:
                support_p = None
                flags.append(got.flag)
        if found and support_p is not None and self.support_model is not None \
                and support_p < self.support_model.threshold:
            found = False  # the quote lacks what was asked (corpus.answer_support)
            flags.append(f"unsupported:{support_p:.2f}")
        # a figure the question asks for: computed from cited rows (a formula's missing line
        # item searched in its document: a step), or the statement row that holds it
        computed = None
        if found:
            figure = partial(figure_answer, retrieval, evidence, self.make_citation,
                             self.retriever.tokenizer, self._phrases, self.retriever.store)
            if asks_figure(retrieval.question):
                (fig,) = yield [Step("figure", figure, self.retriever.config.search_timeout_s)]
                computed = fig.value if fig.ok else None
                if not fig.ok:
                    flags.append(fig.flag)
        t2 = time.perf_counter()
        # the answer is the unit that answers, first and alone; the rest is "related"
        answer = answer_text(evidence[0]) if found else NOT_FOUND_TEXT
        cited: tuple[Citation, ...] = (evidence[0].citation,) if found else ()
        if computed is not None:
            answer, cited = computed[0], tuple(computed[1])
            flags.append(computed[2])
        timings = {
            **{f"retrieve.{k}": v for k, v in retrieval.timings_ms.items()},
            "retrieve": (t1 - t0) * 1000.0,
            "extract": (t2 - t1) * 1000.0,
            "total": (t2 - t0) * 1000.0,
        }
        return RagAnswer(
            answer=answer,
            found=found,
            citations=cited,
            # not found: the closest passages, shown apart, none of them the answer
            related=tuple(e.citation for e in evidence if e.citation not in cited),
            evidence=tuple(evidence),
            retrieval=retrieval,
            timings_ms=timings,
            missing=tuple(missing),
            answer_flags=tuple(flags),
            support=support,
            support_p=support_p,
        )
