"""The RAG path's answer (``rag.types``): the :class:`Evidence` units chosen for an extractive
answer and the :class:`RagAnswer` built from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from corpus.types import Citation

if TYPE_CHECKING:
    from rag.types import Retrieval

__all__ = ["Evidence", "RagAnswer"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """One evidence sentence or table row chosen for the extractive answer.

    :param text: the sentence/row as it appears in the chunk.
    :param score: its evidence score (key-term overlap weighted by item rank; higher is better).
    :param citation: the verified citation (``corpus.citations.make_citation``).
    :param reading: for a statement row (``corpus.statement_rows``), the asked period's cell read
        under its column header (``"Net income, 2019: $ 11,588"``); ``""`` otherwise.
    """

    text: str
    score: float
    citation: Citation
    reading: str = ""


@dataclass(frozen=True, slots=True)
class RagAnswer:
    """The RAG path's answer.

    :param answer: the extractive answer text — the best evidence unit alone (the sentence or
        table row that answers) — or a "not found" message.
    :param found: ``False`` for an explicit "not found" (confidence below the floor, or no
        verifiable evidence).
    :param citations: the answer's verified citation (one; empty when not found).
    :param evidence: the chosen evidence with scores.
    :param retrieval: the retrieval it came from (items, confidence, flags, timings).
    :param timings_ms: per stage, including ``retrieve`` and ``extract``.
    :param related: the other verified evidence units, best first (shown apart from the answer);
        for a "not found" answer, the closest verified passages (none of them answers).
    :param missing: codes the question names (``ESP32-PICO-D4``) that no evidence unit or its
        context holds, or specific terms (codes, years) the answer's whole document
        lacks — the answer is then "not found" (``rag.answerability``, ``corpus.presence``).
    :param answer_flags: flags of the answer stage (``absent_in_document:…``,
        ``presence_timeout``), after the retrieval's in :attr:`flags`.
    :param support: the best evidence unit's answer-support features
        (``corpus.answer_support.support_features``; empty without evidence).
    :param support_p: the calibrated probability that the answer holds what was asked
        (``corpus.answer_support.SupportModel``); ``None`` without a model or evidence.
    """

    answer: str
    found: bool
    citations: tuple[Citation, ...]
    evidence: tuple[Evidence, ...]
    retrieval: Retrieval
    timings_ms: dict[str, float] = field(default_factory=dict)
    related: tuple[Citation, ...] = ()
    missing: tuple[str, ...] = ()
    answer_flags: tuple[str, ...] = ()
    support: dict[str, float] = field(default_factory=dict)
    support_p: float | None = None

    @property
    def confidence(self) -> float:
        """The answer's confidence (0..1): the answer-support probability when a support model
        scored it (it reads the retrieval's confidence as one of its features), else the
        retrieval's calibrated confidence."""
        if self.support_p is not None:
            return self.support_p
        return self.retrieval.confidence.value

    @property
    def flags(self) -> tuple[str, ...]:
        """The retrieval's flags (timeouts, keyword-only …), then the answer stage's."""
        return self.retrieval.flags + self.answer_flags
