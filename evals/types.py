"""What the harness asks of the product: the :class:`Answerer` protocol and its
:class:`AnswerRecord` result (one per question, whatever path answered).

Adapters for the three modes live in ``evals.adapters`` (rag → ``rag`` pipeline, loop →
LoopAgent, auto → ``gateway.routing.Router``); tests may pass any object with the same
``answer`` method.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from evals.questions import Question

__all__ = ["AnswerRecord", "Answerer", "EvalMode", "Location"]

EvalMode = Literal["rag", "loop", "auto"]


@dataclass(frozen=True, slots=True)
class Location:
    """Where a citation or retrieved candidate points: document path (as stored at ingest),
    1-based physical pages, section path; ``chunk_id``/``score``/``quote`` when known."""

    path: str
    page_start: int = 1
    page_end: int = 0
    section_path: tuple[str, ...] = ()
    chunk_id: str = ""
    score: float | None = None
    quote: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (``section_path`` as a list)."""
        data = asdict(self)
        data["section_path"] = list(self.section_path)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Location:
        """Rebuild from :meth:`to_dict` output, or from a Citation/Chunk dict (``page`` is read
        as ``page_start``)."""
        sp = data.get("section_path") or ()
        if isinstance(sp, str):
            sp = tuple(s for s in sp.split(" > ") if s)
        start = int(data.get("page_start") or data.get("page") or 1)
        return cls(
            path=str(data.get("path") or ""),
            page_start=start,
            page_end=int(data.get("page_end") or start),
            section_path=tuple(str(s) for s in sp),
            chunk_id=str(data.get("chunk_id") or ""),
            score=None if data.get("score") is None else float(data["score"]),
            quote=str(data.get("quote") or ""),
        )


@dataclass(slots=True)
class AnswerRecord:
    """One answered question, as the harness scores it.

    :param answer: the answer text shown to the user.
    :param found: ``False`` = explicit "not found" (a refusal); ``None`` = the path did not say.
    :param citations: verified citations only (unverifiable ones are dropped and counted in
        ``unverified_citations``).
    :param candidates: retrieved candidates in rank order (RAG top-k, or the LoopAgent's search
        results in the order first seen); scored as evidence hit@k.
    :param confidence: RAG calibrated confidence in [0, 1], or ``None`` when none exists.
    :param route: final path: ``rag``, ``loop``, ``fallback_to_rag``, ``cache`` or ``error``.
    :param escalated: True when the router sent the question to the LoopAgent.
    :param brain: what produced the answer (``extractive``, ``offline``, ``llm:<model>``).
    :param llm_calls: LLM requests made; ``tokens`` prompt + completion tokens.
    :param latency_ms: wall-clock milliseconds (the harness measures it when 0).
    :param route_record: the gateway's route record (or the path's own trace) as a dict.
    :param error: the exception text when answering failed (the question is scored as missed).
    """

    answer: str = ""
    found: bool | None = None
    citations: list[Location] = field(default_factory=list)
    candidates: list[Location] = field(default_factory=list)
    confidence: float | None = None
    route: str = ""
    escalated: bool = False
    brain: str = ""
    unverified_citations: int = 0
    llm_calls: int = 0
    tokens: int = 0
    latency_ms: float = 0.0
    route_record: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (one ``results.jsonl`` field)."""
        data = asdict(self)
        data["citations"] = [c.to_dict() for c in self.citations]
        data["candidates"] = [c.to_dict() for c in self.candidates]
        return data


@runtime_checkable
class Answerer(Protocol):
    """Answers one evaluation question in one mode.

    ``history`` holds previous turns as ``{"role": "user"|"assistant", "content": str}`` (the
    question's ``context``); ``current_date`` is ``YYYY-MM-DD`` from an
    ``assumes_current_date:`` tag. Must not raise for ordinary failures: return a record with
    ``error`` set (the harness also catches exceptions and records them).
    """

    mode: str

    async def answer(
        self,
        question: Question,
        collection: str,
        *,
        history: list[dict[str, str]],
        current_date: str | None,
    ) -> AnswerRecord:
        """Answer ``question`` from ``collection``."""
