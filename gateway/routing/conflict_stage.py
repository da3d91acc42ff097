"""The router's ``conflict`` stage: an answer whose cited passage gives another value than a
passage of another document is rewritten around the newer document
(:mod:`gateway.routing.conflict`), after reading both documents' first chunks under
``timeout_search_s``; a slow or failing read judges without them, never a degraded answer.

Split from :mod:`gateway.routing.router`; the timeout runs through
:meth:`gateway.routing.stages.RouterStages._stage` like every other stage.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from corpus.errors import StoreError
from corpus.types import Chunk
from gateway.routing.conflict import check_draft, find_rival
from gateway.routing.stages import Ctx, RouterStages
from gateway.routing.types import AnswerDraft, QueryInput, RagResult

__all__ = ["ConflictStages"]


class ConflictStages(RouterStages):
    """The conflict stage of :class:`gateway.routing.Router` (state set by its ``__init__``)."""

    doc_head: Callable[[str, str], list[Chunk]] | None

    async def _conflicts(self, ctx: Ctx, q: QueryInput, draft: AnswerDraft,
                         rag_res: RagResult) -> AnswerDraft:
        """Stage ``conflict``: when a passage of another document gives another value for what
        the answer states, read both documents' first chunks (titles, dates) and rewrite the
        answer around the newer (``gateway.routing.conflict``); a slow read judges without
        them (never a degraded answer)."""
        pair = find_rival(q.question, draft.citations, rag_res.hits)
        if pair is None:
            return draft
        heads: dict[str, list[Chunk]] = {}
        if (head := self.doc_head) is not None:
            docs = list(dict.fromkeys(s.chunk.doc_id for s in pair))

            def read() -> dict[str, list[Chunk]]:
                return {d: head(q.collection, d) for d in docs}

            try:
                got, _ = await self._stage(ctx, "conflict", lambda: asyncio.to_thread(read),
                                           self.settings.timeout_search_s)
            except StoreError as exc:
                got = None
                ctx.record.error(f"conflict: {exc}")
            ctx.record.forget_timeouts("conflict")
            heads = got or {}
        checked = check_draft(q.question, draft, rag_res.hits, heads)
        ctx.record.conflicted(checked.conflict)
        return checked
