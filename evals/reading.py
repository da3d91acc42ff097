"""How the rag and loop answerers read a question as the gateway's router reads it, and how an
eval asks a follow-up's earlier turns through the router in one session.

- :class:`RouterReading` is the base of ``evals.adapters.RagPipelineAnswerer`` and
  ``LoopAgentAnswerer``: given the router, :meth:`RouterReading.answer` reads every question with
  ``Router.read_as`` (a follow-up rewritten from the session memory, exclusion clauses left
  out, a relative period dated, cross-language terms, the session's focus document as the
  filter) and hands the :class:`Reading` to the answerer's own path; without one, the question
  as written with the history's previous turn before it for retrieval
  (``gateway.routing.rules.retrieval_query``). ``evals.adapters.RouterAnswerer`` shares its
  ``answer`` and the query an eval sends (:meth:`RouterReading.query`), leaving the reading
  to ``Router.ask``.
- :func:`ask_in_session` asks the earlier turns through the router in a fresh session, then the
  question, and forgets the session (used by the rag and loop answerers and by
  ``evals.adapters.RouterAnswerer``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from corpus.types import SearchFilter
from evals.questions import Question
from evals.types import AnswerRecord
from gateway.routing import QueryInput, retrieval_query

__all__ = ["Reading", "RouterReading", "ask_in_session"]

#: ``answer(question, collection, *, history, current_date, session_id)`` of an answerer
AnswerFn = Callable[..., Awaitable[AnswerRecord]]


@dataclass(frozen=True, slots=True)
class Reading:
    """A question as the path reads it: the query (question, history, filter), its retrieval
    text and the route record's rewrite fields (``rewritten_question``, ``rewrite``,
    ``session``, ``cross_language``, when set)."""

    query: QueryInput
    text: str
    shown: dict[str, Any] = field(default_factory=dict)

    @property
    def scope(self) -> SearchFilter | None:
        """The filter the router searches with: the caller's, else the session's focus
        document (a follow-up stepping along its list), else none."""
        flt = self.query.filters
        return flt if flt is not None and not flt.is_empty() else None


async def ask_in_session(router: Any, mode: Literal["auto", "rag", "loop"], answer: AnswerFn,
                         question: Question, collection: str, *, turns: Sequence[str],
                         current_date: str | None) -> AnswerRecord:
    """Ask the earlier ``turns`` through ``router`` (in ``mode``) in one fresh session, then
    ``answer`` the question in that session (no history sent: it is read from the session
    memory); the session is forgotten afterwards."""
    sid = f"eval-{uuid.uuid4().hex}"
    try:
        for turn in turns:
            await router.ask(QueryInput(turn, collection, mode, use_cache=False,
                                        current_date=current_date, session_id=sid,
                                        caller="eval"))
        return await answer(question, collection, history=[], current_date=current_date,
                            session_id=sid)
    finally:
        conv = getattr(router, "conversation", None)
        if conv is not None:
            try:
                await conv.store.delete("eval", sid)
            except Exception:  # noqa: BLE001 - expires at its TTL anyway
                pass


class RouterReading:
    """What the rag and loop answerers share when given the gateway's router: a follow-up's
    earlier turns asked through it (in the answerer's ``mode``) in one fresh session, and every
    question read as it reads it (``Router.read_as``) before the answerer runs its own path
    (:meth:`run`). The router answerer shares :meth:`answer` and :meth:`query`."""

    mode: Literal["auto", "rag", "loop"]
    router: Any | None

    async def answer(
        self,
        question: Question,
        collection: str,
        *,
        history: list[dict[str, str]],
        current_date: str | None,
        session_id: str | None = None,
    ) -> AnswerRecord:
        """Read the question as the router does, then answer it on this answerer's path."""
        t0 = time.perf_counter()
        read = await self._read_as(question, collection, history, current_date, session_id)
        return await self.run(read, collection, current_date=current_date, t0=t0)

    async def run(self, read: Reading, collection: str, *, current_date: str | None,
                  t0: float) -> AnswerRecord:  # pragma: no cover - the answerers define it
        """Answer ``read`` on this answerer's path (``t0``: when the question was asked)."""
        raise NotImplementedError

    async def converse(
        self, question: Question, collection: str, *, turns: Sequence[str],
        current_date: str | None,
    ) -> AnswerRecord:
        """Ask the earlier ``turns`` through the router (in this answerer's mode) in one fresh
        session, then the question read from that session's memory (:func:`ask_in_session`).
        Without a router (or its session memory): the turns as ``history``."""
        if self.router is None or getattr(self.router, "conversation", None) is None:
            return await self.answer(question, collection, current_date=current_date,
                                     history=[{"role": "user", "content": t} for t in turns])
        return await ask_in_session(self.router, self.mode, self.answer, question, collection,
                                    turns=turns, current_date=current_date)

    def query(self, question: Question, collection: str, history: list[dict[str, str]],
              current_date: str | None, session_id: str | None) -> QueryInput:
        """The question as an eval sends it to the router: in this answerer's mode, with the
        ``history``, the answer cache bypassed, the ``current_date``; in the session
        ``session_id`` (when given) as the ``eval`` caller."""
        return QueryInput(question.question, collection, self.mode, history=tuple(history),
                          use_cache=False, current_date=current_date, session_id=session_id,
                          caller="eval" if session_id else "")

    async def _read_as(self, question: Question, collection: str,
                       history: list[dict[str, str]], current_date: str | None,
                       session_id: str | None) -> Reading:
        """The router's reading (``Router.read_as``), else the question as written with the
        history's previous turn before it for retrieval."""
        if self.router is None:
            q = self.query(question, collection, history, current_date, None)
            return Reading(q, str(retrieval_query(question.question, tuple(history))))
        read = await self.router.read_as(
            self.query(question, collection, history, current_date, session_id))
        route = read.record.to_dict()
        shown = {k: route[k] for k in ("rewritten_question", "rewrite", "session",
                                       "cross_language") if route.get(k) is not None}
        return Reading(read.query, read.retrieval_query, shown)
