"""What the harness asks of the product: the :class:`Question` it asks (one line of a question
file, ``evals.questions``), the :class:`Answerer` protocol and its :class:`AnswerRecord` result
(one per question, whatever path answered).

Adapters for the three modes live in ``evals.adapters`` (rag → ``rag`` pipeline, loop →
LoopAgent, auto → ``gateway.routing.Router``); tests may pass any object with the same
``answer`` method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from corpus.types import Chunk, Citation, ListFieldsRecord

__all__ = ["AnswerRecord", "Answerer", "EvalMode", "GoldPage", "Location", "Question",
           "QuestionFormatError", "chunk_location", "citation_location"]

EvalMode = Literal["rag", "loop", "auto"]


class QuestionFormatError(ValueError):
    """A question file or record does not follow the README format (``where`` = file:line of
    the first bad record; ``problems``: one ``file:line: message`` per bad record)."""

    def __init__(self, message: str, where: str = "",
                 problems: Sequence[str] = ()) -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.problems = tuple(problems) or (str(self),)


@dataclass(frozen=True, slots=True)
class GoldPage:
    """One gold location on a paginated document: ``doc`` (relative to the eval folder) and
    1-based physical ``page``."""

    doc: str
    page: int


@dataclass(frozen=True, slots=True)
class Question:
    """One evaluation question (fields of the README table, plus ``context``/``evidence_pages``).

    :param id: ``<dataset>:<original id>``.
    :param question: the question text as asked.
    :param answer: gold answer (always a string; numbers are kept as written).
    :param doc: gold document relative to the eval folder
        (``en/docs/financebench/3M_2018_10K.pdf``);
        ``""`` when the dataset names none.
    :param page: 1-based gold page for PDFs, else ``None``.
    :param pages: every gold page (1-based) when known, else ``()``.
    :param section: Markdown heading path (GitLab, ``" > "``-joined) or paragraph id (DRCD).
    :param source_dataset: FinanceBench, MMLongBench-Doc, DRCD, … (the per-dataset key).
    :param lang: ``en``, ``zh-Hans`` or ``zh-Hant``.
    :param evidence: original evidence (strings or dicts, as the dataset has it).
    :param answer_aliases: other accepted answers.
    :param tags: ``unanswerable``, ``answer_needs_image``, ``assumes_current_date:YYYY-MM-DD`` …
    :param notes: free text from the question file.
    :param context: the previous turn of a follow-up question (send it as history), or ``None``.
    :param evidence_pages: zh-pdf multi-place gold: every ``(doc, page)`` holding evidence.
    """

    id: str
    question: str
    answer: str
    source_dataset: str
    lang: str
    doc: str = ""
    page: int | None = None
    pages: tuple[int, ...] = ()
    section: str | None = None
    evidence: tuple[Any, ...] = ()
    answer_aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    notes: str = ""
    context: str | None = None
    evidence_pages: tuple[GoldPage, ...] = field(default=())

    # -- derived views -------------------------------------------------------------------

    @property
    def dataset(self) -> str:
        """Short name of ``source_dataset`` (the aggregation key)."""
        return self.source_dataset

    @property
    def unanswerable(self) -> bool:
        """True when the right output is an explicit "not found"."""
        return "unanswerable" in self.tags

    @property
    def needs_image(self) -> bool:
        """True when the answer cannot be read from text (reported separately)."""
        return "answer_needs_image" in self.tags

    @property
    def current_date(self) -> str | None:
        """The ``YYYY-MM-DD`` of an ``assumes_current_date:`` tag, else ``None``."""
        for tag in self.tags:
            if tag.startswith("assumes_current_date:"):
                return tag.split(":", 1)[1].strip() or None
        return None

    @property
    def is_follow_up(self) -> bool:
        """True when the question needs its previous turn (``context``) as history."""
        return bool(self.context)

    @property
    def gold_answers(self) -> tuple[str, ...]:
        """The gold answer followed by its aliases, de-duplicated, empty strings dropped."""
        seen: list[str] = []
        for a in (self.answer, *self.answer_aliases):
            if a and a not in seen:
                seen.append(a)
        return tuple(seen)

    @property
    def gold_pages(self) -> tuple[GoldPage, ...]:
        """Every gold ``(doc, page)``: ``pages`` (else ``page``) of ``doc``; ``evidence_pages``."""
        out: list[GoldPage] = []
        nums = self.pages or ((self.page,) if self.page is not None else ())
        if self.doc:
            out.extend(GoldPage(self.doc, p) for p in nums)
        for gp in self.evidence_pages:
            if gp not in out:
                out.append(gp)
        return tuple(out)

    @property
    def gold_docs(self) -> tuple[str, ...]:
        """Every gold document: ``doc`` plus any other document named by ``evidence_pages``."""
        docs = [self.doc] if self.doc else []
        for gp in self.evidence_pages:
            if gp.doc not in docs:
                docs.append(gp.doc)
        return tuple(docs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (round-trips through :func:`evals.questions.parse_question`)."""
        data = asdict(self)
        data["evidence_pages"] = [{"doc": g.doc, "page": g.page} for g in self.evidence_pages]
        return data


@dataclass(frozen=True, slots=True)
class Location(ListFieldsRecord):
    """Where a citation or retrieved candidate points: document path (as stored at ingest),
    1-based physical pages, section path; ``chunk_id``/``score``/``quote`` when known."""

    list_fields = ("section_path",)

    path: str
    page_start: int = 1
    page_end: int = 0
    section_path: tuple[str, ...] = ()
    chunk_id: str = ""
    score: float | None = None
    quote: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (``section_path`` as a list): :meth:`to_data`."""
        return self.to_data()

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


def citation_location(c: Citation) -> Location:
    """A citation as a scored location (page span ``page..page_end``)."""
    return Location(
        c.path, c.page, c.page_end or c.page, tuple(c.section_path), c.chunk_id, None, c.quote
    )


def chunk_location(chunk: Chunk, score: float | None = None, page_end: int = 0) -> Location:
    """A chunk as a scored location."""
    return Location(
        chunk.path,
        chunk.page_start,
        max(page_end, chunk.page_end),
        tuple(chunk.section_path),
        chunk.chunk_id,
        score,
    )
