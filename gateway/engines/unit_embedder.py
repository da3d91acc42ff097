"""The offline LoopAgent's evidence embedder with passage vectors shared across requests
(issue 16 item 3): the parts of one multi-part question often read the same document, and the
offline policy embeds up to ``TUNING.offline.dense_units`` of its sentences on every answer
turn; computed once, they are reused by the other parts and by later questions.

:class:`SharedUnitEmbedder` wraps the gateway's embedder (``loop.types.UnitEmbedder``):
passages are looked up by the SHA-1 of their text in an LRU of ``max_entries`` float32 vectors
(384 floats: 1.5 KB each) and only the missing ones are embedded. A passage another part is
embedding right now is waited for, not computed twice; the passages no one is embedding are
embedded at once, outside any lock, so the parts of one question embed on as many cores as the
host gives them (before, one lock held across the model call made three parts' batches run one
after the other). Which passages a call embeds together — and so its batches, on which an int8
model's vectors depend slightly (``rag.embedder.FastEmbedEmbedder`` ``batch_size``) — is what
it was under that lock: every passage it needs that no earlier call holds or is embedding.

Questions: through ``queries`` when given (the gateway passes its retrieval embedder, whose
query cache already holds the question the RAG path embedded: the same vector, computed once
per request instead of twice), else ``inner``.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Protocol

import numpy as np

from loop.types import UnitEmbedder

__all__ = ["SharedUnitEmbedder"]


class QueryVectors(Protocol):
    """What embeds a question (``rag.embedder.FastEmbedEmbedder.embed_query``)."""

    def embed_query(self, text: str) -> list[float]:
        """One question → one unit-length vector."""
        ...


class SharedUnitEmbedder:
    """``embed_query`` / ``embed_passages`` of ``inner``, passages cached (module docstring).

    Usage example::

        agent = LoopAgent(..., embedder=SharedUnitEmbedder(embedder.with_batch_size(8),
                                                           queries=embedder))

    :param inner: the passage embedder (``rag.embedder.FastEmbedEmbedder``).
    :param max_entries: passage vectors kept (least recently used dropped first).
    :param queries: what embeds questions (default ``inner``); must give the vectors ``inner``
        gives (the same model, one question per call).
    """

    def __init__(self, inner: UnitEmbedder, max_entries: int = 4096,
                 queries: QueryVectors | None = None) -> None:
        self.inner = inner
        self.queries: QueryVectors = queries if queries is not None else inner
        self.max_entries = max(1, int(max_entries))
        self._vecs: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._pending: dict[bytes, Future[np.ndarray]] = {}
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def embed_query(self, text: str) -> list[float]:
        """One question → one unit-length vector (``queries``')."""
        return list(self.queries.embed_query(text))

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Passages → unit-length vectors in input order; only those neither cached nor being
        embedded by another call are embedded (in one ``inner.embed_passages`` call, in the
        calling thread); those another call is embedding are waited for.

        :raises Exception: whatever ``inner.embed_passages`` raises, in this call and in the
            calls waiting for its passages (nothing is cached then).
        """
        keys = [hashlib.sha1(t.encode("utf-8")).digest() for t in texts]
        got: dict[bytes, np.ndarray] = {}
        waits: dict[bytes, Future[np.ndarray]] = {}
        mine: dict[bytes, str] = {}
        with self._lock:
            for k, t in zip(keys, texts, strict=True):
                if k in got or k in waits or k in mine:
                    continue
                if k in self._vecs:
                    self._vecs.move_to_end(k)
                    got[k] = self._vecs[k]
                elif k in self._pending:
                    waits[k] = self._pending[k]
                else:
                    mine[k] = t
                    self._pending[k] = Future()
            self.misses += len(mine)
            self.hits += len(keys) - len(mine)
        if mine:
            self._embed(mine, got)
        for k, fut in waits.items():
            got[k] = fut.result()
        return [got[k].tolist() for k in keys]

    def _embed(self, mine: dict[bytes, str], got: dict[bytes, np.ndarray]) -> None:
        """Embed ``mine`` (key → text, all marked pending by this call) into ``got`` and the
        cache, and hand each vector (or the error) to the calls waiting for it."""
        try:
            vecs = self.inner.embed_passages(list(mine.values()))
        except BaseException as exc:
            with self._lock:
                futs = [self._pending.pop(k) for k in mine]
            for fut in futs:
                fut.set_exception(exc)
            raise
        done: list[tuple[Future[np.ndarray], np.ndarray]] = []
        with self._lock:
            for k, v in zip(mine, vecs, strict=True):
                arr = got[k] = np.asarray(v, dtype=np.float32)
                self._vecs[k] = arr
                done.append((self._pending.pop(k), arr))
            while len(self._vecs) > self.max_entries:
                self._vecs.popitem(last=False)
        for fut, arr in done:
            fut.set_result(arr)
