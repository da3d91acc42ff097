"""Adapters from the real components to the router's protocols (``gateway.router_types``).

- :class:`HybridRagEngine` – ``rag.retriever.HybridRetriever`` for retrieval; the answer is
  extractive (``rag.extractive.extract_answer``) without an LLM, or one grounded LLM call over
  the retrieved chunks whose citations are checked exactly like the LoopAgent's
  (``loop.citations.check_citations``: the chunk was shown, the quote is verbatim in it). An
  LLM fault (timeout, HTTP error, a reply that is not a chat completion, the circuit breaker
  open: any ``loop.errors.LLMError``) falls back to the extractive answer flagged
  ``llm_unavailable``; a reply whose text is not the grounded-answer JSON, ``llm_bad_json``;
  an answer with no verifiable citation, ``llm_citations_unverified``. Answer sentences the
  verified quotes do not support are dropped (``unsupported_sentences:N``; none left:
  extractive, ``llm_answer_unsupported``); "not found" is a fixed text.
- :class:`LoopAgentEngine` – ``loop.agent.LoopAgent``; step events become short progress
  texts ("searching 'warranty'", "reading policy.md p.12"); its LLM calls end
  ``llm_reserve_s`` before the agent's deadline (``loop.llm_breaker.llm_deadline``); an LLM
  that could not be reached or failed mid-run is flagged ``llm_unavailable`` and the offline
  policy answers; an embedder failure in the offline policy's evidence ranking is flagged
  ``embedder_unavailable``.
- :class:`CacheAdapter` – ``gateway.cache.AnswerCache``; a cache that is down raises
  ``ServiceUnavailable`` subclasses, which the router turns into the ``cache_unavailable`` flag.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from corpus.types import SearchFilter, SearchHit
from gateway.grounded import (
    FENCE,
    GROUNDED_SCHEMA,
    NOT_FOUND_TEXT,
    GroundedReply,
    grounded_messages,
)
from gateway.router_types import AnswerDraft, EventSink, LoopResult, RagResult
from loop.errors import LLMError
from loop.llm_breaker import llm_deadline

__all__ = ["CacheAdapter", "HybridRagEngine", "LoopAgentEngine", "RetrieverSearch", "describe_step"]

def _to_hits(retrieval: Any) -> list[SearchHit]:
    """Retrieval items → ``SearchHit`` list (one per chunk, the item's fused score)."""
    return [SearchHit(c, float(item.score)) for item in retrieval.items for c in item.chunks]


class HybridRagEngine:
    """The RAG path for the router.

    :param retriever: a ``rag.retriever.HybridRetriever``.
    :param llm: a shared ``loop.llm_client.AsyncLLMClient`` or ``None`` (extractive answers).
    :param answer_floor: confidence below which the extractive answer is "not found".
    :param max_evidence: evidence units in an extractive answer.
    :param llm_max_chars: characters of each chunk shown to the LLM.

    While the client's circuit breaker is open (the LLM failed repeatedly) its ``chat`` raises
    at once, so the extractive answer comes at RAG speed.
    """

    def __init__(self, retriever: Any, *, llm: Any = None, answer_floor: float = 0.2,
                 max_evidence: int = 3, llm_max_chars: int = 1500) -> None:
        self.retriever = retriever
        self.llm = llm
        self.answer_floor = answer_floor
        self.max_evidence = max_evidence
        self.llm_max_chars = llm_max_chars

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
        return RagResult(_to_hits(r), float(r.confidence.value) if r.items else None,
                         r.confidence.features.to_dict(), flags, raw=r)

    def _extractive(self, res: RagResult, flags: list[str]) -> AnswerDraft:
        from loop.citations import make_citation
        from rag.extractive import NOT_FOUND_TEXT, extract_answer

        r = res.raw
        evidence = extract_answer(r, r.key_terms, make_citation, max_evidence=self.max_evidence,
                                  normalize=self.retriever.tokenizer.normalize)
        from rag.answerability import supported_evidence

        evidence, missing = supported_evidence(evidence, r.chunks, r.key_terms)
        if missing:
            flags = [*flags, "not_in_evidence:" + ",".join(missing)]
        found = bool(evidence) and r.confidence.value >= self.answer_floor
        if found and r.key_terms and res.features.get("coverage", 1.0) <= 0.0:
            # none of the question's key terms occurs in the retrieved text: the "evidence" is
            # only the top chunk's first sentence, which answers nothing (case 12, step 9)
            found = False
            flags = [*flags, "no_key_term_coverage"]
        if not found:
            return AnswerDraft(NOT_FOUND_TEXT, [], False, "extractive", flags=flags)
        # the answer is the unit that answers, first and alone (its quote in display form: no
        # PDF line breaks inside a sentence); the other evidence is "related"
        return AnswerDraft(evidence[0].citation.quote, [evidence[0].citation], True, "extractive",
                           flags=flags, related=[e.citation for e in evidence[1:]])

    async def answer(self, question: str, retrieval: RagResult, *, broad: bool,
                     allow_llm: bool = True) -> AnswerDraft:
        """Extractive answer, or one grounded LLM call when an LLM is configured; any LLM fault
        gives the extractive answer flagged ``llm_unavailable`` (never raises for the LLM)."""
        if retrieval.raw is None or not retrieval.hits:
            from rag.extractive import NOT_FOUND_TEXT

            return AnswerDraft(NOT_FOUND_TEXT, [], False, "extractive")
        if self.llm is None or not allow_llm:
            return await asyncio.to_thread(self._extractive, retrieval, [])
        return await self._grounded(question, retrieval)

    async def _grounded(self, question: str, res: RagResult) -> AnswerDraft:
        from corpus.answer_check import check_answer
        from loop.citations import check_citations

        messages, shown = grounded_messages(question, res.hits, self.llm_max_chars)
        try:
            reply = await self.llm.chat(messages, json_schema=GROUNDED_SCHEMA)
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


def describe_step(ev: dict[str, Any], page_of: dict[str, str] | None = None) -> str:
    """A short progress text for one LoopAgent step ("searching 'warranty'", "reading p.12")."""
    tool, args = ev.get("tool", ""), ev.get("arguments") or {}
    if ev.get("kind") == "llm":
        return "thinking" if ev.get("status") == "ok" else f"LLM {ev.get('status')}: {ev.get('note', '')}"
    if ev.get("kind") == "stop":
        return f"stopped: {ev.get('status')}"
    ref = str(args.get("chunk_id", ""))
    where = (page_of or {}).get(ref, ref[:20])
    return {
        "search": f"searching '{args.get('query', '')}'",
        "read": f"reading {where}",
        "next_chunk": f"reading on: {where}",
        "prev_chunk": f"reading back: {where}",
        "outline": f"outline of {args.get('doc', args.get('document', ''))}",
        "summarize": "taking notes",
        "answer": "answering",
        "fallback_to_rag": f"handing back to RAG: {args.get('reason', '')}",
    }.get(tool, tool or str(ev.get("kind", "")))


class LoopAgentEngine:
    """The LoopAgent path for the router.

    :param agent: a ``loop.agent.LoopAgent``.
    :param store: the chunk store (to name the page of a chunk being read in progress events).
    :param deadline_s: the agent's wall-clock budget, seconds (default: ``agent.config``).
    :param llm_reserve_s: seconds before that deadline at which every LLM call ends, left for
        the offline policy's answer when the LLM fails.
    """

    def __init__(self, agent: Any, store: Any, *, deadline_s: float | None = None,
                 llm_reserve_s: float = 1.0) -> None:
        self.agent = agent
        self.store = store
        cfg = getattr(agent, "config", None)
        self.deadline_s = deadline_s if deadline_s is not None else getattr(cfg, "deadline_s", None)
        self.llm_reserve_s = llm_reserve_s

    async def run(self, collection: str, question: str, *, seeds: Sequence[SearchHit],
                  history: Sequence[dict[str, str]], on_event: EventSink | None,
                  flt: SearchFilter | None = None, current_date: str | None = None) -> LoopResult:
        """Run the agent; returns the router's ``LoopResult`` (draft or fallback reason)."""
        pages: dict[str, str] = {h.chunk.chunk_id: f"{h.chunk.path} p.{h.chunk.page_start}"
                                 for h in seeds}

        offline_switch: list[str] = []  # notes of LLM failures (every step passes through here)

        async def forward(step: Any) -> None:
            ev = step.to_dict()
            if ev.get("kind") == "llm" and ev.get("status") == "error":
                offline_switch.append(str(ev.get("note", "")))
            ref = str((ev.get("arguments") or {}).get("chunk_id", ""))
            if ref and ref not in pages and self.store is not None:
                try:
                    found = await asyncio.to_thread(self.store.get_chunks, collection, [ref])
                    if found:
                        pages[ref] = f"{found[0].path} p.{found[0].page_start}"
                except Exception:  # noqa: BLE001 - progress text only
                    pass
            ev["text"] = describe_step(ev, pages)
            if on_event is not None:
                await on_event(ev)

        kw: dict[str, Any] = dict(candidates=list(seeds), history=list(history),
                                  on_event=forward, flt=flt, current_date=current_date)
        end = (time.monotonic() + self.deadline_s - self.llm_reserve_s) if self.deadline_s else None
        with llm_deadline(end):
            res = await self.agent.run_async(question, collection, **kw)
        prior: list[dict[str, Any]] = []
        tokens = res.tokens
        if res.stop_reason == "llm_error":  # the LLM failed mid-run: the offline policy answers
            offline_switch.append("offline policy after an LLM fault")
            prior = [s.to_dict() for s in res.steps]
            res = await self.agent.run_async(question, collection, offline=True, **kw)
            tokens += res.tokens
        steps = prior + [s.to_dict() for s in res.steps]
        flags = ["llm_unavailable"] if any("offline" in n for n in offline_switch) else []
        if res.stop_reason not in ("answer", "fallback_to_rag"):
            flags.append(f"loop_stop:{res.stop_reason}")
        if res.dense_error:
            flags.append("embedder_unavailable")
        if res.unsupported_sentences:  # dropped by loop.agent.checked
            flags.append(f"unsupported_sentences:{res.unsupported_sentences}")
        brain = "loop-offline" if res.brain == "offline" else f"loop-{res.brain}"
        if res.fallback:
            return LoopResult(None, res.fallback_reason or "broad question", steps, tokens,
                              flags, res.dropped_citations)
        draft = AnswerDraft(res.answer, list(res.citations), res.found, brain, 0, [])
        return LoopResult(draft, None, steps, tokens, flags, res.dropped_citations)


class CacheAdapter:
    """``gateway.cache.AnswerCache`` behind the router's ``AnswerCache`` protocol."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache

    def peek(self, question: str, collection: str, mode: str,
             corpus_version: str) -> dict[str, Any] | None:
        """The near-cache payload (in process, no I/O) or ``None``; see ``AnswerCache.peek``."""
        peek = getattr(self.cache, "peek", None)
        entry = None if peek is None else peek(question, collection=collection, mode=mode,
                                               corpus_version=corpus_version)
        return None if entry is None else dict(entry.answer)

    async def get(self, question: str, collection: str, mode: str,
                  corpus_version: str) -> dict[str, Any] | None:
        """The cached payload or ``None``."""
        entry = await self.cache.get(question, collection=collection, mode=mode,
                                     corpus_version=corpus_version)
        return None if entry is None else dict(entry.answer)

    async def put(self, question: str, collection: str, mode: str, corpus_version: str,
                  payload: dict[str, Any]) -> None:
        """Store the payload with the documents its citations name."""
        doc_ids = [c.get("doc_id", "") for c in payload.get("citations", ())]
        await self.cache.put(question, payload, collection=collection, mode=mode,
                             corpus_version=corpus_version, found=bool(payload.get("found")),
                             doc_ids=[d for d in doc_ids if d])


class RetrieverSearch:
    """``loop.types.SearchBackend`` over the hybrid retriever (the LoopAgent's ``search`` tool)."""

    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever

    def search(self, query: str, collection: str, top_k: int,
               flt: SearchFilter | None = None) -> list[SearchHit]:
        """Hybrid hits for ``query`` (one per chunk of each merged item), at most ``top_k``."""
        return _to_hits(self.retriever.run(query, collection, top_k=top_k, flt=flt))[:top_k]
