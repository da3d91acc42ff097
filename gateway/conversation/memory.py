"""Session memory: a window of recent turns, a rolling summary of older ones, fact cards and
retrieval state, bounded in tokens whatever the length of the conversation.

The four parts follow the usual split of agent memory (short-term window, summarised
long-term, semantic facts, working state; e.g. LangChain's ``ConversationSummaryBufferMemory``
and the "memory" chapter of L. Weng, *LLM Powered Autonomous Agents*, 2023):

- ``turns`` — the last ``window_turns`` exchanges (question, rewritten question, answer);
- ``summary`` — older turns folded into a few extractive lines (``Q: … → A: …``), oldest
  dropped first; an LLM-written summary replaces it when an LLM is configured
  (:func:`gateway.conversation.llm.summarise`);
- ``facts`` — fact cards: an answer found in an earlier turn with its citations (path, section,
  page, quote), reusable without re-reading;
- ``state`` — retrieval state: documents, sections and chunks read and cited, newest first, so
  a follow-up ("the next one") starts there.

:func:`bound` enforces ``MemoryLimits.max_tokens`` (estimated by :func:`estimate_tokens`):
turns beyond the window move to the summary, then the oldest summary lines, fact cards and
state entries are dropped until the memory fits.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "FactCard",
    "MemoryLimits",
    "RetrievalState",
    "SessionMemory",
    "TurnRecord",
    "bound",
    "estimate_tokens",
    "memory_tokens",
]

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
_WORDS = re.compile(r"[^\s\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+")


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` as a BPE tokenizer counts them, estimated: one per CJK character and
    ``ceil(len/4)`` per other word (OpenAI's rule of thumb of ~4 characters of English per
    token). Never below the true count of common tokenizers by much; ≥ 0."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    return cjk + sum(math.ceil(len(w) / 4) for w in _WORDS.findall(text))


@dataclass(frozen=True, slots=True)
class MemoryLimits:
    """Bounds of one session's memory.

    :param max_tokens: whole memory (estimated tokens), ≥ 200.
    :param window_turns: recent turns kept verbatim, ≥ 1.
    :param max_facts: fact cards kept, newest first.
    :param max_state: retrieval-state entries (documents, chunks) kept, newest first.
    :param answer_chars: characters of an answer kept in a turn or fact card.
    """

    max_tokens: int = 2000
    window_turns: int = 4
    max_facts: int = 12
    max_state: int = 12
    answer_chars: int = 400


@dataclass(slots=True)
class TurnRecord:
    """One exchange: the question asked, the standalone question it was read as, the answer."""

    question: str
    rewritten: str
    answer: str
    found: bool
    at: float = 0.0


@dataclass(slots=True)
class FactCard:
    """A fact given in an earlier answer, with its citations (``path``, ``section_path``,
    ``page``, ``page_end``, ``lines``, ``quote``, ``chunk_id``, ``doc_id``, ``page_label``);
    ``corpus_version`` of the collection when it was given; ``complete`` when neither the fact
    nor a quote was clipped (only then may it answer again, :meth:`SessionMemory.card_for`)."""

    question: str
    fact: str
    citations: list[dict[str, Any]]
    turn: int
    corpus_version: str = ""
    complete: bool = False


@dataclass(slots=True)
class RetrievalState:
    """What was read and judged relevant, newest first: ``documents`` (``doc_id``, ``path``),
    ``chunks`` (``chunk_id``, ``doc_id``, ``section_path``, ``page``) and the turn that cited
    them."""

    documents: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[dict[str, Any]] = field(default_factory=list)

    def note(self, citations: list[dict[str, Any]], turn: int, limit: int,
             read: Sequence[str] = ()) -> None:
        """Put the cited documents and chunks first (deduplicated), then the chunk ids ``read``
        but not cited (``cited: False``); keep ``limit`` of each."""
        docs = [{"doc_id": c.get("doc_id", ""), "path": c.get("path", ""), "turn": turn}
                for c in citations if c.get("doc_id")]
        chunks = [{"chunk_id": c.get("chunk_id", ""), "doc_id": c.get("doc_id", ""),
                   "section_path": list(c.get("section_path") or ()),
                   "page": c.get("page"), "turn": turn, "cited": True}
                  for c in citations if c.get("chunk_id")]
        chunks += [{"chunk_id": r, "turn": turn, "cited": False} for r in read if r]
        self.documents = _dedup(docs + self.documents, "doc_id")[:limit]
        self.chunks = _dedup(chunks + self.chunks, "chunk_id")[:limit]


def _dedup(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for it in items:
        k = str(it.get(key, ""))
        if k and k not in seen:
            seen.add(k)
            out.append(it)
    return out


@dataclass(slots=True)
class SessionMemory:
    """Everything remembered of one session (JSON round trip: :meth:`to_dict`/:meth:`from_dict`).

    Usage example::

        mem = SessionMemory("s1", collection="handbook")
        mem.add_turn("What is the prefix for Group Channels?", None, "g_", True, citations)
        bound(mem, MemoryLimits(max_tokens=1500))
    """

    session_id: str
    collection: str = ""
    turns: list[TurnRecord] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)
    facts: list[FactCard] = field(default_factory=list)
    state: RetrievalState = field(default_factory=RetrievalState)
    turn_count: int = 0
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    summary_by: str = "extractive"

    def add_turn(self, question: str, rewritten: str | None, answer: str, found: bool,
                 citations: list[dict[str, Any]], limits: MemoryLimits | None = None,
                 read: Sequence[str] = (), corpus_version: str = "") -> None:
        """Record one exchange: window turn, fact card (when found and cited), retrieval state
        (cited chunks, then the chunk ids ``read`` — the retrieval's best candidates); then
        :func:`bound` the memory."""
        limits = limits or MemoryLimits()
        self.turn_count += 1
        short = _clip(answer, limits.answer_chars)
        self.turns.append(TurnRecord(question, rewritten or question, short, found, time.time()))
        if found and citations:
            cites = [{k: c.get(k) for k in ("path", "section_path", "page", "page_end", "lines",
                                             "quote", "chunk_id", "doc_id", "page_label")}
                     for c in citations[:3]]
            complete = short == answer and all(len(str(c.get("quote") or "")) <= 600
                                               for c in cites)
            for c in cites:
                c["quote"] = _clip(str(c.get("quote") or ""), 600)
            self.facts.insert(0, FactCard(rewritten or question, short, cites, self.turn_count,
                                          corpus_version, complete))
        if (found and citations) or read:
            self.state.note(citations if found else [], self.turn_count, limits.max_state, read)
        self.updated_at = time.time()
        bound(self, limits)

    def card_for(self, question: str, corpus_version: str,
                 same: Callable[[str, str], bool]) -> FactCard | None:
        """A complete fact card given for ``question`` (``same(card question, question)``) at
        ``corpus_version``, newest first; ``None`` when there is none."""
        if not corpus_version:
            return None
        for card in self.facts:
            if card.complete and card.corpus_version == corpus_version and same(
                    card.question, question):
                return card
        return None

    def previous(self) -> TurnRecord | None:
        """The last turn, or ``None``."""
        return self.turns[-1] if self.turns else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SessionMemory:
        """Rebuild from :meth:`to_dict` (unknown keys ignored). :raises KeyError: no
        ``session_id``."""
        st = data.get("state") or {}
        return cls(
            session_id=str(data["session_id"]),
            collection=str(data.get("collection", "")),
            turns=[TurnRecord(**t) for t in data.get("turns") or ()],
            summary=[str(s) for s in data.get("summary") or ()],
            facts=[FactCard(**f) for f in data.get("facts") or ()],
            state=RetrievalState(list(st.get("documents") or ()), list(st.get("chunks") or ())),
            turn_count=int(data.get("turn_count", 0)),
            created_at=float(data.get("created_at", time.time())),
            updated_at=float(data.get("updated_at", time.time())),
            summary_by=str(data.get("summary_by", "extractive")),
        )


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def summary_line(turn: TurnRecord) -> str:
    """The extractive summary line of a turn: its standalone question and the answer's first
    sentence (``Q: … → A: …``; ``not found`` when it was not)."""
    first = re.split(r"(?<=[.!?。！？])\s*", turn.answer, maxsplit=1)[0] if turn.found else ""
    return f"Q: {_clip(turn.rewritten, 160)} → A: {_clip(first, 160) if first else 'not found'}"


def memory_tokens(mem: SessionMemory) -> int:
    """Estimated tokens of everything the memory holds (what a prompt built from it costs)."""
    parts = [f"{t.question} {t.rewritten} {t.answer}" for t in mem.turns]
    parts += mem.summary
    parts += [f"{f.question} {f.fact} " + " ".join(
        f"{c.get('path')} {' '.join(c.get('section_path') or ())} {c.get('quote')}"
        for c in f.citations) for f in mem.facts]
    parts += [f"{d.get('path')}" for d in mem.state.documents]
    parts += [" ".join(c.get("section_path") or ()) + f" {c.get('chunk_id')}"
              for c in mem.state.chunks]
    return sum(estimate_tokens(p) for p in parts)


def bound(mem: SessionMemory, limits: MemoryLimits) -> int:
    """Fold turns beyond the window into the summary and drop the oldest summary lines, fact
    cards and state entries until ``memory_tokens(mem) <= limits.max_tokens``; returns the
    tokens held. The newest turn is kept (clipped if it alone is too large)."""
    while len(mem.turns) > limits.window_turns:
        mem.summary.append(summary_line(mem.turns.pop(0)))
    del mem.facts[limits.max_facts:]
    del mem.state.documents[limits.max_state:]
    del mem.state.chunks[limits.max_state:]
    tokens = memory_tokens(mem)
    while tokens > limits.max_tokens:
        if len(mem.summary) > 1:
            mem.summary.pop(0)
        elif len(mem.facts) > 1:
            mem.facts.pop()
        elif len(mem.turns) > 1:
            mem.summary.append(summary_line(mem.turns.pop(0)))
        elif len(mem.state.chunks) > 1 or len(mem.state.documents) > 1:
            del mem.state.chunks[1:]
            del mem.state.documents[1:]
        elif mem.summary or mem.facts:
            mem.summary.clear()
            mem.facts.clear()
        else:
            t = mem.turns[-1] if mem.turns else None
            if t is None or len(t.answer) + len(t.question) + len(t.rewritten) < 60:
                break
            t.answer, t.question = _clip(t.answer, len(t.answer) // 2), _clip(
                t.question, max(40, len(t.question) // 2))
            t.rewritten = _clip(t.rewritten, max(40, len(t.rewritten) // 2))
        tokens = memory_tokens(mem)
    return tokens
