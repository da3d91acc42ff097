"""A question-answering stage written once as an I/O-free flow and run sync or async
(``rag.steps``; STYLE.md §4: ``run`` and ``run_async`` with identical signatures, one
implementation): the base of :class:`rag.retriever.HybridRetriever` and
:class:`rag.pipeline.RagPipeline`."""

from __future__ import annotations

from typing import Generic, TypeVar

from corpus.types import SearchFilter
from rag.steps import Flow, drive_async, drive_sync
from rag.types import RetrievalMode

__all__ = ["FlowStage"]

T = TypeVar("T")


class FlowStage(Generic[T]):
    """A stage over one collection: subclasses write :meth:`flow`; :meth:`run` drives it in
    worker threads (blocking), :meth:`run_async` on the event loop. Neither raises for a step's
    timeout or failure: the result's flags say what happened."""

    def flow(self, question: str, collection: str, *, top_k: int | None = None,
             flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid",
             current_date: str | None = None) -> Flow[T]:
        """The I/O-free flow: yields groups of steps, receives their outcomes, returns the
        result.

        :param question: the question text (any language).
        :param collection: the collection to search.
        :param top_k: items to retrieve (default: the retriever's ``config.top_k``).
        :param flt: optional restriction to documents / path / section prefix.
        :param mode: ``hybrid`` (default), ``dense`` or ``keyword`` (evaluation, ablations).
        :param current_date: the day asked on (``YYYY-MM-DD``; ``None``: today), for stages
            that answer relative dates.
        """
        raise NotImplementedError

    def run(self, question: str, collection: str, *, top_k: int | None = None,
            flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid",
            current_date: str | None = None) -> T:
        """:meth:`flow` run to its result, blocking (arguments as :meth:`flow`)."""
        return drive_sync(self.flow(question, collection, top_k=top_k, flt=flt, mode=mode,
                                    current_date=current_date))

    async def run_async(self, question: str, collection: str, *, top_k: int | None = None,
                        flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid",
                        current_date: str | None = None) -> T:
        """Async twin of :meth:`run` (same flow; steps run in worker threads)."""
        return await drive_async(self.flow(question, collection, top_k=top_k, flt=flt,
                                           mode=mode, current_date=current_date))
