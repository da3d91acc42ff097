"""What one request did while it runs: :class:`RouteTrace`, filled by the router's stages and the
conversation service through its methods, and serialised once, when the answer is ready, into
the route dict every reader knows (``POST /v1/query``'s ``route``, the stream's ``answer`` event,
the route log through :meth:`gateway.routing.RouteRecord.from_dict`, the eval harness).

The dict has the keys of DESIGN.md "Observe" (see :mod:`gateway.routing.record` for their
vocabulary) and, when they were set, ``cross_language`` / ``cross_language_llm`` (the LLM's
translation of a cross-language question), ``rewritten_question`` / ``rewrite`` /
``session`` (conversation), ``corpus_version``, ``retrieval_query``, ``resolution``,
``candidates``, ``plan`` (a question answered in parts) and ``conflict`` (cited passages
disagree), ``sufficiency`` and ``process`` (:mod:`gateway.routing.sufficiency`: steps, tool
calls by tool, rewrites, sub-questions, memory hits, tokens, sufficiency); ``latency_ms``,
``degraded`` and ``found`` close it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpus.types import Citation
from gateway.routing.conversation_trace import ConversationTrace
from gateway.routing.sufficiency import process_metrics, sufficiency

__all__ = ["RouteTrace"]


@dataclass(slots=True)
class RouteTrace(ConversationTrace):
    """One request's route record under construction (see the module docstring).

    Usage example::

        trace = RouteTrace.start("退货期限是几天？", "default", "auto")
        trace.decide("rag", "confident", signals=[])
        trace.flag("keyword_only")
        route = trace.to_dict()
    """

    question: str
    collection: str
    mode: str
    trace_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    ts: float = field(default_factory=time.time)
    cache_hit: bool = False
    confidence: float | None = None
    features: dict[str, Any] = field(default_factory=dict)
    decision: dict[str, Any] = field(default_factory=dict)
    escalated: bool = False
    fallback: dict[str, str] | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    timeouts: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    final_path: str = ""
    brain: str = ""
    flags: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dropped_citations: int = 0
    # --- set by some requests only (absent from the dict while None) ----------------------
    cross_language: dict[str, Any] | None = None
    cross_language_llm: dict[str, Any] | None = None
    rewritten_question: str | None = None
    rewrite: dict[str, Any] | None = None  # rewritten_question goes out with it
    session: dict[str, Any] | None = None
    corpus_version: str | None = None
    retrieval_query: str | None = None
    resolution: dict[str, Any] | None = None
    candidates: list[str] | None = None
    plan: dict[str, Any] | None = None  # a question answered in parts (gateway.routing.plan)
    conflict: dict[str, Any] | None = None  # cited passages disagree (gateway.routing.conflict)
    sufficiency: float | None = None  # gateway.routing.sufficiency, set when the answer is ready
    # --- closed by :meth:`close` ------------------------------------------------------------
    latency_ms: dict[str, float] = field(default_factory=dict)
    degraded: bool = False
    found: bool = False

    @classmethod
    def start(cls, question: str, collection: str, mode: str) -> RouteTrace:
        """An empty record for one question (a new trace id, the time now)."""
        return cls(question, collection, mode)

    # --- flags, errors, timeouts ----------------------------------------------------------
    def flag(self, *names: str) -> None:
        """Add flags not already present (order kept)."""
        self.flags.extend(n for n in dict.fromkeys(names) if n not in self.flags)

    def flag_all(self, names: Iterable[str]) -> None:
        """:meth:`flag` for every name of ``names``."""
        self.flag(*names)

    def error(self, message: str) -> None:
        """Record an error that did not stop the request."""
        self.errors.append(message)

    def timeout(self, stage: str, limit_s: float, request_deadline: bool) -> None:
        """Record that ``stage`` ran out of time (``limit_s``; cut by the request deadline?)."""
        self.timeouts.append({"stage": stage, "limit_s": limit_s,
                              "request_deadline": request_deadline})

    def last_timeout_was(self, stage: str) -> bool:
        """True when the latest timeout recorded is ``stage``'s."""
        return bool(self.timeouts) and self.timeouts[-1]["stage"] == stage

    def forget_timeouts(self, stage: str) -> None:
        """Drop the timeouts of ``stage`` (a slow cache or memory is not a degraded answer)."""
        self.timeouts = [t for t in self.timeouts if t["stage"] != stage]

    def store_unavailable(self, stage: str, exc: BaseException) -> None:
        """The chunk store failed in ``stage``: flag ``store_unavailable`` (once per failing
        stage) and the error."""
        self.flags.append("store_unavailable")
        self.error(f"{stage}: {exc}")

    def cache_unavailable(self, stage: str, exc: BaseException) -> None:
        """The answer cache failed in ``stage`` (a miss, never a degraded answer)."""
        self.flag("cache_unavailable")
        self.error(f"{stage}: {exc}")

    def cache_slow(self, stage: str) -> None:
        """When ``stage``'s was the latest timeout: drop it and flag ``cache_timeout`` (a slow
        cache is a miss, not a degraded answer)."""
        if self.last_timeout_was(stage):
            self.timeouts.pop()
            self.flags.append("cache_timeout")

    def llm_timed_out(self) -> None:
        """The grounded LLM answer was too slow (the extractive one follows)."""
        self.flags.append("llm_timeout")

    def loop_failed(self, exc: BaseException) -> None:
        """The LoopAgent raised (the request degrades to the RAG answer)."""
        self.flags.append("loop_error")
        self.error(f"loop: {type(exc).__name__}: {exc}")

    # --- decisions --------------------------------------------------------------------------
    def versioned(self, corpus_version: str | None) -> None:
        """The collection's corpus version (``""`` when unknown or the store is down)."""
        self.corpus_version = corpus_version or ""

    def querying(self, retrieval_query: str) -> None:
        """The text retrieval runs (the question with its history and date words)."""
        self.retrieval_query = retrieval_query

    def empty_collection(self, collection: str) -> None:
        """The collection holds no documents: a fixed "not found", no path ran."""
        self.final_path, self.brain = "empty_collection", "none"
        self.decide("none", f"collection {collection!r} holds no documents yet")

    def unresolved_reference(self, kind: str, phrase: str) -> None:
        """The question leans on an earlier turn there is none of: a fixed "not found", no
        path ran (flag ``unresolved_reference``; ``gateway.routing.reference``)."""
        self.final_path, self.brain = "unresolved_reference", "none"
        self.decide("none", f"{kind} reference {phrase!r}: no earlier turn to resolve it")
        self.flag("unresolved_reference")

    def rag_path(self) -> None:
        """The RAG path answers."""
        self.final_path = "rag"

    def escalate(self, auto: bool) -> None:
        """The LoopAgent runs (``escalated`` when an ``auto`` request was sent to it)."""
        self.escalated, self.final_path = auto, "loop"

    def rag_degraded(self) -> None:
        """The LoopAgent timed out or failed: the RAG answer already drafted is served."""
        self.final_path = "rag_degraded"

    def decide(self, route: str, reason: str, signals: list[str] | None = None) -> None:
        """The route chosen and why; ``signals`` (the question's) for rule decisions."""
        self.decision = {"route": route, "reason": reason}
        if signals is not None:
            self.decision["signals"] = list(signals)

    def served_from_cache(self, brain: str, reason: str) -> None:
        """The answer cache answered."""
        self.cache_hit, self.final_path, self.brain = True, "cache", brain
        self.decide("cache", reason)

    def retrieved(self, confidence: float | None, features: dict[str, Any],
                  candidates: list[str], resolution: dict[str, Any] | None) -> None:
        """What the first retrieval found (its confidence, features, candidate chunk ids and
        the documents it was resolved to, when sure)."""
        self.confidence, self.features = confidence, features
        if resolution is not None:
            self.resolution = resolution
        self.candidates = candidates

    def looped(self, steps: list[dict[str, Any]], tokens: int, flags: Iterable[str],
               dropped_citations: int) -> None:
        """The LoopAgent's run: its steps, tokens, flags and dropped citations."""
        self.steps = steps
        self.tokens += tokens
        self.flag_all(flags)
        self.dropped_citations = dropped_citations

    def fell_back(self, reason: str) -> None:
        """The LoopAgent handed the question back to RAG."""
        self.fallback = {"reason": reason}
        self.final_path = "fallback_rag"

    def answered(self, brain: str, tokens: int, flags: Iterable[str]) -> None:
        """Which brain wrote the answer, its tokens and flags."""
        self.brain = brain
        self.tokens += tokens
        self.flag_all(flags)

    def degrade(self) -> None:
        """No path answered in time: a flagged "not found"."""
        self.final_path = self.final_path or "degraded"
        self.brain = self.brain or "none"
        self.flag("degraded")

    def conflicted(self, conflict: dict[str, Any] | None) -> None:
        """Cited passages disagree (``gateway.routing.conflict``; ``None``: they do not)."""
        self.conflict = conflict

    # --- a question answered in parts (gateway.routing.plan) ---------------------------------
    def absorb_part(self, index: int, part: RouteTrace) -> None:
        """Add part ``index`` (0-based)'s tokens, flags (not ``degraded``), errors, timeouts
        (stage ``part<N>:<stage>``), candidates and corpus version to this record."""
        self.tokens += part.tokens
        self.flag_all(f for f in part.flags if f != "degraded")
        self.errors.extend(part.errors)
        self.timeouts.extend({**t, "stage": f"part{index + 1}:{t['stage']}"}
                             for t in part.timeouts)
        candidates = self.candidates if self.candidates is not None else []
        candidates.extend(c for c in (part.candidates or []) if c not in candidates)
        self.candidates = candidates
        if self.corpus_version is None and part.corpus_version:
            self.corpus_version = part.corpus_version

    def planned(self, kind: str, rule: str, parts: list[dict[str, Any]]) -> None:
        """The question was answered in ``parts`` (``final_path`` / ``brain`` ``plan``);
        ``partial_answer`` when some parts were found and others not."""
        self.final_path = self.brain = "plan"
        self.plan = {"kind": kind, "rule": rule, "parts": parts}
        if self.candidates is None:
            self.candidates = []
        if any(not p["found"] for p in parts) and any(p["found"] for p in parts):
            self.flag("partial_answer")

    # --- the end ----------------------------------------------------------------------------
    def assess(self, found: bool, citations: Sequence[Citation],
               parts: list[dict[str, Any]] | None) -> None:
        """The answer's sufficiency (:func:`gateway.routing.sufficiency.sufficiency`) for the
        question as routed (rewritten, else asked)."""
        self.sufficiency = sufficiency(self.rewritten_question or self.question, found,
                                       citations, parts)

    def close(self, latency_ms: dict[str, float], *, found: bool, cached: bool) -> None:
        """Latencies, ``found``; ``degraded`` when a timeout or a LoopAgent error cut the
        answer (never for a cached one)."""
        self.latency_ms = latency_ms
        cut = bool(self.timeouts) or "loop_error" in self.flags
        self.degraded = cut and not cached
        if self.degraded:
            self.flag("degraded")
        self.found = found

    def to_dict(self) -> dict[str, Any]:
        """The route dict (see the module docstring): the one serialisation of the record."""
        d: dict[str, Any] = {
            "trace_id": self.trace_id, "ts": self.ts, "question": self.question,
            "collection": self.collection, "mode": self.mode, "cache_hit": self.cache_hit,
            "confidence": self.confidence, "features": self.features,
            "decision": self.decision, "escalated": self.escalated, "fallback": self.fallback,
            "steps": self.steps, "timeouts": self.timeouts, "tokens": self.tokens,
            "final_path": self.final_path, "brain": self.brain, "flags": self.flags,
            "errors": self.errors, "dropped_citations": self.dropped_citations,
        }
        if self.cross_language is not None:
            d["cross_language"] = self.cross_language
        if self.rewrite is not None:
            d["rewritten_question"] = self.rewritten_question
            d["rewrite"] = self.rewrite
        for key in ("cross_language_llm", "session", "corpus_version", "retrieval_query",
                    "resolution", "candidates", "plan", "conflict"):
            value = getattr(self, key)
            if value is not None:
                d[key] = value
        d["sufficiency"] = self.sufficiency
        d["process"] = process_metrics(d)
        d.update(latency_ms=self.latency_ms, degraded=self.degraded, found=self.found)
        return d
