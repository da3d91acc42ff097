"""The dispatcher the query route calls: one question, answered per its collection's migration
mode (:mod:`gateway.migration.modes`), with the shadow run in a background task and every
exchange recorded in the :class:`~gateway.migration.agreement.MigrationLog`.

Shadow runs: an ``asyncio`` task per question, with its own deadline
(``shadow_timeout_s``), every exception captured and recorded (``error`` / ``timeout``), and a
cap on runs in flight (``shadow_max_concurrency``; beyond it the run is skipped and counted,
never queued). With ``defer_shadow=True`` the caller starts the run after it has sent the
answer (the query route uses a Starlette background task).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from gateway.cache import normalize_question
from gateway.migration.agreement import MigrationLog, compare
from gateway.migration.legacy import LegacyRagClient
from gateway.migration.legacy_types import LegacyAnswer, LegacyConfigError
from gateway.migration.modes import (
    LoopGateCall,
    MigrationMode,
    MigrationPolicy,
    canary_selects_loopgate,
)
from gateway.migration.outcome import (
    MigrationOutcome,
    legacy_refs,
    legacy_summary,
    loopgate_view,
)

__all__ = ["MigrationDispatcher"]

log = logging.getLogger("loopgate.migration")


@dataclass(frozen=True, slots=True)
class _Exchange:
    """One question on its way through the dispatcher: what the legacy service is asked with,
    and how LoopGate answers it (``loopgate()``)."""

    question: str
    collection: str
    loopgate: LoopGateCall
    user: str | None
    trace_id: str


class MigrationDispatcher:
    """Routes one question according to its collection's migration mode.

    Usage example (inside the query route)::

        outcome = await dispatcher.dispatch(question, collection, lambda: pipeline.answer(req),
                                            user=user_id, trace_id=trace_id)
        if outcome.served_by == "legacy":
            return outcome.legacy_response()
        body = render(outcome.loopgate); body["migration"] = outcome.info()

    :param policy: modes per collection.
    :param legacy: the legacy client; required when any mode other than ``gateway`` is set.
    :param log: where records and counters go.
    :param shadow_timeout_s: deadline of one background LoopGate run.
    :param shadow_max_concurrency: shadow runs in flight at once; beyond it the shadow run is
        skipped (counted ``skipped``) rather than queued, so load never builds up.
    """

    def __init__(
        self,
        policy: MigrationPolicy,
        legacy: LegacyRagClient | None,
        log: MigrationLog | None = None,
        *,
        shadow_timeout_s: float = 30.0,
        shadow_max_concurrency: int = 4,
    ) -> None:
        if legacy is None and policy.needs_legacy():
            raise LegacyConfigError(
                "a migration mode other than gateway is set but no legacy RAG URL is configured"
            )
        self.policy = policy
        self.legacy = legacy
        self.log = log or MigrationLog()
        self.shadow_timeout_s = shadow_timeout_s
        self.shadow_max_concurrency = shadow_max_concurrency
        self._shadow_tasks: set[asyncio.Task[None]] = set()
        self._log_tasks: set[asyncio.Task[None]] = set()

    @property
    def shadow_in_flight(self) -> int:
        """Background LoopGate runs not yet finished."""
        return len(self._shadow_tasks)

    def _spawn(self, coro: Awaitable[None], bucket: set[asyncio.Task[None]]) -> None:
        task = asyncio.ensure_future(coro)
        bucket.add(task)
        task.add_done_callback(bucket.discard)

    def _record(self, rec: dict[str, Any]) -> None:
        """Write a record in the background (the answer never waits for Redis)."""
        self._spawn(self.log.record(rec), self._log_tasks)

    def canary_key(self, question: str, user: str | None) -> str:
        """The key hashed for the canary split."""
        if self.policy.canary_key == "user" and user:
            return f"user:{user}"
        return f"q:{normalize_question(question)}"

    async def dispatch(
        self,
        question: str,
        collection: str,
        loopgate: LoopGateCall,
        *,
        user: str | None = None,
        trace_id: str = "",
        defer_shadow: bool = False,
    ) -> MigrationOutcome:
        """Answer per the collection's mode (see the module docstring).

        :param defer_shadow: leave starting the shadow run to the caller
            (:attr:`MigrationOutcome.start_shadow`), e.g. after the response is sent.

        :raises Exception: only what ``loopgate()`` raises, and only in ``gateway``/``canary`` mode
            when no legacy answer could replace it; legacy failures never raise.
        """
        ex = _Exchange(question, collection, loopgate, user, trace_id)
        outcome = await self._dispatch(ex, defer_shadow)
        outcome.trace_id = trace_id
        return outcome

    async def _ask_legacy(self, ex: _Exchange) -> LegacyAnswer:
        """The legacy service's answer to ``ex`` (its failures come back as ``ok=False``)."""
        assert self.legacy is not None
        return await self.legacy.ask(
            ex.question, collection=ex.collection, user=ex.user, trace_id=ex.trace_id
        )

    async def _dispatch(self, ex: _Exchange, defer_shadow: bool) -> MigrationOutcome:
        """:meth:`dispatch` without the trace id bookkeeping."""
        question, collection = ex.question, ex.collection
        cm = self.policy.for_collection(collection)
        base = {
            "collection": collection,
            "mode": str(cm.mode),
            "trace_id": ex.trace_id,
            "question": question[:300],
        }
        if cm.mode is MigrationMode.GATEWAY:
            return await self._gateway(ex, base)
        if cm.mode is MigrationMode.CANARY and canary_selects_loopgate(
            self.canary_key(question, ex.user), cm.canary_percent, collection
        ):
            return await self._gateway(ex, base, mode=cm.mode)
        legacy = await self._ask_legacy(ex)
        outcome = MigrationOutcome(collection, cm.mode, "legacy", legacy=legacy)
        if cm.mode is MigrationMode.SHADOW:
            if len(self._shadow_tasks) >= self.shadow_max_concurrency:
                outcome.shadow = "skipped"
                self._record(
                    {
                        **base,
                        "served_by": "legacy",
                        "shadow": "skipped",
                        "legacy": legacy_summary(legacy),
                    }
                )
            else:
                outcome.shadow = "started"

                async def start() -> None:
                    self._spawn(self._shadow(ex.loopgate, legacy, base), self._shadow_tasks)

                if defer_shadow:
                    outcome.start_shadow = start
                else:
                    await start()
        else:
            self._record({**base, "served_by": "legacy", "legacy": legacy_summary(legacy)})
        return outcome

    async def _gateway(
        self, ex: _Exchange, base: dict[str, Any], mode: MigrationMode = MigrationMode.GATEWAY
    ) -> MigrationOutcome:
        """LoopGate first; the legacy service answers when LoopGate fails or finds nothing."""
        try:
            answer = await ex.loopgate()
            reason = "" if loopgate_view(answer)[2] else "loopgate_not_found"
            error: Exception | None = None
        except Exception as exc:  # noqa: BLE001 - replaced by the legacy answer when there is one
            answer, reason, error = None, "loopgate_error", exc
        if reason and self.legacy is not None:
            legacy = await self._ask_legacy(ex)
            if legacy.ok and (legacy.found or error is not None):
                self._record(
                    {
                        **base,
                        "served_by": "legacy",
                        "fallback": reason,
                        "legacy": legacy_summary(legacy),
                    }
                )
                return MigrationOutcome(
                    ex.collection,
                    mode,
                    "legacy",
                    legacy=legacy,
                    fallback=reason,
                    loopgate_error=f"{type(error).__name__}: {error}" if error else "",
                )
        if error is not None:
            raise error
        self._record({**base, "served_by": "loopgate"})
        return MigrationOutcome(ex.collection, mode, "loopgate", loopgate=answer)

    async def _shadow(
        self, loopgate: LoopGateCall, legacy: LegacyAnswer, base: dict[str, Any]
    ) -> None:
        """Background LoopGate run: own deadline, every exception captured, one record."""
        rec: dict[str, Any] = {**base, "served_by": "legacy", "legacy": legacy_summary(legacy)}
        start = time.perf_counter()
        try:
            async with asyncio.timeout(self.shadow_timeout_s):
                answer = await loopgate()
            text, refs, found = loopgate_view(answer)
            rec["loopgate"] = {
                "ok": True,
                "found": found,
                "citations": len(refs),
                "answer": text[:500],
            }
            rec["shadow"] = "ok"
            if legacy.ok:
                rec["agreement"] = compare(
                    legacy.answer, legacy_refs(legacy), legacy.found, text, refs, found
                ).to_dict()
        except TimeoutError:
            rec["shadow"] = "timeout"
            rec["loopgate"] = {
                "ok": False,
                "error": f"no answer within {self.shadow_timeout_s:g} s",
            }
        except Exception as exc:  # noqa: BLE001 - the shadow run must never escape
            rec["shadow"] = "error"
            rec["loopgate"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            log.warning("shadow LoopGate run failed for %s: %s", base.get("collection"), exc)
        rec.setdefault("loopgate", {})["latency_ms"] = round(
            (time.perf_counter() - start) * 1000, 2
        )
        await self.log.record(rec)

    async def drain(self, timeout_s: float = 5.0) -> int:
        """Wait up to ``timeout_s`` for background work; cancel what is left; returns how many."""
        pending = self._shadow_tasks | self._log_tasks
        if pending:
            _done, still = await asyncio.wait(pending, timeout=timeout_s)
            for task in still:
                task.cancel()
            return len(still)
        return 0

    async def aclose(self) -> None:
        """Drain background work and close the legacy client."""
        await self.drain()
        if self.legacy is not None:
            await self.legacy.aclose()
        await self.log.aclose()
