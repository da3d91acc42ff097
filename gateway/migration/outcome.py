"""What one migrated question got (:class:`MigrationOutcome`, returned by
:meth:`gateway.migration.dispatcher.MigrationDispatcher.dispatch`), and the views of a LoopGate
and a legacy answer the migration log compares."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gateway.migration.agreement import SourceRef
from gateway.migration.legacy_types import LegacyAnswer
from gateway.migration.modes import MigrationMode

__all__ = ["MigrationOutcome", "legacy_refs", "legacy_summary", "loopgate_view"]


def get_field(obj: Any, name: str, default: Any = None) -> Any:
    """Attribute or mapping key (LoopGate answers may be dataclasses, models or dicts)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def loopgate_view(answer: Any) -> tuple[str, list[SourceRef], bool]:
    """Answer text, cited (path, page) and found flag of a LoopGate answer object."""
    text = str(get_field(answer, "answer", "") or "")
    refs = [
        SourceRef(str(get_field(c, "path", "") or ""), get_field(c, "page"))
        for c in get_field(answer, "citations", ()) or ()
    ]
    return text, refs, bool(get_field(answer, "found", bool(text.strip())))


def legacy_refs(legacy: LegacyAnswer) -> list[SourceRef]:
    return [SourceRef(s.path, s.page) for s in legacy.sources]


def legacy_summary(legacy: LegacyAnswer) -> dict[str, Any]:
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
            out["legacy"] = {k: v for k, v in legacy_summary(self.legacy).items() if k != "answer"}
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
