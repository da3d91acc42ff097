"""The checks a LoopAgent answer passes before it leaves (:class:`AnswerChecks`), in this order
(:meth:`loop.agent.LoopAgent.run_async`):

0. :meth:`AnswerChecks.scope` – quoted from the page the question names, stating the colour or
   quantity it asks (``corpus.question_scope``), no row of other years, else "not found";
1. :meth:`AnswerChecks.presence` – the cited document must hold the question's specific terms
   (codes, years, figure labels), acronyms (``corpus.presence``) and names it asks about
   (``corpus.asked_names``), else "not found";
2. :meth:`AnswerChecks.support` – the answer-support features of the first citation and, with a
   support model, their probability (``corpus.answer_support``): below its threshold, not found;
3. :func:`answer_alone` – an offline (or evidence) answer is its best unit alone, others related;
4. :meth:`AnswerChecks.compute` – a change or a ratio computed from the statement rows read
   (``corpus.derived``).

:func:`checked` is the LLM-written answer's own check (supported sentences only), applied by the
agent to the LLM policies' results. Each check runs in a thread under the tool timeout; a check
that fails keeps the answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial

from corpus.answer_support import SupportModel, support_features
from corpus.asked_names import asked_names, checked_names
from corpus.citations import display_quote
from corpus.derived import adjacent_runs, computable, looks_up, statement_figure
from corpus.document_vocabulary import DocumentVocabulary
from corpus.item_scope import in_asked_form
from corpus.labels import asked_item
from corpus.period_scope import pinned_years, row_other_period
from corpus.presence import DocumentTermProbe, specific_terms, subject_acronyms, unit_lacks
from corpus.quantity_kind import asked_kind
from corpus.question_scope import asks_content, content_misses, count_unit, page_misses
from corpus.types import ChunkStore, Citation
from loop.citations import make_citation, supported_answer
from loop.results import LoopResult
from loop.types import NOT_FOUND, KeyTermExtractor

__all__ = ["AnswerChecks", "answer_alone", "checked", "quotes_lines", "refuse"]


def checked(res: LoopResult) -> LoopResult:
    """``res`` with its LLM-written answer checked before it leaves: a "not found" carries the
    fixed :data:`loop.types.NOT_FOUND` text (no model words), and a found answer keeps only the
    sentences its citations support (:func:`loop.citations.supported_answer`), counting the
    others in ``unsupported_sentences``. Offline answers and evidence answers (verbatim units)
    and hand-backs to RAG pass unchanged."""
    if res.brain == "offline" or res.fallback or res.evidence_answer:
        return res
    if not res.found or not res.citations:
        res.answer, res.found, res.citations = NOT_FOUND, False, []
        return res
    res.answer, res.unsupported_sentences = supported_answer(res.answer, res.citations)
    return res


def refuse(res: LoopResult) -> None:
    """``res`` becomes "not found" after a check: the units it cited are the closest passages,
    shown apart (``related``), never the answer."""
    res.related = [*res.citations, *(c for c in res.related if c not in res.citations)]
    res.answer, res.found, res.citations = NOT_FOUND, False, []


def answer_alone(res: LoopResult) -> LoopResult:
    """An offline (or evidence) answer is its best unit alone, the other units it cited are
    ``related`` (issue 15 item 6: a reader sees which line answers). LLM-written answers keep
    their citations: each footnote marks a sentence of the answer."""
    if res.found and len(res.citations) > 1 and (res.brain == "offline" or res.evidence_answer):
        first, *rest = res.citations
        res.answer, res.citations, res.related = display_quote(first.quote), [first], rest
    return res


LINE_PROTOCOLS = (":pick", ":read")  # the line-reading protocols (loop.policies.llm_read)


def quotes_lines(res: LoopResult) -> bool:
    """``res`` is an answer of the line-reading protocols (brain ``llm:<model>:pick`` /
    ``:read``): the model chose or noted lines, the loop quoted them. The computation over the
    rows read applies to it as to an offline answer, so that no LLM answer stands where the
    offline policy's would have been computed (loop_eval, FinanceBench sample: the offline
    pass found nothing, a read block's unrelated tax line was kept and the Netflix 2017 total
    current liabilities row, looked up offline, lost)."""
    return res.brain.startswith("llm:") and res.brain.endswith(LINE_PROTOCOLS)


class AnswerChecks:
    """The checks of one agent's answers (module docstring).

    :param store: the chunk store (the cited chunks, the documents' terms).
    :param key_terms: the key-term extractor; its ``normalize``, ``sparse_query``,
        ``name_terms`` and ``terms``, when it has them (``corpus.tokenizer.Tokenizer``), enable
        the checks that need them.
    :param timeout_s: each check's time limit, seconds (the tool timeout; 0 = none).
    :param phrases: field phrases a text expands to (row labels of computed figures).
    :param support_model: the answer-support decision, or ``None`` (features recorded only).
    """

    def __init__(self, store: ChunkStore, key_terms: KeyTermExtractor, *, timeout_s: float,
                 phrases: Callable[[str], Sequence[str]] | None = None,
                 support_model: SupportModel | None = None) -> None:
        self.store, self.key_terms, self.timeout_s = store, key_terms, timeout_s
        self.phrases, self.support_model = phrases, support_model
        self._probe: DocumentTermProbe | None = None
        self._vocabulary: DocumentVocabulary | None = None

    async def scope(self, question: str, collection: str, res: LoopResult) -> LoopResult:
        """``res`` with only its citations on the page the question names (an offline or
        evidence answer; an LLM-written one keeps its footnotes), or "not found" when none is
        on it, or the first does not state what the question asks (``content_misses``: colour,
        physical quantity, kind of count, year, article; ``out_of_scope`` says why); for a
        count, a year or an article an offline or evidence answer is answered by its first
        cited unit stating it (moved first). Chunks are read under the tool timeout."""
        if not res.found or not res.citations or res.fallback:
            return res
        on_page, why = page_misses(question, res.citations, lambda c: c)
        if on_page and (res.brain == "offline" or res.evidence_answer):
            res.citations = on_page  # answer_alone makes the first one the answer
        if not why and asks_content(question):
            # days, a multiple, the year or the article asked stand in the sentence that answers:
            # an offline or evidence answer is answered by its first cited unit stating it (a
            # unit (mA) or a colour is in every row of a spec table: the first stands alone)
            rotate = (asked_kind(question) is not None or bool(pinned_years(question))
                      or asked_item(question) is not None) and (
                res.brain == "offline" or res.evidence_answer)
            cits = list(res.citations) if rotate else res.citations[:1]
            try:
                got = await asyncio.wait_for(asyncio.to_thread(
                    self.store.get_chunks, collection,
                    list(dict.fromkeys(c.chunk_id for c in cits))), self.timeout_s or None)
            except Exception:  # noqa: BLE001 - a failed read keeps the answer
                return res
            chunks = {c.chunk_id: c for c in got}
            first_misses: list[str] | None = None
            for i, cit in enumerate(cits):
                chunk = chunks.get(cit.chunk_id)
                heads, text = ((c.title, *c.section_path), c.text) if (c := chunk) else ((), "")
                misses = content_misses(question, cit.quote + "\n" + text,
                                        count_unit(cit.quote, heads), quote=cit.quote,
                                        chunk_text=text, headings=heads[1:])
                # a statement row of other years (corpus.period_scope.row_other_period)
                if not misses and (period := row_other_period(question, cit.quote, text)):
                    misses = ["other_period:" + period]
                if not misses:
                    if i:
                        res.citations = [cits[i], *cits[:i], *cits[i + 1:]]
                    break
                first_misses = misses if first_misses is None else first_misses
            else:
                why += first_misses or []
        if why:
            refuse(res)
            res.out_of_scope = why
        return res

    async def presence(self, question: str, collection: str, res: LoopResult,
                       required: Sequence[str] = ()) -> LoopResult:
        """``res`` turned into "not found" when the document its answer cites lacks one of the
        question's specific terms (codes, years, figure labels), an acronym it names, a name it
        asks about (``corpus.asked_names``) or a ``required`` name (``corpus.presence``); run
        under the tool timeout, it keeps the answer when it fails or has no index form."""
        tok = self.key_terms
        sparse = getattr(tok, "sparse_query", None)
        normalize = getattr(tok, "normalize", None)
        if (not res.found or not res.citations or res.fallback or sparse is None
                or normalize is None or not hasattr(self.store, "keyword_search")):
            return res
        keys = tok.key_terms(question)
        terms = list(dict.fromkeys([*specific_terms(keys, normalize(question)),
                                    *subject_acronyms(question, tok.key_terms, self.phrases),
                                    *required]))
        names = asked_names(question, tok.key_terms)
        if not terms and not names:
            return res
        first = res.citations[0]
        if self._probe is None:  # one per agent: it remembers (doc_id, term) answers
            self._probe = DocumentTermProbe(self.store, sparse, normalize)
        probe = self._probe

        def absent_in_document() -> list[str]:
            chunk = next(iter(self.store.get_chunks(collection, [first.chunk_id])), None)
            asked = [*terms, *checked_names(names, question, first.quote, chunk,
                                            partial(probe.in_collection, collection))]
            return unit_lacks(asked, first.quote, chunk, first.doc_id,
                              partial(probe.absent, collection), normalize) if asked else []

        try:
            absent = await asyncio.wait_for(asyncio.to_thread(absent_in_document),
                                            self.timeout_s or None)
        except Exception:  # noqa: BLE001 - a failed check keeps the answer
            return res
        if absent:
            refuse(res)
            res.absent_terms = list(absent)
        return res

    async def support(self, question: str, collection: str, res: LoopResult) -> LoopResult:
        """``res`` with its first citation's answer-support features (``corpus.answer_support``)
        and their probability; below the model's threshold an answer the pick protocol's model
        did not confirm (``LoopResult.confirmed``) becomes "not found". Runs under the tool
        timeout; a failure keeps the answer unscored."""
        if not res.found or not res.citations or res.fallback:
            return res
        tok = self.key_terms
        normalize = getattr(tok, "normalize", None)
        names = getattr(tok, "name_terms", None)
        analyse = getattr(tok, "terms", None)
        sparse = getattr(tok, "sparse_query", None)
        first = res.citations[0]
        if (self._vocabulary is None and sparse is not None and normalize is not None
                and hasattr(self.store, "keyword_search")):
            self._vocabulary = DocumentVocabulary(self.store, sparse, normalize)
        vocab = self._vocabulary

        def features() -> dict[str, float]:
            chunks = self.store.get_chunks(collection, [first.chunk_id])
            c = chunks[0] if chunks else None
            doc_id = c.doc_id if c is not None else first.doc_id
            return support_features(
                question, tok.key_terms(question), in_asked_form(question, first.quote),
                (c.title, " ".join(c.section_path), c.path, c.table_header()) if c else (),
                c.text if c else "",
                name_terms=names(question) if callable(names) else (),
                normalize=normalize, path=first.path,
                analyse=analyse if callable(analyse) else None,
                document=partial(vocab.held, collection, doc_id) if vocab and doc_id else None)

        try:
            res.support = await asyncio.wait_for(asyncio.to_thread(features),
                                                 self.timeout_s or None)
        except Exception:  # noqa: BLE001 - a failed check keeps the answer
            return res
        if self.support_model is None:
            return res
        res.support_p = round(self.support_model.score(res.support), 4)
        floor = self.support_model.threshold_for(res.support, "loop")
        if res.support_p < floor and not res.confirmed:
            refuse(res)
            res.unsupported = True
        return res

    async def compute(self, question: str, collection: str, res: LoopResult,
                       confined: bool = False, seeds: Sequence[str] = ()) -> LoopResult:
        """An offline (evidence, or line-reading protocol: :func:`quotes_lines`) answer to a
        question asking for a change or a defined ratio
        becomes the figure computed from the statement rows of the chunks read
        (``corpus.derived``), citing each row; the former answer's citations go to ``related``.
        A "not found" answer too when every read was ``confined`` to named documents (the
        documents the question was resolved to: the rows read are the named company's, not a
        look-alike filing's) and no asked term was found absent from the cited document; such a
        "not found" answer to a question asking one year's figure is also answered by the
        statement row read whose label the question names wholly
        (:func:`corpus.derived.looked_up_answer`), and so is a found one when the reads were
        confined. A row's period header may be read in the chunks above it, and a formula's line
        item not read is searched in its document (``chunks_above``, ``document_search``).
        ``seeds``: the chunk ids of the RAG candidates the loop started from — their rows are
        read beside the chunks read, as the RAG path's figure step reads them (``rag.compose``):
        the deep read must not miss the statement row or computed figure the RAG answer held
        because its own reads went elsewhere (when ``confined``, only the seeds inside the
        documents read). Runs under the tool timeout; any failure keeps ``res``."""
        tok = self.key_terms
        normalize = getattr(tok, "normalize", None)
        computing = computable(question)
        if (not (res.found or (confined and not res.fallback and not res.absent_terms))
                or not res.read_chunk_ids or normalize is None
                or not (res.brain == "offline" or res.evidence_answer or quotes_lines(res))
                # a found answer to a lookup keeps its text unless the reads were confined to
                # the resolved documents and a statement row there holds the asked figure
                or (res.found and not computing and not (confined and looks_up(question)))):
            return res

        def compute() -> tuple[str, list[Citation]] | None:
            read = self.store.get_chunks(collection, list(dict.fromkeys(res.read_chunk_ids)))
            ids = {c.chunk_id for c in read}
            more = [cid for cid in dict.fromkeys(seeds) if cid not in ids]
            extra = self.store.get_chunks(collection, more) if more else []
            if confined:  # the seeds inside the documents the reads were confined to
                extra = [c for c in extra if c.doc_id in {r.doc_id for r in read}]
            chunks = [*read, *extra]
            runs = adjacent_runs(chunks)
            # rows whose period header sits in chunks not read: the chunks above them; a
            # formula's line item not read: searched in the document it reads (corpus.derived)
            docs = {c.doc_id for c in chunks}
            sparse = getattr(tok, "sparse_query", None) if confined or len(docs) == 1 else None
            return statement_figure(question, runs, tok.key_terms, normalize, make_citation,
                                    self.phrases, self.store, collection, sparse,
                                    runs[0][0].doc_id if runs else None)

        try:
            got = await asyncio.wait_for(asyncio.to_thread(compute),
                                         self.timeout_s or None)
        except Exception:  # noqa: BLE001 - a failed computation keeps the answer
            return res
        if got is None:
            return res
        res.replace_answer(*got, computed=computing)
        return res
