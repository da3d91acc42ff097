"""Errors of the RAG fast path.

Hierarchy (``LoopGateError`` is defined in ``corpus.errors``)::

    LoopGateError
     └── RetrievalError                  the RAG fast path failed
          ├── EmbedderError              the dense embedder could not load or embed
          │    └── EmbedderUnavailable   no model configured / model files missing (keyword-only)
          ├── CollectionMismatchError    the collection was indexed with another model/dimension
          └── CalibrationError           calibration data missing, malformed or not refittable

The retrieval entry points (``HybridRetriever.run`` / ``run_async``, ``RagPipeline.run`` /
``run_async``) never raise on a timeout or a failing index query: they return what they have and
flag it (``Retrieval.flags``). These errors come from construction, start-up checks and the
calibration command.
"""

from __future__ import annotations

from corpus.errors import LoopGateError

__all__ = [
    "CalibrationError",
    "CollectionMismatchError",
    "EmbedderError",
    "EmbedderUnavailable",
    "RetrievalError",
]


class RetrievalError(LoopGateError):
    """A failure of the RAG fast path."""


class EmbedderError(RetrievalError):
    """The dense embedder failed to load or to embed (the ONNX runtime error is chained)."""


class EmbedderUnavailable(EmbedderError):
    """No embedding model can be loaded (none configured, or the folder lacks its files)."""


class CollectionMismatchError(RetrievalError):
    """The collection's stored embedding model or dimension differs from the configured one.

    :param collection: the collection name.
    :param stored: ``(model, dim)`` recorded with the collection.
    :param configured: ``(model, dim)`` of the configured embedder.
    """

    def __init__(
        self,
        collection: str,
        stored: tuple[str | None, int | None],
        configured: tuple[str, int],
    ) -> None:
        self.collection = collection
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"collection {collection!r} was embedded with {stored[0]!r} (dim {stored[1]}), but the "
            f"configured embedder is {configured[0]!r} (dim {configured[1]}). Either set "
            f"LOOPGATE_EMBED_MODEL / LOOPGATE_EMBED_MODEL_PATH back to the collection's model, or "
            f"re-ingest into a new collection (loopgate ingest DIR --collection NEW)."
        )


class CalibrationError(RetrievalError):
    """Confidence calibration data is missing or malformed, or a refit had too little data."""
