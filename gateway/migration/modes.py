"""Migration modes per collection and the canary split (the dispatcher that applies them is
:mod:`gateway.migration.dispatcher`).

Modes (docs/migration.md, "Migrate from an existing RAG, step by step"):

- ``proxy``   — the legacy service answers; LoopGate is not run; the exchange is recorded.
- ``shadow``  — the legacy service answers; LoopGate answers the same question in a background
  task (own deadline, own exception capture, bounded concurrency) and both answers and their
  agreement are recorded. The user's answer never waits for, or fails because of, that task.
- ``canary``  — a stable hash of the user id (or, without one, of the normalised question)
  sends ``canary_percent`` % of questions to LoopGate, the rest to the legacy service. A LoopGate
  failure on a canary question is answered by the legacy service (recorded as a fallback).
- ``gateway`` — LoopGate only; when LoopGate fails or finds nothing and a legacy service is
  configured, the legacy answer is served instead (``fallback = loopgate_error`` /
  ``loopgate_not_found``).

The canary bucket is ``sha256(collection + "\\0" + key)`` read as a 64-bit integer scaled to
``[0, 100)``: the same key always lands in the same bucket in every process and replica (unlike
``hash()``), and raising the percentage only ever adds keys to LoopGate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from gateway.migration.legacy_types import LegacyConfigError

__all__ = [
    "CollectionMigration",
    "LoopGateCall",
    "MigrationMode",
    "MigrationPolicy",
    "canary_bucket",
    "canary_selects_loopgate",
]

LoopGateCall = Callable[[], Awaitable[Any]]
"""Zero-argument coroutine factory that answers the question with LoopGate (the route's closure)."""


class MigrationMode(StrEnum):
    """How one collection's questions are split between the legacy service and LoopGate."""

    PROXY = "proxy"
    SHADOW = "shadow"
    CANARY = "canary"
    GATEWAY = "gateway"


@dataclass(frozen=True, slots=True)
class CollectionMigration:
    """A collection's mode; ``canary_percent`` in ``[0, 100]`` is used by ``canary`` only."""

    mode: MigrationMode = MigrationMode.GATEWAY
    canary_percent: float = 0.0

    @classmethod
    def parse(cls, text: str, default_percent: float = 10.0) -> CollectionMigration:
        """Parse ``"shadow"``, ``"canary"`` or ``"canary:25"``; raises LegacyConfigError."""
        name, _, pct = text.strip().lower().partition(":")
        try:
            mode = MigrationMode(name)
        except ValueError:
            raise LegacyConfigError(
                f"unknown migration mode {text!r}; use proxy, shadow, canary[:N] or gateway"
            ) from None
        percent = default_percent
        if pct:
            try:
                percent = float(pct)
            except ValueError:
                raise LegacyConfigError(f"canary percentage must be a number: {text!r}") from None
        if not 0 <= percent <= 100:
            raise LegacyConfigError(f"canary percentage must be within 0..100: {text!r}")
        return cls(mode, percent if mode is MigrationMode.CANARY else 0.0)


@dataclass(frozen=True, slots=True)
class MigrationPolicy:
    """Modes per collection; collections not listed get ``default``.

    :param canary_key: ``user`` hashes the caller id when the request has one (falling back to
        the question), ``question`` always hashes the normalised question.
    """

    modes: Mapping[str, CollectionMigration] = field(default_factory=dict)
    default: CollectionMigration = CollectionMigration()
    canary_key: Literal["user", "question"] = "user"

    @classmethod
    def from_strings(
        cls,
        modes: Mapping[str, str],
        default: str = "gateway",
        canary_percent: float = 10.0,
        canary_key: Literal["user", "question"] = "user",
    ) -> MigrationPolicy:
        """Build from settings strings (``{"manuals": "canary:25"}``)."""
        return cls(
            {c: CollectionMigration.parse(m, canary_percent) for c, m in modes.items()},
            CollectionMigration.parse(default, canary_percent),
            canary_key,
        )

    def for_collection(self, collection: str) -> CollectionMigration:
        """The collection's mode (or the default)."""
        return self.modes.get(collection, self.default)

    def needs_legacy(self) -> bool:
        """True when some collection (or the default) sends questions to the legacy service."""
        return any(
            m.mode is not MigrationMode.GATEWAY for m in (self.default, *self.modes.values())
        )


def canary_bucket(key: str, salt: str = "") -> float:
    """Stable bucket of ``key`` in ``[0, 100)`` (sha256 of ``salt + "\\0" + key``)."""
    digest = hashlib.sha256(f"{salt}\0{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 * 100.0


def canary_selects_loopgate(key: str, percent: float, salt: str = "") -> bool:
    """True when ``key`` falls in the first ``percent`` % of buckets."""
    return canary_bucket(key, salt) < percent
