"""Contracts of the deep-read path: protocols the gateway fills in, configs, results, events.

- :class:`SearchBackend` – what the ``search`` tool calls (the gateway passes the RAG path's
  hybrid retriever, or :class:`loop.tools.StoreKeywordSearch` over the chunk store).
- :class:`KeyTermExtractor` – key terms of a question (``corpus.tokenizer.Tokenizer``).
- :class:`DocumentDirectory` – the documents of a collection (the catalogue), for the first
  prompt's directory.
- :class:`LoopConfig` / :class:`LLMConfig` – explicit config objects (no environment reads).
- :class:`ToolCall`, :class:`ToolResult`, :class:`StepEvent`, :class:`LoopResult`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import SecretStr

from corpus.types import Citation, DocumentInfo, SearchFilter, SearchHit

__all__ = [
    "UnitEmbedder",
    "DocumentDirectory",
    "KeyTermExtractor",
    "LLMConfig",
    "LLMProtocolName",
    "LoopConfig",
    "LoopResult",
    "MAX_LOOPS_LIMIT",
    "NOT_FOUND",
    "SearchBackend",
    "StepEvent",
    "StopReason",
    "ToolCall",
    "ToolResult",
]

MAX_LOOPS_LIMIT = 10
NOT_FOUND = "Not found in the documents."

LLMProtocolName = Literal["auto", "tools", "json", "read", "pick", "json_actions"]
StopReason = Literal[
    "answer", "fallback_to_rag", "max_loops", "token_budget", "deadline", "repeated_calls",
    "llm_error", "no_action",
]


@runtime_checkable
class UnitEmbedder(Protocol):
    """A dense text embedder the offline policy ranks evidence units with (the gateway passes
    the RAG path's ``rag.embedder.FastEmbedEmbedder``: e5 ``query:``/``passage:`` prefixes,
    unit-length vectors, so a dot product is the cosine)."""

    def embed_query(self, text: str) -> list[float]:
        """One question → one unit-length vector."""

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Passages → unit-length vectors, in input order."""


@runtime_checkable
class SearchBackend(Protocol):
    """Search over one collection; returns at most ``top_k`` hits, best first.

    Sync (it runs in a worker thread under the tool timeout). Implementations: the RAG path's
    hybrid retriever (gateway adapter), :class:`loop.tools.StoreKeywordSearch`.
    """

    def search(
        self, query: str, collection: str, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Hits for ``query`` in ``collection`` (may raise; the tool turns errors into hints)."""


@runtime_checkable
class KeyTermExtractor(Protocol):
    """Key terms of a text (``corpus.tokenizer.Tokenizer().key_terms``): words, numbers, codes."""

    def key_terms(self, text: str) -> list[str]:
        """Distinct key terms, most specific first (stop words removed)."""


@runtime_checkable
class DocumentDirectory(Protocol):
    """The documents of a collection (the catalogue)."""

    def list_documents(self, collection: str) -> list[DocumentInfo]:
        """Every document of ``collection``."""


@dataclass(frozen=True, slots=True)
class LoopConfig:
    """Budgets and sizes of one loop (DESIGN.md "Key contracts").

    :param max_loops: policy turns (LLM calls) per question, 1..10 (default 6).
    :param tool_timeout_s: per tool call, seconds (default 5).
    :param token_budget: prompt + completion tokens per question; 0 = unlimited.
    :param deadline_s: wall-clock seconds per question; 0 = unlimited.
    :param max_duplicates: refused identical calls before the hard stop (2 → the 3rd repeat
        of a call stops the loop; case 22).
    :param search_top_k: candidates per search (at most 5).
    :param read_max_chars: a longer chunk is shown as head + tail.
    :param snippet_chars: characters of a search snippet.
    :param directory_max_docs: documents listed in the first prompt's directory.
    :param min_coverage: share (0..1) of the question's key-term weight an evidence unit must
        cover to be cited by the offline policy (and a budget stop); the offline policy answers
        when its best-ranked unit covers it, or another unit covers it by a margin (0.15),
        else says not found.
    :param directory_scan: the offline policy scans the directory of the top candidate
        documents (``scan`` tool) and reads the sections it picks after the RAG candidates.
    :param scan_docs: candidate documents one ``scan`` lists (1..10); ``scan_entries``: the
        directory entries it shows, best match first (1..40).
    """

    max_loops: int = 6
    tool_timeout_s: float = 5.0
    token_budget: int = 24_000
    deadline_s: float = 120.0
    max_duplicates: int = 2
    search_top_k: int = 5
    read_max_chars: int = 1_800
    snippet_chars: int = 160
    directory_max_docs: int = 20
    min_coverage: float = 0.4
    directory_scan: bool = True
    scan_docs: int = 3
    scan_entries: int = 12

    def __post_init__(self) -> None:
        if not 1 <= self.max_loops <= MAX_LOOPS_LIMIT:
            raise ValueError(f"max_loops must be 1..{MAX_LOOPS_LIMIT}, got {self.max_loops}")
        if not 1 <= self.search_top_k <= 5:
            raise ValueError(f"search_top_k must be 1..5, got {self.search_top_k}")
        if self.tool_timeout_s <= 0 or self.max_duplicates < 1:
            raise ValueError("tool_timeout_s must be > 0 and max_duplicates >= 1")
        if not (1 <= self.scan_docs <= 10 and 1 <= self.scan_entries <= 40):
            raise ValueError("scan_docs must be 1..10 and scan_entries 1..40")


@dataclass(frozen=True, slots=True)
class LLMConfig:
    """An OpenAI-compatible chat-completions endpoint.

    :param base_url: e.g. ``http://127.0.0.1:8080/v1`` (``/chat/completions`` is appended).
    :param model: model name sent in each request.
    :param api_key: bearer token (``None`` for local servers).
    :param timeout_s: per request, seconds.
    :param max_retries: extra attempts on 429 / 5xx / timeouts (exponential back-off).
    :param backoff_s: first back-off wait, seconds (doubles, capped at 8 s; ``Retry-After``
        wins when the server sends one and it is shorter than 30 s).
    :param protocol: ``tools`` (native tool_calls), ``json`` / ``read`` (the line-reading
        protocol, ``loop.policies.llm_read``: JSON-schema steps over numbered blocks),
        ``pick`` (the same protocol whose first step has the model choose the line that answers
        among the offline policy's best lines, ``loop.policies.read_pick``; blocks are read
        only when the offline policy found nothing; what ``auto`` picks when the server does
        not call tools natively),
        ``json_actions`` (free-form JSON tool actions, ``loop.policies.llm_json``), or ``auto``
        (probe the server once and remember: native tools, else the line-reading protocol).
    :param json_dialect: ``json_schema`` (llama.cpp server, OpenAI), ``json_object`` (with a
        ``schema`` key: llama-cpp-python) or ``auto`` (try the first, fall back on HTTP 4xx).
    :param tool_results_as_user: send tool results back as user turns (needed by some local
        servers' chat templates) instead of ``role: tool`` messages.
    """

    base_url: str
    model: str = "local"
    api_key: SecretStr | None = None
    timeout_s: float = 60.0
    max_retries: int = 2
    backoff_s: float = 0.5
    protocol: LLMProtocolName = "auto"
    json_dialect: Literal["auto", "json_schema", "json_object"] = "auto"
    temperature: float = 0.0
    max_tokens: int = 512
    tool_results_as_user: bool = False


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call proposed by a policy; ``call_id`` echoes the server's id (native tools)."""

    name: str
    arguments: dict[str, Any]
    call_id: str = ""


@dataclass(slots=True)
class ToolResult:
    """What a tool returned: ``content`` (the text the model sees) and structured ``data``.

    :param status: ``ok``, ``empty``, ``timeout``, ``error``, ``refused`` (duplicate / invalid).
    :param hint: advice appended to ``content`` for the model (timeouts, bad ids, duplicates).
    :param chunk_ids: chunks this call showed (search candidates or the chunk read).
    """

    content: str
    data: Any = None
    status: str = "ok"
    hint: str = ""
    chunk_ids: tuple[str, ...] = ()

    def text(self) -> str:
        """``content`` plus the hint, as sent back to the model."""
        return f"{self.content}\n[hint] {self.hint}" if self.hint else self.content


@dataclass(frozen=True, slots=True)
class StepEvent:
    """One step of the loop, emitted as it happens (gateway streaming, route record).

    :param step: 1-based step number; ``turn`` the policy turn it belongs to.
    :param kind: ``tool`` (a tool call), ``llm`` (one chat-completions call), ``stop``.
    :param tool: tool name (``""`` for llm / stop events).
    :param arguments: tool arguments as proposed.
    :param status: ``ok``/``empty``/``timeout``/``error``/``refused`` for tools; stop reason.
    :param result_chars: size of the result text sent back.
    :param elapsed_ms: time the step took, milliseconds.
    :param tokens: prompt + completion tokens (llm events).
    :param note: hint or reason.
    """

    step: int
    turn: int
    kind: str
    tool: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"
    result_chars: int = 0
    elapsed_ms: float = 0.0
    tokens: int = 0
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(slots=True)
class LoopResult:
    """The outcome of one LoopAgent run.

    :param answer: answer text (``NOT_FOUND`` text when nothing verified).
    :param found: ``False`` for an explicit or enforced "not found".
    :param citations: verified citations only (quote verbatim in a chunk read in this loop).
    :param dropped_citations: citations refused (unread chunk, unknown id, quote not in chunk).
    :param stop_reason: why the loop ended (``answer``, ``fallback_to_rag``, a budget …).
    :param fallback_reason: the model's reason when it handed the question back to RAG.
    :param brain: ``offline`` or ``llm:<model>:<protocol>``.
    :param steps: every event, in order.
    :param llm_calls, prompt_tokens, completion_tokens: LLM usage from ``usage``.
    :param tool_calls: tools executed (refused duplicates not counted).
    :param elapsed_ms: wall-clock time of the run.
    :param read_chunk_ids: chunks read in this loop, in order.
    :param evidence_answer: ``True`` when a budget stop was answered from the evidence read so far.
    :param dense_error: why the offline policy's embedder failed (its answer was then ranked by
        key terms only); ``""`` when it did not.
    :param guard: line-reading protocol: why its answer or the offline one was returned.
    :param invalid_actions: LLM replies that could not be parsed (each re-asked once).
    :param unsupported_sentences: sentences of the LLM-written answer dropped because the
        cited quotes do not hold their numbers, names or URLs (``corpus.answer_check``).
    :param related: other verified evidence, best first, shown apart from the answer (an
        offline answer is its best unit alone; the runner-up units it cited go here).
    :param absent_terms: the question's specific terms (codes, years) the answer's
        document lacks (``corpus.presence``): the answer was turned into "not found".
    :param computed: the answer is a change or ratio computed from statement rows the loop read
        (``corpus.derived``); its citations are those rows.
    :param support: the first citation's answer-support features
        (``corpus.answer_support.support_features``; empty when nothing was cited).
    :param support_p: their calibrated probability of holding what was asked (``None`` without
        a support model); below the model's threshold the answer became "not found"
        (``unsupported`` True).
    """

    answer: str
    found: bool
    citations: list[Citation]
    stop_reason: StopReason
    brain: str
    dropped_citations: int = 0
    fallback_reason: str = ""
    steps: list[StepEvent] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: int = 0
    elapsed_ms: float = 0.0
    read_chunk_ids: list[str] = field(default_factory=list)
    evidence_answer: bool = False
    dense_error: str = ""
    guard: str = ""
    invalid_actions: int = 0
    unsupported_sentences: int = 0
    absent_terms: list[str] = field(default_factory=list)
    related: list[Citation] = field(default_factory=list)
    computed: bool = False
    support: dict[str, float] = field(default_factory=dict)
    support_p: float | None = None
    unsupported: bool = False

    @property
    def fallback(self) -> bool:
        """True when the loop handed the question back to the RAG path."""
        return self.stop_reason == "fallback_to_rag"

    @property
    def tokens(self) -> int:
        """Prompt + completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (API responses, route records)."""
        return {
            "answer": self.answer, "found": self.found,
            "citations": [c.to_dict() for c in self.citations],
            "dropped_citations": self.dropped_citations, "stop_reason": self.stop_reason,
            "fallback": self.fallback, "fallback_reason": self.fallback_reason,
            "brain": self.brain, "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "tool_calls": self.tool_calls, "elapsed_ms": round(self.elapsed_ms, 1),
            "read_chunk_ids": list(self.read_chunk_ids), "evidence_answer": self.evidence_answer,
            "guard": self.guard, "invalid_actions": self.invalid_actions,
            "unsupported_sentences": self.unsupported_sentences,
            "absent_terms": list(self.absent_terms), "computed": self.computed,
            "related": [c.to_dict() for c in self.related],
            "support": dict(self.support), "support_p": self.support_p,
            "unsupported": self.unsupported,
            "steps": [s.to_dict() for s in self.steps],
        }

