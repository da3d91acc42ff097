"""The offline LoopAgent's evidence embedder with passage vectors shared across requests
(issue 16 item 3): the parts of one multi-part question often read the same document, and the
offline policy embeds up to 60 of its sentences on every answer turn; computed once, they are
reused by the other parts and by later questions.

:class:`SharedUnitEmbedder` wraps the gateway's embedder (``loop.types.UnitEmbedder``): questions
go straight through (the embedder keeps its own query cache); passages are looked up by the
SHA-1 of their text in an LRU of ``max_entries`` float32 vectors (384 floats: 1.5 KB each) and
only the missing ones are embedded, one batch at a time under a lock — concurrent parts wait for
each other's vectors instead of computing the same ones twice (on a CPU-bound host the batches
would compete for the same cores anyway).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from loop.types import UnitEmbedder

__all__ = ["SharedUnitEmbedder"]


class SharedUnitEmbedder:
    """``embed_query`` / ``embed_passages`` of ``inner``, passages cached (module docstring).

    Usage example::

        agent = LoopAgent(..., embedder=SharedUnitEmbedder(embedder))

    :param inner: the embedder (``rag.embedder.FastEmbedEmbedder``).
    :param max_entries: passage vectors kept (least recently used dropped first).
    """

    def __init__(self, inner: UnitEmbedder, max_entries: int = 4096) -> None:
        self.inner = inner
        self.max_entries = max(1, int(max_entries))
        self._vecs: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def embed_query(self, text: str) -> list[float]:
        """One question → one unit-length vector (``inner``'s)."""
        return list(self.inner.embed_query(text))

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Passages → unit-length vectors in input order; only those not cached are embedded.

        :raises Exception: whatever ``inner.embed_passages`` raises (nothing is cached then).
        """
        keys = [hashlib.sha1(t.encode("utf-8")).digest() for t in texts]
        with self._lock:
            missing = list(dict.fromkeys(
                (k, t) for k, t in zip(keys, texts, strict=True) if k not in self._vecs))
            if missing:
                vecs = self.inner.embed_passages([t for _, t in missing])
                for (k, _), v in zip(missing, vecs, strict=True):
                    self._vecs[k] = np.asarray(v, dtype=np.float32)
            self.misses += len(missing)
            self.hits += len(keys) - len(missing)
            out = []
            for k in keys:
                self._vecs.move_to_end(k)
                out.append(self._vecs[k].tolist())
            while len(self._vecs) > self.max_entries:
                self._vecs.popitem(last=False)
        return out
