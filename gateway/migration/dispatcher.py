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
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gateway.migration.agreement import MigrationLog, SourceRef, compare
from gateway.migration.legacy import LegacyAnswer, LegacyConfigError, LegacyRagClient
from gateway.migration.modes import (
    LoopGateCall,
    MigrationMode,
    MigrationPolicy,
    canary_selects_loopgate,
)

__all__ = ["MigrationDispatcher", "MigrationOutcome"]

log = logging.getLogger("loopgate.migration")


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Attribute or mapping key (LoopGate answers may be dataclasses, models or dicts)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _loopgate_view(answer: Any) -> tuple[str, list[SourceRef], bool]:
    """Answer text, cited (path, page) and found flag of a LoopGate answer object."""
    text = str(_get(answer, "answer", "") or "")
    refs = [
        SourceRef(str(_get(c, "path", "") or ""), _get(c, "page"))
        for c in _get(answer, "citations", ()) or ()
    ]
    return text, refs, bool(_get(answer, "found", bool(text.strip())))


def _legacy_refs(legacy: LegacyAnswer) -> list[SourceRef]:
    return [SourceRef(s.path, s.page) for s in legacy.sources]


def _legacy_summary(legacy: LegacyAnswer) -> dict[str, Any]:
    return {
        "ok": legacy.ok,
        "found": legacy.found,
        "error_kind": legacy.error_kind,
        "error": legacy.error,
        "latency_ms": round(legacy.latency_ms, 2),
        "sources": len(legacy.sources),
        "answer": legacy.answer[:500],
    }


@dataclass(slots=True)
class MigrationOutcome:
    """What :meth:`MigrationDispatcher.dispatch` decided and got.

    :param served_by: ``legacy`` or ``loopgate`` — whose answer the user gets.
    :param loopgate: LoopGate's answer object when LoopGate served (else ``None``).
    :param legacy: the legacy answer when the legacy service was asked (else ``None``).
    :param fallback: ``""``, ``loopgate_error`` or ``loopgate_not_found``.
    :param shadow: ``""``, ``started`` or ``skipped`` (too many shadow runs in flight).
    :param start_shadow: with ``dispatch(..., defer_shadow=True)``: an async callable that
        starts the shadow run; call it once the response has been sent (a Starlette
        ``BackgroundTask``), so not even the run's first synchronous steps delay the answer.
    """

    collection: str
    mode: MigrationMode
    served_by: Literal["legacy", "loopgate"]
    loopgate: Any = None
    legacy: LegacyAnswer | None = None
    fallback: str = ""
    loopgate_error: str = ""
    shadow: str = ""
    trace_id: str = ""
    start_shadow: Callable[[], Awaitable[None]] | None = None

    def info(self) -> dict[str, Any]:
        """The ``migration`` block for the response and the route record."""
        out: dict[str, Any] = {"mode": str(self.mode), "served_by": self.served_by}
        if self.trace_id:
            out["trace_id"] = self.trace_id
        if self.fallback:
            out["fallback"] = self.fallback
        if self.loopgate_error:
            out["loopgate_error"] = self.loopgate_error
        if self.shadow:
            out["shadow"] = self.shadow
        if self.legacy is not None:
            out["legacy"] = {k: v for k, v in _legacy_summary(self.legacy).items() if k != "answer"}
        return out

    def legacy_response(self) -> dict[str, Any]:
        """Response body when the legacy service served: its answer, its sources marked
        ``verified: false`` (LoopGate never read them, so they are not citations), or a clear
        flagged error when the legacy call failed."""
        legacy = self.legacy
        assert legacy is not None, "legacy_response() is only for legacy-served outcomes"
        body: dict[str, Any] = {
            "answer": legacy.answer,
            "found": legacy.found,
            "citations": [],
            "cached": False,
        }
        body["sources"] = [
            {"path": s.path, "page": s.page, "quote": s.quote, "score": s.score, "verified": False}
            for s in legacy.sources
        ]
        if not legacy.ok:
            body["answer"] = (
                f"The existing question-answering service failed ({legacy.error_kind})."
            )
            body["found"] = False
            body["error"] = {"code": f"legacy_{legacy.error_kind}", "message": legacy.error}
        body["migration"] = self.info()
        return body


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
        from gateway.cache import normalize_question

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
        outcome = await self._dispatch(question, collection, loopgate, user, trace_id, defer_shadow)
        outcome.trace_id = trace_id
        return outcome

    async def _dispatch(
        self,
        question: str,
        collection: str,
        loopgate: LoopGateCall,
        user: str | None,
        trace_id: str,
        defer_shadow: bool,
    ) -> MigrationOutcome:
        """:meth:`dispatch` without the trace id bookkeeping."""
        cm = self.policy.for_collection(collection)
        base = {
            "collection": collection,
            "mode": str(cm.mode),
            "trace_id": trace_id,
            "question": question[:300],
        }
        if cm.mode is MigrationMode.GATEWAY:
            return await self._gateway(question, collection, loopgate, user, trace_id, base)
        if cm.mode is MigrationMode.CANARY and canary_selects_loopgate(
            self.canary_key(question, user), cm.canary_percent, collection
        ):
            return await self._gateway(
                question, collection, loopgate, user, trace_id, base, mode=cm.mode
            )
        assert self.legacy is not None
        legacy = await self.legacy.ask(
            question, collection=collection, user=user, trace_id=trace_id
        )
        outcome = MigrationOutcome(collection, cm.mode, "legacy", legacy=legacy)
        if cm.mode is MigrationMode.SHADOW:
            if len(self._shadow_tasks) >= self.shadow_max_concurrency:
                outcome.shadow = "skipped"
                self._record(
                    {
                        **base,
                        "served_by": "legacy",
                        "shadow": "skipped",
                        "legacy": _legacy_summary(legacy),
                    }
                )
            else:
                outcome.shadow = "started"

                async def start() -> None:
                    self._spawn(self._shadow(loopgate, legacy, base), self._shadow_tasks)

                if defer_shadow:
                    outcome.start_shadow = start
                else:
                    await start()
        else:
            self._record({**base, "served_by": "legacy", "legacy": _legacy_summary(legacy)})
        return outcome

    async def _gateway(
        self,
        question: str,
        collection: str,
        loopgate: LoopGateCall,
        user: str | None,
        trace_id: str,
        base: dict[str, Any],
        mode: MigrationMode = MigrationMode.GATEWAY,
    ) -> MigrationOutcome:
        """LoopGate first; the legacy service answers when LoopGate fails or finds nothing."""
        try:
            answer = await loopgate()
            reason = "" if _loopgate_view(answer)[2] else "loopgate_not_found"
            error: Exception | None = None
        except Exception as exc:  # noqa: BLE001 - replaced by the legacy answer when there is one
            answer, reason, error = None, "loopgate_error", exc
        if reason and self.legacy is not None:
            legacy = await self.legacy.ask(
                question, collection=collection, user=user, trace_id=trace_id
            )
            if legacy.ok and (legacy.found or error is not None):
                self._record(
                    {
                        **base,
                        "served_by": "legacy",
                        "fallback": reason,
                        "legacy": _legacy_summary(legacy),
                    }
                )
                return MigrationOutcome(
                    collection,
                    mode,
                    "legacy",
                    legacy=legacy,
                    fallback=reason,
                    loopgate_error=f"{type(error).__name__}: {error}" if error else "",
                )
        if error is not None:
            raise error
        self._record({**base, "served_by": "loopgate"})
        return MigrationOutcome(collection, mode, "loopgate", loopgate=answer)

    async def _shadow(
        self, loopgate: LoopGateCall, legacy: LegacyAnswer, base: dict[str, Any]
    ) -> None:
        """Background LoopGate run: own deadline, every exception captured, one record."""
        rec: dict[str, Any] = {**base, "served_by": "legacy", "legacy": _legacy_summary(legacy)}
        start = time.perf_counter()
        try:
            async with asyncio.timeout(self.shadow_timeout_s):
                answer = await loopgate()
            text, refs, found = _loopgate_view(answer)
            rec["loopgate"] = {
                "ok": True,
                "found": found,
                "citations": len(refs),
                "answer": text[:500],
            }
            rec["shadow"] = "ok"
            if legacy.ok:
                rec["agreement"] = compare(
                    legacy.answer, _legacy_refs(legacy), legacy.found, text, refs, found
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
