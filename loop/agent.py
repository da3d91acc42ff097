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
from typing import Any

import httpx

from corpus.answer_support import SupportModel
from corpus.fiscal_calendar import asked_on
from corpus.term_forms import YEAR
from corpus.types import ChunkStore, SearchFilter, SearchHit
from loop.answer_checks import AnswerChecks, answer_alone, checked
from loop.config import LLMConfig, LoopConfig
from loop.controller import EventCallback, LoopState, drive
from loop.dated_check import dated
from loop.errors import LLMError
from loop.evidence import TermMatcher
from loop.llm_client import AsyncLLMClient
from loop.policies.base import DirectoryEntry, first_prompt
from loop.policies.llm_json import LLMJsonPolicy
from loop.policies.llm_read import LLMReadPolicy
from loop.policies.llm_tools import LLMToolsPolicy
from loop.policies.offline import OfflinePolicy
from loop.prose_change import amount_changed
from loop.results import LoopResult, StepEvent
from loop.row_label import labelled_row
from loop.second_opinion import SecondOpinion, doubted
from loop.tools import ToolContext
from loop.types import DocumentDirectory, KeyTermExtractor, SearchBackend, UnitEmbedder

__all__ = ["LoopAgent", "SimpleKeyTerms", "terms_source"]

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


def terms_source(question: str, history: Sequence[dict[str, Any]]) -> str:
    """The text the agent takes its key terms from when ``question`` has none of its own (an
    elliptic follow-up: "Why?"): the question, then the latest user turn of ``history``. Before,
    the last two of ``[question, *user turns]`` were kept, which dropped the question itself
    once there were two earlier user turns."""
    turns = [str(h.get("content", "")) for h in history if h.get("role") == "user"]
    return " ".join([question, *turns[-1:]])


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
        self.support_model = support_model if support_model is not None else SupportModel.load()
        self.checks = AnswerChecks(store, self.key_terms, timeout_s=self.config.tool_timeout_s,
                                   phrases=phrases, support_model=self.support_model)

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
        offline: bool = False, search_query: str | None = None,
        required: Sequence[str] = (), second_opinion: SecondOpinion | None = None,
    ) -> LoopResult:
        """Answer ``question`` from ``collection`` by reading.

        :param candidates: the RAG path's hits (shown in the first prompt, seeded as seen).
        :param history: earlier turns ``{"role", "content"}`` (follow-up questions).
        :param current_date: ISO date for questions that assume one.
        :param flt: restrict every search (documents, section prefix).
        :param on_event: called with each :class:`StepEvent` as it happens.
        :param offline: force the offline policy even when an LLM is configured.
        :param search_query: the text the caller's retrieval searched for this question (a
            follow-up with its earlier turn, a period relative to today with its year:
            ``gateway.routing.rules.search_query``); the offline policy's first search asks it
            instead of the question's words. ``None``: the question.
        :param required: names the cited document must write (the organisations the caller's
            document resolution found no document by or about: ``rag``'s
            ``Retrieval.unknown_subjects``); else the answer is "not found".
        :param second_opinion: the caller's fast path's verdict on the question (``True``:
            it refuses), asked when the answer's support is weak (``loop.second_opinion``).
        :returns: the :class:`LoopResult` (verified citations only). Never raises for LLM or
            tool failures; raises ``ValueError`` for an empty question.
        """
        if not question.strip():
            raise ValueError("question is empty")
        res = await self._run(question, collection, candidates=candidates, history=history,
                              current_date=current_date, flt=flt, on_event=on_event,
                              offline=offline, search_query=search_query)
        res = await self.checks.scope(question, collection, res)
        res = await self.checks.presence(question, collection, res, required)
        res = await doubted(question, await self.checks.support(question, collection, res),
                            second_opinion, self.checks.timeout_s)
        res = answer_alone(res)
        seeds = [h.chunk.chunk_id for h in candidates]
        res = await self.checks.compute(question, collection, res,
                                        confined=flt is not None and bool(flt.doc_ids),
                                        seeds=seeds)
        # a change between two amounts asked of prose: both amounts' sentences (loop.prose_change)
        res = await amount_changed(question, collection, res, store=self.checks.store,
                                   tokenizer=self.checks.key_terms,
                                   timeout_s=self.checks.timeout_s)
        # a fiscal period's start or end asked relative to the day: computed from the calendar
        res = await dated(question, collection, res, today=asked_on(current_date),
                          store=self.checks.store, tokenizer=self.checks.key_terms,
                          seeds=seeds, flt=flt, timeout_s=self.checks.timeout_s)
        # a statement row quoted alone: led by its cells' periods (loop.row_label)
        return await labelled_row(question, collection, res, store=self.checks.store,
                                  tokenizer=self.checks.key_terms,
                                  timeout_s=self.checks.timeout_s)

    async def _run(
        self, question: str, collection: str, *, candidates: Sequence[SearchHit],
        history: Sequence[dict[str, Any]], current_date: str | None,
        flt: SearchFilter | None, on_event: EventCallback | None, offline: bool,
        search_query: str | None = None,
    ) -> LoopResult:
        ctx = ToolContext(self.store, self.search, collection, self.config, flt=flt)
        for h in candidates:
            ctx.seen.setdefault(h.chunk.chunk_id, h.chunk)
            ctx.hits[h.chunk.chunk_id] = h.score
        terms = (self.key_terms.key_terms(question)
                 or self.key_terms.key_terms(terms_source(question, history)))
        if search_query and search_query != question:
            # the year the caller dated a relative period with ("the current quarter (2025)")
            # ranks evidence too: the page of this year's periods, not a style guide's example
            terms = [*terms, *(t for t in self.key_terms.key_terms(search_query)
                               if t not in terms and YEAR.fullmatch(t))]
        state = LoopState(question, ctx, TermMatcher(terms, self.key_terms),
                          query=search_query if search_query and search_query != question else "")
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
        offline: bool = False, search_query: str | None = None, required: Sequence[str] = (),
        second_opinion: SecondOpinion | None = None,
    ) -> LoopResult:
        """Sync twin of :meth:`run_async` (CLI, scripts): same arguments, ``asyncio.run``."""
        return asyncio.run(self.run_async(
            question, collection, candidates=candidates, history=history,
            current_date=current_date, flt=flt, on_event=on_event, offline=offline,
            search_query=search_query, required=required, second_opinion=second_opinion))
