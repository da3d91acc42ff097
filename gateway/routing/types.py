"""Types the router speaks: its input and output, and the protocols of the paths it drives.

- :class:`QueryInput` / :class:`QueryResult` – one question in, one answer out (the API's
  ``QueryRequest`` / ``QueryResponse`` map onto these).
- :class:`RagResult` – what retrieval returned: hits, confidence in [0, 1] with its features,
  flags (``keyword_only``, ``embed_timeout`` …).
- :class:`AnswerDraft` – an answer written by one path, with its verified citations and which
  ``brain`` wrote it (``extractive``, ``llm``, ``loop-offline``, ``loop-llm``).
- :class:`LoopResult` – the LoopAgent's outcome: a draft, or ``fallback_reason`` when it handed
  the question back to RAG; its steps (events) and tokens.
- Protocols :class:`RagBackend`, :class:`LoopBackend`, :class:`AnswerCache`,
  :class:`RouteSink`, implemented in ``gateway.engines`` over the real components, and
  :class:`ConversationStage` (session memory, ``gateway.conversation.ConversationService``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from corpus.fiscal_calendar import asked_date
from corpus.types import Citation, SearchFilter, SearchHit
from gateway.routing.followup import is_followup
from gateway.routing.trace import RouteTrace

__all__ = [
    "QUESTION_MAX_CHARS",
    "AnswerCache",
    "AnswerDraft",
    "ConversationStage",
    "ConversationTurn",
    "EventSink",
    "LoopBackend",
    "LoopResult",
    "QueryInput",
    "QueryResult",
    "RagBackend",
    "RagResult",
    "RouteSink",
]

#: Most characters of one question (and of one history turn) on every entry point: the HTTP
#: API answers 400 above it, ``loopgate ask`` exits 2 (a break-it trial: the CLI answered a
#: 5,000-character question the API refused).
QUESTION_MAX_CHARS = 4000

EventSink = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class QueryInput:
    """One question: ``mode`` auto|rag|loop; ``history`` previous turns, oldest first
    (``{"role", "content"}``); ``filters`` restrict retrieval; ``use_cache`` false skips the cache;
    ``current_date`` (``YYYY-MM-DD``) is the date the LoopAgent's LLM is told ("today"), for
    questions that assume one; ``session_id`` names a conversation whose memory rewrites the
    question (``gateway.conversation``), scoped to ``caller`` (a hash of the API key);
    ``expect_previous`` (derived sessions) is the previous user message the memory must end
    with, else the memory is not this conversation's and starts afresh."""

    question: str
    collection: str
    mode: Literal["auto", "rag", "loop"] = "auto"
    filters: SearchFilter | None = None
    history: tuple[dict[str, str], ...] = ()
    use_cache: bool = True
    current_date: str | None = None
    session_id: str | None = None
    caller: str = ""
    expect_previous: str | None = None

    def cacheable(self) -> bool:
        """Whether the answer cache may serve or store this request: not when the caller turned
        it off, nor when filters restrict the documents (the cache key does not carry filters,
        so a filtered question must never be answered from, or leave, an unfiltered entry);
        likewise a question asked with a ``current_date``, whose answer may depend on it, and a
        follow-up asked with a history that was not rewritten into a standalone question ("and
        the year before?": the key does not carry the history, so a new-user trial got another
        conversation's cached answer, :func:`gateway.routing.followup.is_followup`); nor a
        question asking a fiscal period's date relative to today (``corpus.fiscal_calendar``:
        its answer changes with the day, the key does not carry it)."""
        return (self.use_cache and self.current_date is None
                and (self.filters is None or self.filters.is_empty())
                and not (self.history and is_followup(self.question))
                and asked_date(self.question) is None)


@dataclass(slots=True)
class RagResult:
    """Retrieval output: ``hits`` best first, ``confidence`` in [0, 1] (``None`` = not scored);
    ``raw``: the RAG path's own result (``rag.types.Retrieval``; ``None`` from other backends);
    ``resolved``: the documents document resolution was sure the question names
    (``rag.resolve``), as a filter, else ``None`` (the LoopAgent reads inside them)."""

    hits: list[SearchHit]
    confidence: float | None
    features: dict[str, Any] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    raw: Any = None
    resolved: SearchFilter | None = None


@dataclass(slots=True)
class AnswerDraft:
    """An answer from one path; ``found`` false = explicit "not found"."""

    answer: str
    citations: list[Citation]
    found: bool
    brain: str
    tokens: int = 0
    flags: list[str] = field(default_factory=list)
    related: list[Citation] = field(default_factory=list)
    #: cited passages disagree (``gateway.routing.conflict.check_draft``), else ``None``
    conflict: dict[str, Any] | None = None


@dataclass(slots=True)
class LoopResult:
    """LoopAgent outcome: ``draft`` when it answered, ``fallback_reason`` when it handed back."""

    draft: AnswerDraft | None
    fallback_reason: str | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    tokens: int = 0
    flags: list[str] = field(default_factory=list)
    dropped_citations: int = 0


@dataclass(slots=True)
class QueryResult:
    """The router's answer (DESIGN.md ``Answer``): answer, citations, found, route, cached;
    ``parts`` for a question answered in parts (``gateway.routing.plan``: ``[{"question",
    "answer", "found", "citations": [indices into citations]}]``), ``conflict`` when cited
    passages disagree (``gateway.routing.conflict``: ``{"preferred", "values": [{"value",
    "path", "section", "page", "date", "citation"}], "why"}``)."""

    answer: str
    citations: list[Citation]
    found: bool
    route: dict[str, Any]
    cached: bool = False
    payload: dict[str, Any] | None = None
    related: list[Citation] = field(default_factory=list)
    parts: list[dict[str, Any]] | None = None
    conflict: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form without the route record (what the answer cache stores)."""
        if self.payload is not None:
            return self.payload
        d: dict[str, Any] = {
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "related": [c.to_dict() for c in self.related],
            "found": self.found,
        }
        if self.parts is not None:
            d["parts"] = self.parts
        if self.conflict is not None:
            d["conflict"] = self.conflict
        return d

    @classmethod
    def from_cached(cls, data: dict[str, Any]) -> QueryResult:
        """Rebuild a result from a cached :meth:`to_dict` payload (``cached=True``)."""
        cites = [_citation(c) for c in data.get("citations") or ()]
        related = [_citation(c) for c in data.get("related") or ()]
        answer, found = str(data.get("answer", "")), bool(data.get("found"))
        payload: dict[str, Any] = {"answer": answer, "citations": list(data.get("citations") or ()),
                                   "related": list(data.get("related") or ()), "found": found}
        extra = {k: data[k] for k in ("parts", "conflict") if data.get(k) is not None}
        payload.update(extra)
        return cls(answer, cites, found, {}, cached=True, payload=payload, related=related,
                   **extra)


def _citation(data: dict[str, Any]) -> Citation:
    """A :class:`Citation` from its ``to_dict`` form (unknown keys ignored)."""
    c = dict(data)
    c["section_path"] = tuple(c.get("section_path") or ())
    c["lines"] = tuple(c.get("lines") or (0, 0))
    if c.get("bbox") is not None:
        c["bbox"] = tuple(c["bbox"])
    names = Citation.__dataclass_fields__.keys()
    return Citation(**{k: v for k, v in c.items() if k in names})


class RagBackend(Protocol):
    """The RAG fast path as the router needs it."""

    async def retrieve(
        self, collection: str, query: str, *, top_k: int, flt: SearchFilter | None
    ) -> RagResult:
        """Hybrid retrieval; raises ``corpus.errors.StoreError`` when the store is down."""

    async def answer(
        self, question: str, retrieval: RagResult, *, broad: bool, allow_llm: bool = True,
        current_date: str | None = None,
    ) -> AnswerDraft:
        """Extractive answer, or one grounded LLM call over the hits (citations verified);
        ``allow_llm=False`` forces the extractive answer. ``current_date`` (``YYYY-MM-DD``;
        ``None``: today) is the day a fiscal period asked relative to today is counted
        from."""


class LoopBackend(Protocol):
    """The LoopAgent as the router needs it."""

    async def run(
        self,
        collection: str,
        question: str,
        *,
        seeds: Sequence[SearchHit],
        history: Sequence[dict[str, str]],
        on_event: EventSink | None,
        flt: SearchFilter | None = None,
        current_date: str | None = None,
        search_query: str | None = None,
        required: Sequence[str] = (),
        second_opinion: Callable[[], Awaitable[bool]] | None = None,
    ) -> LoopResult:
        """Run the agent seeded with the RAG candidates; ``on_event`` gets each step; ``flt``
        restricts every search of the agent to the caller's documents; ``current_date``
        (``YYYY-MM-DD``) is told to the LLM as today's date; ``search_query`` is the text the
        RAG retrieval searched (``rules.search_query``), the offline policy's first search;
        ``second_opinion`` returns True when the RAG path refuses the question (asked by the
        agent for a weakly supported answer: ``loop.second_opinion``)."""


class AnswerCache(Protocol):
    """Answer cache keyed by normalised question + collection + mode + corpus version."""

    async def get(
        self, question: str, collection: str, mode: str, corpus_version: str
    ) -> dict[str, Any] | None:
        """The cached payload or ``None``."""

    async def put(
        self, question: str, collection: str, mode: str, corpus_version: str,
        payload: dict[str, Any],
    ) -> None:
        """Store ``payload`` (``QueryResult.to_dict()`` + ``brain``)."""


class RouteSink(Protocol):
    """Receives each finished route record (route log and metrics). A sink that also has a
    synchronous ``record_later(record)`` (:class:`gateway.observe.RouteRecorder`) is handed the
    record that way: queued, recorded after the reply."""

    async def record(self, record: dict[str, Any]) -> Any:
        """Append ``record`` (the result is ignored); must not raise for a full or slow log."""


class ConversationTurn(Protocol):
    """What :meth:`ConversationStage.begin` returns: the question to route (``query``) or an
    answer the session's memory already holds (``reuse``)."""

    @property
    def query(self) -> QueryInput:
        """The (possibly rewritten) question to route."""

    @property
    def reuse(self) -> QueryResult | None:
        """An answer from the session's fact cards, or ``None``."""

    @property
    def previous(self) -> str | None:
        """The earlier turn's standalone question the rewrite read (session memory or
        ``history``), or ``None`` when there is none."""


class ConversationStage(Protocol):
    """Session memory and follow-up rewriting around one routed question."""

    async def begin(self, q: QueryInput, record: RouteTrace) -> Any:
        """The turn (a :class:`ConversationTurn`) or ``None`` when ``q`` has no session. A
        stage may also have ``idle_for(q) -> bool``: True when ``begin`` would return ``None``
        and record nothing, known without I/O (the router then does not run the stage)."""

    async def finish(self, turn: Any, result: QueryResult, record: RouteTrace) -> None:
        """Record the answered turn in the session's memory."""
