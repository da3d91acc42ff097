"""Build the evaluation's answerer for a mode from :class:`gateway.settings.Settings`.

The components are the gateway's own (``gateway.wiring.components.build_components``: chunk store,
tokenizer, embedder, hybrid retriever, LoopAgent with the catalogue directory, router with
cache and route log), so the evaluation measures what the server runs:

- ``rag``  → ``rag.pipeline.RagPipeline`` over the gateway's retriever (extractive answer),
  every question read as the gateway's rag mode reads it (``Router.read_as``: follow-ups
  rewritten from the session memory, exclusion clauses left out, relative periods dated);
- ``loop`` → the gateway's ``LoopAgent`` seeded with the retriever's hits (offline reading
  policy when no LLM is configured, or with ``offline=True``), every question read as the
  router reads it (``Router.read_as``: follow-ups rewritten from the session memory); a
  ``fallback_to_rag`` is answered by the pipeline with ``rag_broad_top_k``, as the router does;
- ``auto`` → the gateway's ``Router`` (answer cache bypassed per request).

Usage example::

    built = build_answerer("rag", get_settings())
    try:
        run = await run_eval(questions, built.answerer, collection="eval", mode="rag")
    finally:
        await built.aclose()
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evals.adapters import LoopAgentAnswerer, RagPipelineAnswerer, RouterAnswerer
from gateway.conversation.cedict import ready_before_first_question
from gateway.settings import Settings
from gateway.wiring import build_components
from rag.pipeline import RagPipeline

__all__ = ["BuiltAnswerer", "build_answerer"]


@dataclass
class BuiltAnswerer:
    """An answerer with the gateway components it runs on (close with :meth:`aclose`)."""

    answerer: Any
    components: Any

    @property
    def store(self) -> Any:
        """The chunk store."""
        return self.components.store

    async def aclose(self) -> None:
        """Close the LLM client, cache, route log and the store (embedded shard locks)."""
        await self.components.aclose()


def build_answerer(mode: str, settings: Settings, *, offline: bool = False) -> BuiltAnswerer:
    """Open the gateway components and wrap them for ``mode`` (``rag``, ``loop``, ``auto``).

    :param offline: LoopAgent offline policy even when an LLM is configured (``loop`` mode).
    :raises ValueError: unknown mode.
    :raises RuntimeError: the chunk store could not be opened (the message says why).
    """
    if mode not in ("rag", "loop", "auto"):
        raise ValueError(f"mode must be rag, loop or auto, got {mode!r}")
    if offline:  # no LLM call: no start-up speed probe (gateway.wiring.llm_budgets)
        settings = settings.model_copy(update={"llm_budgets": "fixed"})
    c = build_components(settings)
    if c.store is None or c.retriever is None:
        raise RuntimeError(f"the chunk store is unavailable: {c.store_error or 'not configured'}")
    c.retriever.warm_up()
    # the CC-CEDICT index built before the first question: on a loaded machine the first
    # questions of a run went without cross-language terms, figures depending on the load
    ready_before_first_question(settings.cross_language)
    pipeline = RagPipeline(c.retriever, answer_floor=settings.rag_answer_floor)
    if mode == "rag":
        return BuiltAnswerer(RagPipelineAnswerer(pipeline, router=c.router), c)
    if mode == "loop":
        return BuiltAnswerer(
            LoopAgentAnswerer(
                c.agent,
                c.retriever,
                c.store,
                offline=offline,
                fallback=pipeline,
                broad_top_k=settings.rag_broad_top_k,
                router=c.router,
            ),
            c,
        )
    return BuiltAnswerer(RouterAnswerer(c.router, c.store, mode="auto"), c)
