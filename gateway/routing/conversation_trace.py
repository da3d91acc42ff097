"""What the conversation stage records in a request's route record
(:class:`gateway.routing.trace.RouteTrace`, through these methods): the question as rewritten,
the cross-language terms added, the session the turn belongs to, an answer the session's memory
gave (``gateway.conversation.service``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["ConversationTrace"]


class ConversationTrace:
    """The conversation methods of :class:`gateway.routing.trace.RouteTrace` (its fields)."""

    final_path: str
    brain: str
    corpus_version: str | None
    cross_language: dict[str, Any] | None
    cross_language_llm: dict[str, Any] | None
    tokens: int
    rewritten_question: str | None
    rewrite: dict[str, Any] | None
    session: dict[str, Any] | None

    def decide(self, route: str, reason: str, signals: list[str] | None = None) -> None:
        """The route chosen and why (defined by :meth:`RouteTrace.decide`)."""
        raise NotImplementedError

    def rewrote(self, question: str | None, by: str, rules: Iterable[str]) -> None:
        """The question as rewritten (``None``: unchanged) by ``by`` with ``rules``."""
        self.rewritten_question = question
        self.rewrite = {"by": by, "rules": list(rules)}

    def translated(self, terms: Sequence[str], units: Sequence[str], coverage: float,
                   document: str | None) -> None:
        """Key terms in the documents' language were added (``gateway.conversation.crosslang``:
        the question ``units`` they translate, their ``coverage``, the ``document`` named)."""
        self.cross_language = {"terms": list(terms), "units": list(units), "coverage": coverage}
        if document is not None:
            self.cross_language["document"] = document

    def llm_translated(self, translation: str | None, terms: Sequence[str],
                       prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        """The LLM's reply for the cross-language terms: its ``translation`` of the question,
        the ``terms`` taken from it (before the collection filter) and the call's tokens, as
        ``cross_language_llm`` ``{"translation", "terms", "prompt_tokens",
        "completion_tokens"}``; the tokens count in the record's ``tokens``."""
        self.cross_language_llm = {"translation": translation, "terms": list(terms),
                                   "prompt_tokens": prompt_tokens,
                                   "completion_tokens": completion_tokens}
        self.tokens += prompt_tokens + completion_tokens

    def in_session(self, turn: int | None, backend: str | None, memory_tokens: int,
                   memory_hits: list[str]) -> None:
        """The session this turn belongs to: its 1-based ``turn`` and store ``backend``
        (``None`` without a memory), the memory's tokens and what it answered from."""
        self.session = {"turn": turn, "backend": backend, "memory_tokens": memory_tokens,
                        "memory_hits": memory_hits}

    def session_focus(self, document: str) -> None:
        """The follow-up was resolved in ``document``'s list: retrieval starts there."""
        if self.session is not None:
            self.session["focus_document"] = document

    def session_saved(self, memory_tokens: int) -> None:
        """The memory's tokens once the answered turn is in it."""
        if self.session is not None:
            self.session["memory_tokens"] = memory_tokens

    def served_from_memory(self, card_turn: int, corpus_version: str) -> None:
        """A fact card of this session answered (``final_path`` ``memory``)."""
        self.final_path, self.brain, self.corpus_version = "memory", "memory", corpus_version
        self.decide("memory", f"fact card of turn {card_turn}")
        if self.session is not None:
            self.session["memory_hits"] = [*self.session["memory_hits"], f"fact_card:{card_turn}"]
