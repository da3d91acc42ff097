"""Contracts of the deep-read path: protocols the gateway fills in, configs, results, events.

- :class:`SearchBackend` – what the ``search`` tool calls (the gateway passes the RAG path's
  hybrid retriever, or :class:`loop.tools.StoreKeywordSearch` over the chunk store).
- :class:`KeyTermExtractor` – key terms of a question (``corpus.tokenizer.Tokenizer``).
- :class:`DocumentDirectory` – the documents of a collection (the catalogue), for the first
  prompt's directory.
- :class:`ToolCall`, :class:`ToolResult` – one tool call and what it returned.

Configs are in :mod:`loop.config` (:class:`~loop.config.LoopConfig`,
:class:`~loop.config.LLMConfig`), a run's events and outcome in :mod:`loop.results`
(:class:`~loop.results.StepEvent`, :class:`~loop.results.LoopResult`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from corpus.types import DocumentInfo, SearchFilter, SearchHit

__all__ = [
    "NOT_FOUND",
    "DocumentDirectory",
    "KeyTermExtractor",
    "SearchBackend",
    "ToolCall",
    "ToolResult",
    "UnitEmbedder",
]

NOT_FOUND = "Not found in the documents."


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
