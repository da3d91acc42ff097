"""The LoopAgent facade: one object the gateway keeps per process and calls per question.

Usage example::

    agent = LoopAgent(store, retriever, llm=LLMConfig(base_url="http://127.0.0.1:8080/v1"))
    result = await agent.run_async("电池保修多久？", "kb", candidates=rag_hits)
    print(result.answer, [c.to_dict() for c in result.citations], result.stop_reason)
    await agent.aclose()
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import httpx

from corpus.answer_support import SupportModel, support_features
from corpus.citations import display_quote
from corpus.derived import (
    adjacent_runs,
    chunks_above,
    computable,
    derived_answer,
    document_search,
    looked_up_answer,
    looks_up,
)
from corpus.document_vocabulary import DocumentVocabulary
from corpus.presence import DocumentTermProbe, specific_terms, unit_lacks
from corpus.types import ChunkStore, Citation, SearchFilter, SearchHit
from loop.citations import make_citation, supported_answer
from loop.config import LLMConfig, LoopConfig
from loop.controller import EventCallback, LoopState, drive
from loop.errors import LLMError
from loop.evidence import TermMatcher
from loop.llm_client import AsyncLLMClient
from loop.policies.base import DirectoryEntry, first_prompt
from loop.policies.llm_json import LLMJsonPolicy
from loop.policies.llm_read import LLMReadPolicy
from loop.policies.llm_tools import LLMToolsPolicy
from loop.policies.offline import OfflinePolicy
from loop.results import LoopResult, StepEvent
from loop.tools import ToolContext
from loop.types import NOT_FOUND, DocumentDirectory, KeyTermExtractor, SearchBackend, UnitEmbedder

__all__ = ["LoopAgent", "SimpleKeyTerms", "checked"]

_STOP = {"the", "a", "an", "of", "in", "on", "is", "are", "what", "which", "how", "who", "when",
         "does", "do", "to", "for", "and", "or", "was", "were", "by", "with", "it", "this",
         "that", "是", "的", "多少", "什么", "哪些", "哪个", "吗", "呢", "几"}


class SimpleKeyTerms:
    """Fallback key-term extractor (whitespace/punctuation words, CJK runs cut into bigrams)
    used only when ``corpus.tokenizer`` is not importable; the gateway passes the real one."""

    def key_terms(self, text: str) -> list[str]:
        """Distinct lower-cased terms without stop words."""
        out: list[str] = []
        for w in re.findall(r"[A-Za-z0-9][\w.\-]*|[\u3400-\u9fff]+", text.lower()):
            if re.fullmatch(r"[\u3400-\u9fff]+", w) and len(w) > 2:
                out += [w[i:i + 2] for i in range(len(w) - 1)]
            else:
                out.append(w)
        return [t for t in dict.fromkeys(out) if t not in _STOP]


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


def _answer_alone(res: LoopResult) -> LoopResult:
    """An offline (or evidence) answer is its best unit alone, the other units it cited are
    ``related`` (issue 15 item 6: a reader sees which line answers). LLM-written answers keep
    their citations: each footnote marks a sentence of the answer."""
    if res.found and len(res.citations) > 1 and (res.brain == "offline" or res.evidence_answer):
        first, *rest = res.citations
        res.answer, res.citations, res.related = display_quote(first.quote), [first], rest
    return res


def _default_terms() -> KeyTermExtractor:
    try:
        from corpus.tokenizer import Tokenizer  # engineer B
    except ImportError:
        return SimpleKeyTerms()
    return Tokenizer()


class LoopAgent:
    """Deep-read path: runs one reading policy through the tool set and the loop controller:
    LLM native tools (protocol ``tools``), the line-reading protocol (``json``/``read``; with
    the pick step first, ``pick``, the default when ``auto`` finds no native tools), free-form
    JSON actions (``json_actions``), or offline (no LLM).

    :param store: the chunk store (reads, neighbours, outlines).
    :param search: the ``search`` tool's backend (hybrid retriever or keyword adapter).
    :param llm: an :class:`LLMConfig` (the agent owns the client), a shared
        :class:`AsyncLLMClient`, or ``None`` for the offline policy.
    :param config: loop budgets. :param key_terms: key-term extractor (default: corpus
        tokenizer). :param documents: catalogue for the first prompt's directory.
    :param transport: httpx transport for the LLM client (tests).
    :param embedder: dense embedder the offline policy ranks evidence units with (the RAG
        path's; ``None`` = key-term coverage and search order only).
    :param phrases: field phrases a text expands to (``rag.expand.QueryExpander.phrases``),
        used to match computed figures' row labels (``corpus.derived``); ``None``: key terms.
    :param support_model: the answer-support decision (``corpus.answer_support``): an answer
        whose first citation scores below its ``loop_threshold`` is "not found". Default: the
        packaged ``corpus/answer_support.json`` (none: features recorded, no decision).
    """

    def __init__(self, store: ChunkStore, search: SearchBackend, *,
                 llm: LLMConfig | AsyncLLMClient | None = None, config: LoopConfig | None = None,
                 key_terms: KeyTermExtractor | None = None,
                 documents: DocumentDirectory | None = None,
                 transport: httpx.AsyncBaseTransport | None = None,
                 embedder: UnitEmbedder | None = None,
                 phrases: Callable[[str], Sequence[str]] | None = None,
                 support_model: SupportModel | None = None) -> None:
        self.store, self.search, self.documents = store, search, documents
        self.phrases = phrases
        self.embedder = embedder
        self.config = config or LoopConfig()
        self.key_terms = key_terms or _default_terms()
        self._owns_client = isinstance(llm, LLMConfig)
        self.client = (AsyncLLMClient(llm, transport=transport) if isinstance(llm, LLMConfig)
                       else llm)
        self._sections: dict[tuple[str, str], tuple[str, ...]] = {}
        self._probe: DocumentTermProbe | None = None
        self.support_model = support_model if support_model is not None else SupportModel.load()
        self._vocabulary: DocumentVocabulary | None = None

    async def _offline(self, state: LoopState, on_event: EventCallback | None) -> LoopResult:
        policy = OfflinePolicy(embedder=self.embedder)
        res = await drive(policy, state, on_event)
        res.dense_error = policy.dense_error
        return res

    async def aclose(self) -> None:
        """Close the LLM client when the agent created it."""
        if self.client is not None and self._owns_client:
            await self.client.aclose()

    def _directory(self, collection: str, candidates: Sequence[SearchHit]
                   ) -> tuple[list[DirectoryEntry], int]:
        docs = self.documents.list_documents(collection) if self.documents else []
        first = list(dict.fromkeys(h.chunk.doc_id for h in candidates))
        by_id = {d.doc_id: d for d in docs}
        order = [d for d in first if d in by_id] + [d.doc_id for d in docs if d.doc_id not in first]
        limit = self.config.directory_max_docs
        entries = []
        for doc_id in order[:limit]:
            d = by_id[doc_id]
            key = (collection, doc_id)
            if key not in self._sections:
                tops = [c.section_path[0] for c in self.store.document_chunks(collection, doc_id)
                        if c.section_path]
                self._sections[key] = tuple(dict.fromkeys(tops))
            entries.append(DirectoryEntry(d.path, d.title, self._sections[key]))
        if not docs:
            seen: dict[str, DirectoryEntry] = {}
            for h in candidates:
                seen.setdefault(h.chunk.path, DirectoryEntry(h.chunk.path, h.chunk.title))
            entries = list(seen.values())
        entries.sort(key=lambda e: e.path)  # stable order: servers reuse the prompt prefix
        return entries, max(0, len(order) - limit)

    async def run_async(
        self, question: str, collection: str, *, candidates: Sequence[SearchHit] = (),
        history: Sequence[dict[str, Any]] = (), current_date: str | None = None,
        flt: SearchFilter | None = None, on_event: EventCallback | None = None,
        offline: bool = False,
    ) -> LoopResult:
        """Answer ``question`` from ``collection`` by reading.

        :param candidates: the RAG path's hits (shown in the first prompt, seeded as seen).
        :param history: earlier turns ``{"role", "content"}`` (follow-up questions).
        :param current_date: ISO date for questions that assume one.
        :param flt: restrict every search (documents, section prefix).
        :param on_event: called with each :class:`StepEvent` as it happens.
        :param offline: force the offline policy even when an LLM is configured.
        :returns: the :class:`LoopResult` (verified citations only). Never raises for LLM or
            tool failures; raises ``ValueError`` for an empty question.
        """
        if not question.strip():
            raise ValueError("question is empty")
        res = await self._run(question, collection, candidates=candidates, history=history,
                              current_date=current_date, flt=flt, on_event=on_event,
                              offline=offline)
        res = await self._check_presence(question, collection, res)
        res = _answer_alone(await self._check_support(question, collection, res))
        return await self._compute(question, collection, res,
                                   confined=flt is not None and bool(flt.doc_ids))

    async def _compute(self, question: str, collection: str, res: LoopResult,
                       confined: bool = False) -> LoopResult:
        """An offline (or evidence) answer to a question asking for a change or a defined ratio
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
        Runs under the tool timeout; any failure keeps ``res``."""
        tok = self.key_terms
        normalize = getattr(tok, "normalize", None)
        computing = computable(question)
        if (not (res.found or (confined and not res.fallback and not res.absent_terms))
                or not res.read_chunk_ids or normalize is None
                or not (res.brain == "offline" or res.evidence_answer)
                # a found answer to a lookup keeps its text unless the reads were confined to
                # the resolved documents and a statement row there holds the asked figure
                or (res.found and not computing and not (confined and looks_up(question)))):
            return res

        def compute() -> tuple[str, list[Citation]] | None:
            chunks = self.store.get_chunks(collection, list(dict.fromkeys(res.read_chunk_ids)))
            runs = adjacent_runs(chunks)
            # rows whose period header sits in chunks not read: the chunks above them; a
            # formula's line item not read: searched in the document it reads (corpus.derived)
            above = chunks_above(self.store, collection)
            if not computing:
                return looked_up_answer(question, runs, tok.key_terms, normalize, make_citation,
                                        self.phrases, above)
            sparse = getattr(tok, "sparse_query", None)
            docs = {c.doc_id for c in chunks}
            more = (document_search(self.store, collection, sparse,
                                    runs[0][0].doc_id if runs else None)
                    if sparse is not None and (confined or len(docs) == 1) else None)
            return derived_answer(question, runs, tok.key_terms, normalize, make_citation,
                                  self.phrases, more, above)

        try:
            got = await asyncio.wait_for(asyncio.to_thread(compute),
                                         self.config.tool_timeout_s or None)
        except Exception:  # noqa: BLE001 - a failed computation keeps the answer
            return res
        if got is None:
            return res
        text, cits = got
        res.related = [c for c in [*res.citations, *res.related] if c not in cits]
        res.answer, res.citations, res.computed, res.found = text, cits, computing, True
        return res

    async def _check_presence(self, question: str, collection: str,
                              res: LoopResult) -> LoopResult:
        """``res`` turned into "not found" when the document its answer cites lacks one of the
        question's specific terms (codes, years: ``corpus.presence``); the check runs
        under the tool timeout and keeps the answer when it fails or the key-term extractor
        has no index form (``sparse_query``)."""
        tok = self.key_terms
        sparse = getattr(tok, "sparse_query", None)
        normalize = getattr(tok, "normalize", None)
        if not res.found or not res.citations or res.fallback:
            return res
        if sparse is None or normalize is None or not hasattr(self.store, "keyword_search"):
            return res
        terms = specific_terms(tok.key_terms(question), normalize(question))
        if not terms:
            return res
        first = res.citations[0]

        if self._probe is None:  # one per agent: it remembers (doc_id, term) answers
            self._probe = DocumentTermProbe(self.store, sparse, normalize)
        probe = self._probe

        def absent_in_document() -> list[str]:
            chunks = self.store.get_chunks(collection, [first.chunk_id])
            return unit_lacks(terms, first.quote, chunks[0] if chunks else None, first.doc_id,
                              partial(probe.absent, collection), normalize)

        try:
            absent = await asyncio.wait_for(asyncio.to_thread(absent_in_document),
                                            self.config.tool_timeout_s or None)
        except Exception:  # noqa: BLE001 - a failed check keeps the answer
            return res
        if absent:
            res.answer, res.found, res.citations = NOT_FOUND, False, []
            res.absent_terms = list(absent)
        return res

    async def _check_support(self, question: str, collection: str,
                             res: LoopResult) -> LoopResult:
        """``res`` with the answer-support features of its first citation
        (``corpus.answer_support``) and, with a support model, their probability; an answer
        below the model's threshold becomes "not found". Runs under the tool timeout; a failure
        keeps the answer unscored."""
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
                question, tok.key_terms(question), first.quote,
                (c.title, " ".join(c.section_path), c.path, c.table_header()) if c else (),
                c.text if c else "",
                name_terms=names(question) if callable(names) else (),
                normalize=normalize, path=first.path,
                analyse=analyse if callable(analyse) else None,
                document=partial(vocab.held, collection, doc_id) if vocab and doc_id else None)

        try:
            res.support = await asyncio.wait_for(asyncio.to_thread(features),
                                                 self.config.tool_timeout_s or None)
        except Exception:  # noqa: BLE001 - a failed check keeps the answer
            return res
        if self.support_model is None:
            return res
        res.support_p = round(self.support_model.score(res.support), 4)
        if res.support_p < self.support_model.loop_threshold:
            res.answer, res.found, res.citations = NOT_FOUND, False, []
            res.unsupported = True
        return res

    async def _run(
        self, question: str, collection: str, *, candidates: Sequence[SearchHit],
        history: Sequence[dict[str, Any]], current_date: str | None,
        flt: SearchFilter | None, on_event: EventCallback | None, offline: bool,
    ) -> LoopResult:
        ctx = ToolContext(self.store, self.search, collection, self.config, flt=flt)
        for h in candidates:
            ctx.seen.setdefault(h.chunk.chunk_id, h.chunk)
            ctx.hits[h.chunk.chunk_id] = h.score
        terms_src = " ".join([question, *(str(h.get("content", "")) for h in history
                                          if h.get("role") == "user")][-2:])
        terms = self.key_terms.key_terms(question) or self.key_terms.key_terms(terms_src)
        state = LoopState(question, ctx, TermMatcher(terms, self.key_terms))
        if self.client is None or offline:
            return await self._offline(state, on_event)
        try:
            protocol = await asyncio.wait_for(self.client.resolve_protocol(),
                                              self.config.deadline_s or None)
        except (LLMError, TimeoutError) as exc:
            if on_event is not None:
                maybe = on_event(StepEvent(0, 0, "llm", status="error",
                                           note=f"LLM unavailable, offline policy: "
                                                f"{type(exc).__name__}: {exc}"[:300]))
                if inspect.isawaitable(maybe):
                    await maybe
            # the offline policy takes milliseconds: give it the clock the probe used up
            state.started = time.monotonic()
            return await self._offline(state, on_event)
        if protocol == "json" and self.client.config.protocol == "auto":
            protocol = "pick"  # no native tools (small local models): the pick step first
        if protocol in ("json", "read", "pick"):  # the line-reading protocol (local models)
            reader = LLMReadPolicy(self.client, current_date=current_date, history=history,
                                   embedder=self.embedder, pick=protocol == "pick")
            return checked(await reader.run(state, on_event))
        directory, more = await asyncio.to_thread(self._directory, collection, candidates)
        if self.documents:
            ctx.documents = self.documents.list_documents(collection)
        prompt = first_prompt(question, directory=directory, more_docs=more,
                              candidates=list(candidates)[:5], history=history,
                              current_date=current_date, max_loops=self.config.max_loops)
        policy = (LLMToolsPolicy if protocol == "tools" else LLMJsonPolicy)(self.client, prompt)
        return checked(await drive(policy, state, on_event))

    def run(
        self, question: str, collection: str, *, candidates: Sequence[SearchHit] = (),
        history: Sequence[dict[str, Any]] = (), current_date: str | None = None,
        flt: SearchFilter | None = None, on_event: EventCallback | None = None,
        offline: bool = False,
    ) -> LoopResult:
        """Sync twin of :meth:`run_async` (CLI, scripts): same arguments, ``asyncio.run``."""
        return asyncio.run(self.run_async(
            question, collection, candidates=candidates, history=history,
            current_date=current_date, flt=flt, on_event=on_event, offline=offline))
