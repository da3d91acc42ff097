"""What one LoopAgent run emits and returns: :class:`StepEvent` (one step, as it happens:
gateway streaming, route record) and :class:`LoopResult` (the outcome), with the
:data:`StopReason` vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from corpus.types import Citation

__all__ = ["LoopResult", "StepEvent", "StopReason"]

StopReason = Literal[
    "answer", "fallback_to_rag", "max_loops", "token_budget", "deadline", "repeated_calls",
    "llm_error", "no_action",
]


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
    :param out_of_scope: why the answer fell outside what the question restricts it to
        (``not_on_asked_page:<n>``, ``asks_visual:<kind>``: ``corpus.question_scope``); the
        answer is then "not found".
    :param computed: the answer is a change or ratio computed from statement rows the loop read
        (``corpus.derived``); its citations are those rows.
    :param support: the first citation's answer-support features
        (``corpus.answer_support.support_features``; empty when nothing was cited).
    :param support_p: their calibrated probability of holding what was asked (``None`` without
        a support model); below the model's threshold the answer became "not found"
        (``unsupported`` True).
    :param confirmed: the model of the pick protocol (``loop.policies.read_pick_step``) chose
        this answer's line and copied from it a value the line holds: the model has judged that
        the line answers, so the answer-support model's refusal does not apply to it (its
        probability is still recorded).
    :param fast_path_refused: the answer's support was weak and the caller's fast path refused
        the question too (``loop.second_opinion``): the answer became "not found".
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
    out_of_scope: list[str] = field(default_factory=list)
    related: list[Citation] = field(default_factory=list)
    computed: bool = False
    support: dict[str, float] = field(default_factory=dict)
    support_p: float | None = None
    unsupported: bool = False
    confirmed: bool = False
    fast_path_refused: bool = False

    @property
    def fallback(self) -> bool:
        """True when the loop handed the question back to the RAG path."""
        return self.stop_reason == "fallback_to_rag"

    @property
    def tokens(self) -> int:
        """Prompt + completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def replace_answer(self, text: str, citations: list[Citation], *,
                       computed: bool = True) -> None:
        """Answer with ``text`` cited by ``citations`` (a figure computed from statement rows, a
        date, a count, the registered securities): found; the former citations and related
        passages not among ``citations`` become ``related``."""
        self.related = [c for c in [*self.citations, *self.related] if c not in citations]
        self.answer, self.citations, self.found, self.computed = text, citations, True, computed

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
            "out_of_scope": list(self.out_of_scope),
            "related": [c.to_dict() for c in self.related],
            "support": dict(self.support), "support_p": self.support_p,
            "unsupported": self.unsupported, "confirmed": self.confirmed,
            "fast_path_refused": self.fast_path_refused,
            "steps": [s.to_dict() for s in self.steps],
        }
