"""The conversation stage of a request: load the session memory, rewrite the question into a
standalone one, and after the answer record the turn (window, summary, fact cards, retrieval
state) and save it.

The router calls :meth:`ConversationService.begin` before the cache lookup and
:meth:`ConversationService.finish` after the answer (``gateway.routing.Router.ask``). A request
without ``session_id`` but with ``history`` is rewritten from the history's last user turn (no
memory is kept). Item lists for ordinal follow-ups ("the next one") are read from the
documents the previous answer cited (at most two documents), cited chunks first.

Route record fields written here: ``rewritten_question``, ``rewrite`` (``by``, ``rules``),
``session`` (``turn``, ``memory_tokens``, ``backend``, ``memory_hits``: the retrieval-state
documents the rewrite read), flags ``session_memory_local`` (Redis down: memory kept in this
process) and ``rewrite_llm_failed``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpus.types import SearchFilter
from gateway.cache import normalize_question
from gateway.conversation.cross_stage import CrossLanguageStage
from gateway.conversation.crosslang import CrossLanguage
from gateway.conversation.items import item_lists
from gateway.conversation.memory import MemoryLimits, SessionMemory, bound, memory_tokens
from gateway.conversation.rewrite import Rewrite, is_followup, rewrite_rules
from gateway.conversation.store import SessionStore
from gateway.routing import QueryInput, QueryResult, RouteTrace

__all__ = ["ConversationService", "TurnContext"]

ReadChunks = Callable[[str, Sequence[str]], list[Any]]


@dataclass(slots=True)
class TurnContext:
    """One request's conversation state between :meth:`~ConversationService.begin` and
    :meth:`~ConversationService.finish`."""

    query: QueryInput  # the question to answer (rewritten)
    rewrite: Rewrite
    memory: SessionMemory | None
    scope: str
    flags: list[str] = field(default_factory=list)
    #: the answer of a fact card given for the same question at the same corpus version
    reuse: QueryResult | None = None
    #: the standalone question as the memory keeps it: the rewrite before cross-language key
    #: terms were appended (a later follow-up is read against it); ``None``: the rewrite's
    standalone: str | None = None
    #: the earlier turn's standalone question (memory or history), ``None`` when there is none
    previous: str | None = None


class ConversationService:
    """Session memory + query rewriting for the router (module docstring).

    :param store: where memories live (Redis or in-process).
    :param limits: memory bounds.
    :param read_chunks: ``(collection, chunk_ids) -> chunks`` of the documents holding those
        chunks (blocking; run in a thread), or ``None`` (no ordinal follow-ups).
    :param llm_rewriter: async ``(question, memory, rules_rewrite) -> str | None`` (an LLM
        rewrite), or ``None`` for rules only.
    :param cross_language: a :class:`gateway.conversation.crosslang.CrossLanguage` (key terms
        in the documents' language for a question in the other one), or ``None``.
    :param llm_summariser: async ``(memory) -> str | None``: when turns were folded into the
        summary, the LLM rewrites it after the answer is sent (a background task that saves
        the memory again; ``summary_by`` says ``llm``), or ``None`` (extractive summary).
    :param corpus_version: ``collection -> version`` (blocking): a question asked again in the
        session at the same version is answered from its fact card (not when the caller turns
        the cache off or sends filters), or ``None``.
    :param llm_key_terms: async ``(question, language) -> KeyTerms | [terms]`` (an LLM's key
        terms in the documents' language, e.g. ``gateway.conversation.llm.LLMConversation.
        key_terms``; kept when the collection holds them, the dictionary's otherwise).
    :param llm_timeout_s: seconds one conversation LLM call (follow-up rewrite, key terms) may
        take; then the rules' rewrite / the dictionary's terms stand, flagged. ``None``: only
        the client's own timeout and the request deadline.
    :param cached_version: ``collection -> version`` when known without I/O, else ``None``:
        the dictionary's key terms of a question are kept at that version
        (:class:`gateway.conversation.cross_stage.CrossLanguageStage`); ``None``: not kept.
    """

    def __init__(self, store: SessionStore, limits: MemoryLimits | None = None, *,
                 read_chunks: ReadChunks | None = None,
                 llm_rewriter: Callable[..., Any] | None = None,
                 cross_language: CrossLanguage | None = None,
                 llm_summariser: Callable[..., Any] | None = None,
                 corpus_version: Callable[[str], str] | None = None,
                 llm_key_terms: Callable[..., Any] | None = None,
                 llm_timeout_s: float | None = None,
                 cached_version: Callable[[str], str | None] | None = None) -> None:
        self.store = store
        self.llm_timeout_s = llm_timeout_s
        self.llm_key_terms = llm_key_terms
        self.corpus_version = corpus_version
        self.llm_summariser = llm_summariser
        self._tasks: set[asyncio.Task[None]] = set()
        self.cross_language = cross_language
        self._cross_stage = CrossLanguageStage(cross_language, llm_key_terms, llm_timeout_s,
                                               cached_version=cached_version)
        self.limits = limits or MemoryLimits()
        self.read_chunks = read_chunks
        self.llm_rewriter = llm_rewriter

    @property
    def llm_budget_s(self) -> float:
        """Seconds the LLM calls of one :meth:`begin` may add (``llm_timeout_s`` when an LLM
        rewriter or key-term step is configured, else 0)."""
        if self.llm_rewriter is None and self.llm_key_terms is None:
            return 0.0
        return self.llm_timeout_s or 0.0

    def idle_for(self, q: QueryInput) -> bool:
        """True when :meth:`begin` would return ``None`` and record nothing, known without
        I/O: no session, no history and no cross-language terms to add (no cross-language
        stage, or the collection holds no document in the other script). The router then skips
        the stage and its timer (every near-cache hit of such a question)."""
        if getattr(q, "session_id", None) or q.history:
            return False
        return self._cross_stage.idle_for(q.question, q.collection)

    def known_question(self, q: QueryInput) -> str:
        """The question :meth:`begin` would route ``q`` as, when known without I/O; else
        ``q.question`` as asked (a request with a session or history: as asked)."""
        if getattr(q, "session_id", None) or q.history:
            return q.question
        return self._cross_stage.known_question(q.question, q.collection)

    async def begin(self, q: QueryInput, record: RouteTrace) -> TurnContext | None:
        """Load the memory of ``q.session_id`` (scope ``q.caller``) and rewrite ``q.question``
        (follow-ups from the memory or history; cross-language key terms); ``None`` when
        nothing applies."""
        session_id = getattr(q, "session_id", None)
        if not session_id and not q.history:
            return await self._cross_only(q, record)
        scope = getattr(q, "caller", "") or "anonymous"
        memory: SessionMemory | None = None
        flags: list[str] = []
        if session_id:
            loaded = await self.store.load(scope, session_id)
            if loaded.local:
                flags.append("session_memory_local")
            memory = loaded.memory
            expect = getattr(q, "expect_previous", None)
            last = memory.previous() if memory is not None else None
            if memory is not None and expect is not None and (
                    last is None or last.question != expect):
                memory = None  # a derived session whose turns are not this conversation's
            if memory is None or memory.collection not in ("", q.collection):
                memory = SessionMemory(session_id, collection=q.collection)
        previous = _previous(memory, q.history, q.current_date)
        lists: list[Any] = []
        hits: list[str] = []
        cited = 0
        if previous and memory is not None and self.read_chunks is not None \
                and is_followup(q.question):
            try:
                lists, hits, cited = await self._lists(q.collection, memory)
            except Exception:  # noqa: BLE001 - store down: rewrite without item lists
                flags.append("session_state_unreadable")
        rw = rewrite_rules(q.question, previous, lists, q.current_date, cited=cited)
        if self.llm_rewriter is not None and previous and is_followup(q.question):
            try:
                async with asyncio.timeout(self.llm_timeout_s):
                    text = await self.llm_rewriter(q.question, previous, memory, rw)
            except Exception:  # noqa: BLE001 - the rules' rewrite stands
                flags.append("rewrite_llm_failed")
                text = None
            if text:
                rw = Rewrite(q.question, text, (*rw.rules, "llm"), "llm")
        standalone = rw.question
        rw = await self._cross_stage.apply(rw, q.collection, record)
        record.rewrote(rw.question if rw.changed else None, rw.by, rw.rules)
        # where this turn's memory came from: in-process when Redis did not answer
        backend = "memory" if "session_memory_local" in flags else self.store.backend
        record.in_session((memory.turn_count + 1) if memory else None,
                          backend if memory else None,
                          memory_tokens(memory) if memory else 0, hits)
        record.flag_all(flags)
        new_q = q
        if rw.changed or previous:
            new_q = dataclasses.replace(q, question=rw.question, history=())
        if rw.focus_doc and (q.filters is None or q.filters.is_empty()):
            # the follow-up was resolved in this document's list: retrieval starts there
            new_q = dataclasses.replace(new_q, filters=SearchFilter(doc_ids=(rw.focus_doc,)))
            record.session_focus(next(
                (lst.path for lst in lists if lst.doc_id == rw.focus_doc), rw.focus_doc))
        turn = TurnContext(new_q, rw, memory, scope, flags, standalone=standalone,
                           previous=previous)
        if memory is not None and self.corpus_version is not None and new_q.use_cache and (
                new_q.filters is None or new_q.filters.is_empty() or rw.focus_doc):
            await self._reuse(turn, record)
        return turn

    async def _reuse(self, turn: TurnContext, record: RouteTrace) -> None:
        """Answer from a fact card given for this question at the current corpus version (no
        re-reading; ``final_path`` ``memory``)."""
        if self.corpus_version is None or turn.memory is None:
            return
        version = await asyncio.to_thread(self.corpus_version, turn.query.collection)

        def same(a: str, b: str) -> bool:
            return normalize_question(a) == normalize_question(b)

        card = turn.memory.card_for(turn.standalone or turn.rewrite.question, version, same)
        if card is None:
            return
        result = QueryResult.from_cached({"answer": card.fact, "citations": card.citations,
                                          "related": [], "found": True})
        result.cached, result.payload = False, None  # citations in their full shape
        turn.reuse = result
        record.served_from_memory(card.turn, version)

    async def _lists(self, collection: str, memory: SessionMemory
                     ) -> tuple[list[Any], list[str], int]:
        last = memory.turn_count
        chunks = [c for c in memory.state.chunks if c.get("turn") == last] or memory.state.chunks
        ids = [c["chunk_id"] for c in chunks if c.get("chunk_id")]
        if not ids or self.read_chunks is None:
            return [], [], 0
        read = await asyncio.to_thread(self.read_chunks, collection, ids)
        cited = {c.get("chunk_id") for c in chunks if c.get("cited", True)}
        ordered = ([c for c in read if c.chunk_id in cited]
                   + [c for c in read if c.chunk_id not in cited])
        paths = list(dict.fromkeys(c.path for c in ordered))
        return item_lists(ordered), paths, sum(c.chunk_id in cited for c in read)

    async def _summarise(self, scope: str, memory: SessionMemory) -> None:
        """Replace the extractive summary lines with the LLM's summary and save (best effort:
        an LLM or Redis fault leaves the extractive summary)."""
        try:
            text = await self.llm_summariser(memory)  # type: ignore[misc]
        except Exception:  # noqa: BLE001 - the extractive summary stands
            return
        if not text:
            return
        memory.summary = [text]
        memory.summary_by = "llm"
        bound(memory, self.limits)
        await self.store.save(scope, memory)

    async def drain(self) -> None:
        """Wait for background summaries (tests, shutdown)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _cross_only(self, q: QueryInput, record: RouteTrace) -> TurnContext | None:
        """A request without session or history: only the cross-language terms."""
        rw = await self._cross_stage.apply(Rewrite(q.question, q.question), q.collection, record)
        if not rw.changed and not rw.focus_doc:
            return None
        record.rewrote(rw.question if rw.changed else None, rw.by, rw.rules)
        new_q = dataclasses.replace(q, question=rw.question)
        if rw.focus_doc and (q.filters is None or q.filters.is_empty()):
            # the question names a document by its file name: retrieval runs inside it
            new_q = dataclasses.replace(new_q, filters=SearchFilter(doc_ids=(rw.focus_doc,)))
        return TurnContext(new_q, rw, None, "")

    async def finish(self, turn: TurnContext, result: QueryResult, record: RouteTrace) -> None:
        """Record the answered turn in the memory and save it (no-op without a session)."""
        memory = turn.memory
        if memory is None:
            return
        cites = [c.to_dict() for c in result.citations]
        read = [str(i) for i in (record.candidates or [])[:5]]
        # the standalone question without the cross-language terms: a follow-up's place is
        # found in it ("What about three years or more?"), and terms are appended again then
        memory.add_turn(turn.rewrite.original, turn.standalone or turn.rewrite.question,
                        result.answer, bool(result.found), cites, self.limits, read=read,
                        corpus_version=record.corpus_version or "")
        folded = len(memory.summary)
        tokens = bound(memory, self.limits)
        if not await self.store.save(turn.scope, memory):
            record.flag("session_memory_local")
        if self.llm_summariser is not None and folded and (
                memory.summary_by != "llm" or folded > 1):
            task = asyncio.create_task(self._summarise(turn.scope, memory))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        record.session_saved(tokens)


def _previous(memory: SessionMemory | None, history: Sequence[dict[str, str]],
              current_date: str | None = None) -> str | None:
    """The previous standalone question: the memory's last turn, else the history's user
    turns read in order by the rules, without documents (a trial's history 第二十一条规定了什么？,
    下一条呢？ + 上一条呢？ was read "下一条呢？ 上一条呢？"; a session read it right)."""
    if memory is not None and memory.previous() is not None:
        return memory.previous().rewritten  # type: ignore[union-attr]
    standalone: str | None = None
    for u in (t.get("content", "").strip() for t in history if t.get("role") == "user"):
        standalone = rewrite_rules(u, standalone, (), current_date).question if u else standalone
    return standalone
