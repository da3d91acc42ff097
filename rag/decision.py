"""The extractive answer decision of the RAG path, written once: used by
:class:`rag.pipeline.RagPipeline` and by the gateway's RAG engine (``HybridRagEngine``).

From a :class:`~rag.types.Retrieval` to an answer, in this order (0: a fiscal period's date
asked relative to ``today``, or a document's count of items, is computed, ``rag.dated``):

1. evidence: the best units of the retrieved chunks (``rag.extractive.extract_answer``), kept
   only when they name every code of the question (``rag.answerability.supported_evidence``);
2. scope: units quoted from the page the question names, stating the colour it asks
   (``rag.answerability.scoped_evidence``; none: ``not_on_asked_page`` / ``asks_visual``);
   cases: a best unit that is one case of an enumerating sentence gives way to the case the
   question names, else to the whole series (``rag.cases``; ``case_named`` / ``cases_whole``);
3. found when there is evidence and the retrieval's confidence reaches ``answer_floor``; not
   found when the question has no key term but numbers (``no_key_terms``) or none occurs in
   the retrieved text (``coverage`` ≤ 0; only when the caller passes the coverage feature);
4. the document-level check (``corpus.presence``): the answer's document must hold the
   question's specific terms, the acronyms it names (``subject_acronyms``), the names it asks
   about (``corpus.asked_names``) and the organisations no document is by or about
   (``Retrieval.unknown_subjects``) (``absent_in_document:<terms>``; a failed check keeps it);
5. the answer-support decision (``corpus.answer_support``): below the model's threshold, not
   found (``unsupported:<p>``) — not for a question in another script than its passages
   (``rag.cross_evidence.cross_language``: the model's term coverage cannot cross scripts);
6. a figure the question asks for (``rag.compose``): the computed figure or the statement row
   holding it replaces the best unit (``computed`` / ``looked_up``); else a change between two
   years asked of prose is answered by both years' units (``rag.period_pair``, ``period_pair``),
   a change between two amounts by both amounts' units (``rag.amount_change``).

Checks 4–6 query the index; they are steps (``rag.steps``) under ``timeout_s`` (0: none) that a
flow driver runs (``drive_sync`` / ``drive_async`` with timeouts, ``drive_inline`` inline); a
failed or timed-out step flags ``<step>_error`` / ``<step>_timeout``, the answer stands::

    decider = AnswerDecider(tokenizer, store, support_model=SupportModel.load())
    decision = drive_sync(decider.flow(retrieval))
    print(decision.found, decision.answer, decision.flags)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import Any

from corpus.answer_support import SupportModel
from corpus.asked_names import asked_names
from corpus.derived import computable
from corpus.document_vocabulary import DocumentVocabulary
from corpus.labels import asked_item
from corpus.presence import DocumentTermProbe, subject_acronyms
from corpus.question_scope import asked_pages
from corpus.term_match import code_terms
from corpus.types import Chunk, ChunkStore, Citation
from rag.amount_change import prose_change
from rag.answerability import answer_support, present_evidence, scoped_evidence, supported_evidence
from rag.cases import answer_cases
from rag.compose import asks_figure, figure_answer
from rag.cross_evidence import cross_language, dense_evidence
from rag.dated import computed_step
from rag.extractive import NOT_FOUND_TEXT, answer_text, extract_answer
from rag.steps import Flow, Step
from rag.types import Evidence, Retrieval

__all__ = ["AnswerDecider", "AnswerDecision"]


@dataclass(frozen=True, slots=True)
class AnswerDecision:
    """What the decision gave: ``answer`` (the best unit's text, the figure, or the "not found"
    text), ``found``, the answer's ``citations`` (one unit's, a figure's rows', or none), the
    ``evidence`` after the checks (best first; when a code, page or content check left none,
    the closest units before it: shown apart as ``related``, never the answer), ``missing``
    (codes or specific terms the answer lacked), the ``flags`` (the caller's first), the best
    unit's ``support`` features and probability ``support_p`` (``None`` without a model or when
    not scored), and ``computed`` (the answer is a figure of ``rag.compose``)."""

    answer: str
    found: bool
    citations: tuple[Citation, ...]
    evidence: tuple[Evidence, ...]
    missing: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    support: dict[str, float] = field(default_factory=dict)
    support_p: float | None = None
    computed: bool = False


class AnswerDecider:
    """The extractive answer decision (module docstring) over one chunk store.

    :param tokenizer: ``corpus.tokenizer.Tokenizer`` (``normalize``, ``key_terms``,
        ``sparse_query``; ``terms``, ``name_terms`` when it has them).
    :param store: the chunk store the figure answer reads (``None``: none).
    :param make_citation: the quote verifier (``corpus.citations.make_citation``).
    :param answer_floor: retrieval confidence below which the answer is not found (0..1).
    :param max_evidence: evidence units kept.
    :param presence: the document-level check (``None``: off).
    :param vocabulary: the document vocabulary of the support features (``None``: no
        document-level features).
    :param support_model: the answer-support model (``None``: no support decision).
    :param phrases: field phrases a text expands to (``rag.expand.QueryExpander.phrases``).
    :param record_support: score the best unit's support whenever there is evidence (its
        features are recorded); ``False``: only when the decision needs it (found, and the
        model has a threshold above 0).
    :param flag_missing: flag ``not_in_evidence:<codes>`` when no unit names a code.
    :param embedder: the retrieval's embedder (``embed_query``, ``embed_passages``): a question
        in the other language than its passages gets the units closest to it by the embedding
        first (``rag.cross_evidence``, flag ``cross_language_evidence``); ``None``: words only.
    """

    def __init__(self, tokenizer: Any, store: ChunkStore | None, *,
                 make_citation: Callable[[Chunk, str], Citation | None],
                 answer_floor: float = 0.2, max_evidence: int = 3,
                 presence: DocumentTermProbe | None = None,
                 vocabulary: DocumentVocabulary | None = None,
                 support_model: SupportModel | None = None,
                 phrases: Callable[[str], Sequence[str]] | None = None,
                 record_support: bool = True, flag_missing: bool = False,
                 embedder: Any | None = None) -> None:
        self.tokenizer, self.store, self.make_citation = tokenizer, store, make_citation
        self.embedder = embedder if hasattr(embedder, "embed_passages") else None
        self.answer_floor, self.max_evidence = answer_floor, max_evidence
        self.presence, self.vocabulary, self.support_model = presence, vocabulary, support_model
        self.phrases = phrases
        self.record_support, self.flag_missing = record_support, flag_missing

    def flow(self, retrieval: Retrieval, flags: Sequence[str] = (), *,
             coverage: float | None = None, timeout_s: float = 0.0,
             today: date | None = None) -> Flow[AnswerDecision]:
        """The decision as a flow (its index checks are steps).

        :param retrieval: the retrieval to answer from.
        :param flags: flags the answer carries already (they come first).
        :param coverage: the retrieval's key-term coverage feature; ``<= 0`` with key terms:
            not found (``no_key_term_coverage``); ``None``: not checked.
        :param timeout_s: each index step's timeout in seconds (0: none).
        :param today: the day asked on: a fiscal period's start or end asked relative to it is
            computed from the calendar a document defines (``rag.dated``, flag
            ``fiscal_date``; a count of items needs none: ``item_count``); ``None``: not.
        """
        r, out = retrieval, list(flags)
        if (first := computed_step(r, self.store, self.tokenizer, today)) is not None:
            name, flag, compute = first
            (got,) = yield [Step(name, compute, timeout_s)]
            if got.ok and got.value is not None:
                return AnswerDecision(got.value[0], True, tuple(got.value[1]), (), (),
                                      (*out, flag), computed=True)
            if not got.ok:
                out.append(got.flag)
        # a question naming a page or an article looks further down for a unit on it or in it
        wider = 4 if asked_pages(r.question) or asked_item(r.question) else 1
        evidence = extract_answer(r, r.key_terms, self.make_citation,
                                  max_evidence=self.max_evidence * wider,
                                  normalize=self.tokenizer.normalize, tokenizer=self.tokenizer)
        xl = cross_language(r.question, r.items)
        if self.embedder is not None and xl:
            # the question shares no words with the passages: the units closest to it by the
            # multilingual embedding come first (rag.cross_evidence), the word-scored after
            try:
                dense = dense_evidence(r, self.make_citation, self.embedder.embed_query,
                                       self.embedder.embed_passages,
                                       max_evidence=self.max_evidence,
                                       codes=code_terms(r.key_terms),
                                       normalize=self.tokenizer.normalize)
            except Exception:  # noqa: BLE001 - the embedder failed: the word-scored stand
                dense = []
                out.append("cross_evidence_error")
            if dense:
                out.append("cross_language_evidence")
                chosen = {e.text for e in dense}
                evidence = dense + [e for e in evidence if e.text not in chosen]
        # every code the question names must be in the answer unit or its context
        # when a check below leaves no unit, these are still shown, apart: the closest passages
        closest = evidence[: self.max_evidence]
        evidence, missing = supported_evidence(evidence, r.chunks, r.key_terms)
        if missing and self.flag_missing:
            out.append("not_in_evidence:" + ",".join(missing))
        # a page the question names, a colour or a font it asks for (corpus.question_scope)
        evidence, scope = scoped_evidence(evidence, r.chunks, r.question)
        evidence = evidence[: self.max_evidence]
        out.extend(scope)
        # the best unit is one case of an enumerating sentence and the question asks a value:
        # the case the question names, else every case (rag.cases)
        evidence, cases = answer_cases(evidence, r.question, r.chunks, r.key_terms,
                                       self.make_citation, self.tokenizer.normalize)
        if cases:
            out.append(cases)
        found = bool(evidence) and r.confidence.value >= self.answer_floor
        # under the floor, a figure computed from the statement rows of the one document the
        # question was resolved to answers: its cells are the evidence, cited row by row
        computed = None
        if evidence and not found and self._computes_in_resolved(r):
            computed = yield from self._figure(r, evidence, out, timeout_s)
            if computed is not None and computed[2] == "computed":
                found = True
                out.append("computed_below_floor")
            else:
                computed = None
        if found and all(t.isdigit() for t in r.key_terms):  # "x", "1": a break-it trial
            found = False
            out.append("no_key_terms")
        if found and r.key_terms and coverage is not None and coverage <= 0.0:
            # none of the question's key terms occurs in the retrieved text: the "evidence" is
            # only the top chunk's first sentence, which answers nothing (case 12, step 9)
            found = False
            out.append("no_key_term_coverage")
        if found and self.presence is not None:
            check = partial(present_evidence, evidence, r.chunks, r.key_terms,
                            self.tokenizer.normalize(r.question),
                            partial(self.presence.absent, r.collection),
                            [*subject_acronyms(r.question, self.tokenizer.key_terms,
                                               self.phrases), *r.unknown_subjects],
                            asked_names(r.question, self.tokenizer.key_terms),
                            partial(self.presence.in_collection, r.collection))
            (got,) = yield [Step("presence", check, timeout_s)]
            if got.ok:
                evidence, absent = got.value
                if absent:
                    found, missing = False, [str(t) for t in absent]
                    out.append("absent_in_document:" + ",".join(missing))
            else:
                out.append(got.flag)
        other = (r.resolution.other_organisation(evidence[0].citation.doc_id)
                 if found and evidence and r.resolution is not None else None)
        if other is not None:
            # the question asks about an organisation no document of the collection is by or
            # about, and the answer would be another issuer's figure ("What was Walmart's
            # revenue?" answered from Costco's list of competitors: a new-user trial)
            found, computed = False, None
            out.append(other)
        support, support_p = yield from self._support(r, evidence, found, out, timeout_s)
        model = self.support_model
        # not for a question in another script than its passages (rag.cross_evidence): the
        # model's coverage features count the question's own words, which those passages cannot
        # write, and it was fitted on same-script answers only (the 30 zh-PDF dev questions
        # asked in English on the 8 zh PDFs: 8 refused at p 0.00-0.01, 2 of them citing the gold
        # page; evidence hit 56.7 % -> 63.3 % without this refusal; of their 3 unanswerable
        # ones, 1 refused where 2 were)
        if (found and support_p is not None and model is not None and not xl
                and support_p < model.threshold_for(support, "rag")):
            found = False  # the quote lacks what was asked (corpus.answer_support)
            out.append(f"unsupported:{support_p:.2f}")
        if found and computed is None and asks_figure(r.question):
            # a figure the question asks for: computed from cited rows (a formula's missing
            # line item searched in its document), or the statement row that holds it
            computed = yield from self._figure(r, evidence, out, timeout_s)
        # the answer is the unit that answers, first and alone
        answer = answer_text(evidence[0]) if found else NOT_FOUND_TEXT
        cited: tuple[Citation, ...] = (evidence[0].citation,) if found else ()
        if computed is not None:
            answer, cited = computed[0], tuple(computed[1])
            out.append(computed[2])
        elif found and (pair := prose_change(r.question, evidence, r.chunks, r.key_terms,
                                             self.tokenizer, self.make_citation)) is not None:
            # a change asked of prose: both years' or both amounts' units (rag.amount_change)
            answer, cited = pair[0], tuple(pair[1])
            out.append(pair[2])
        return AnswerDecision(answer, found, cited, tuple(evidence or closest), tuple(missing),
                              tuple(out), support, support_p, computed is not None)

    @staticmethod
    def _computes_in_resolved(r: Retrieval) -> bool:
        """True when the question defines a computable figure (``corpus.derived.computable``)
        and resolution was sure of exactly one document (``Retrieval.resolved_filter``)."""
        resolved = r.resolved_filter
        return (resolved is not None and len(resolved.doc_ids or ()) == 1
                and computable(r.question))

    def _figure(self, r: Retrieval, evidence: list[Evidence], out: list[str],
                timeout_s: float) -> Flow[tuple[str, list[Citation], str] | None]:
        """Step ``figure`` (``rag.compose.figure_answer``): ``(answer, citations, flag)`` or
        ``None``; a failed step flags."""
        figure = partial(figure_answer, r, evidence, self.make_citation, self.tokenizer,
                         self.phrases, self.store)
        (fig,) = yield [Step("figure", figure, timeout_s)]
        if not fig.ok:
            out.append(fig.flag)
            return None
        got: tuple[str, list[Citation], str] | None = fig.value
        return got

    def _support(self, r: Retrieval, evidence: list[Evidence], found: bool, out: list[str],
                 timeout_s: float) -> Flow[tuple[dict[str, float], float | None]]:
        """``(features, p)`` of the best unit (``rag.answerability.answer_support``), scored
        as ``record_support`` says; a failed step flags and gives ``p = None``."""
        model = self.support_model
        wanted = bool(evidence) if self.record_support else (
            found and model is not None and model.refuses("rag"))
        if not wanted:
            return {}, (0.0 if model is not None and self.record_support else None)
        check = partial(answer_support, r, evidence, self.tokenizer, r.collection,
                        self.vocabulary, model)
        (got,) = yield [Step("support", check, timeout_s)]
        if not got.ok:
            out.append(got.flag)
            return {}, None
        features, p = got.value
        return features, p
