"""What ``loopgate ask --mode auto`` and ``--mode loop`` do alike before their one question:
build the components (saying what loads while it is slow), load the cross-language dictionary,
say the LLM budgets in effect, then open the collection asked and read ``--doc`` /
``--path-prefix`` into a search filter, or say why the question cannot be asked (exit 1).
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from rich.console import Console

from gateway.cli._status import DICTIONARY, slow_step, slow_steps

if TYPE_CHECKING:
    from corpus.types import SearchFilter
    from gateway.settings import Settings
    from gateway.wiring import Components

__all__ = ["open_question_scope", "question_components"]


def question_components(settings: Settings, err: Console) -> Components:
    """The components of a question command, ready for its first question: built with
    :func:`gateway.cli._status.slow_steps` on ``err``, the CC-CEDICT index loaded, and the LLM
    budgets printed to stderr when a configured LLM has them."""
    from gateway.conversation.cedict import ready_before_first_question
    from gateway.wiring import build_components, describe_budgets

    c = build_components(settings, step=slow_steps(err))  # says what it loads while it is slow
    with slow_step(err, DICTIONARY):  # the CC-CEDICT index, as `loopgate chat`
        ready_before_first_question(settings.cross_language)
    if c.llm is not None and c.llm_budgets is not None:  # sized from the model's speed
        print(f"LLM budgets: {describe_budgets(c.llm_budgets)}", file=sys.stderr)
    return c


def open_question_scope(c: Components, collection: str, *, documents: tuple[str, ...] = (),
                        path_prefix: str = "") -> tuple[bool, SearchFilter | None]:
    """Open ``collection`` (when the store is there) and read ``documents`` / ``path_prefix``
    into a filter, as the HTTP API's ``filters`` restrict retrieval.

    :returns: ``(True, filter)`` (``None``: no restriction); ``(False, None)`` once the reason
        the question cannot be asked is printed to stderr (``error: …``: the collection does
        not exist or its data directory is held elsewhere, the names match no document, or the
        collection has dense vectors but no (or another) embedding model) and ``c`` is closed.
    """
    from corpus.errors import StoreError
    from gateway.wiring import open_collection, store_location
    from rag.errors import RetrievalError
    from rag.retriever import resolve_filter

    refused, flt = "", None
    try:
        if c.store is not None:  # an unknown collection is refused here, in every mode
            # a held data directory fails here, clearly
            open_collection(c.store, collection, where=store_location(c.settings))
            flt = resolve_filter(c.store, collection, documents=documents,
                                 path_prefix=path_prefix)
    except (StoreError, RetrievalError) as exc:
        refused = str(exc)
    if not refused and collection in c.embedding_mismatch:  # dense vectors, no (or another) model
        refused = c.embedding_mismatch[collection]
    if refused:
        print(f"error: {refused}", file=sys.stderr)
        asyncio.run(c.aclose())
        return False, None
    return True, flt
