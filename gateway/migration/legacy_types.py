"""The legacy RAG service's mapping and answers (:mod:`gateway.migration.legacy` calls it):
:class:`LegacyRagConfig` (checked at construction: :class:`LegacyConfigError`),
:class:`LegacySource` and :class:`LegacyAnswer` (never an exception: ``ok=False`` with an
``error_kind``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from gateway.errors import GatewayError

__all__ = ["ErrorKind", "LegacyAnswer", "LegacyConfigError", "LegacyRagConfig", "LegacySource"]


ErrorKind = Literal["timeout", "connect", "http_status", "malformed"]
_SOURCE_KEYS = ("path", "page", "quote", "score", "chunk_id")
_PLACEHOLDERS = ("question", "collection", "user", "trace_id")


class LegacyConfigError(GatewayError):
    """The legacy-RAG mapping is unusable (bad URL, method, body template or JMESPath)."""

    code = "legacy_config"


@dataclass(frozen=True, slots=True)
class LegacyRagConfig:
    """How to call the legacy RAG service and read its reply.

    :param url: absolute ``http(s)://`` URL of the legacy endpoint.
    :param method: ``POST`` (JSON body) or ``GET`` (query parameters).
    :param body: JSON template (dict) with ``{question}`` … placeholders in string values.
    :param answer_path: JMESPath to the answer text (string; numbers are turned into text).
    :param sources_path: JMESPath to the list of sources; ``""`` = the service gives none.
    :param source_fields: ``path``/``page``/``quote``/``score``/``chunk_id`` → JMESPath on one
        source item; missing keys are simply not read.
    :param found_path: JMESPath to a boolean "found"; ``""`` = found when the answer is non-blank.
    :param headers: extra request headers (e.g. ``{"Authorization": "Bearer …"}``).
    :param timeout_s: whole-call deadline in seconds (connect + send + the entire reply).
    :param max_reply_bytes: replies longer than this are refused as ``malformed``.
    """

    url: str
    method: Literal["POST", "GET"] = "POST"
    body: Mapping[str, Any] = field(default_factory=lambda: {"question": "{question}"})
    answer_path: str = "answer"
    sources_path: str = "sources"
    source_fields: Mapping[str, str] = field(
        default_factory=lambda: {"path": "path", "page": "page", "quote": "text"}
    )
    found_path: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = 10.0
    max_reply_bytes: int = 2_000_000

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise LegacyConfigError(
                f"legacy RAG url must start with http:// or https://: {self.url!r}"
            )
        if self.method not in ("POST", "GET"):
            raise LegacyConfigError(f"legacy RAG method must be POST or GET, not {self.method!r}")
        if not isinstance(self.body, Mapping):
            raise LegacyConfigError("legacy RAG body template must be a JSON object")
        unknown = set(self.source_fields) - set(_SOURCE_KEYS)
        if unknown:
            raise LegacyConfigError(
                f"unknown source field(s) {sorted(unknown)}; allowed: {list(_SOURCE_KEYS)}"
            )
        if not self.answer_path:
            raise LegacyConfigError("legacy RAG answer_path must not be empty")
        if self.timeout_s <= 0:
            raise LegacyConfigError("legacy RAG timeout_s must be > 0")


@dataclass(frozen=True, slots=True)
class LegacySource:
    """One source the legacy service named. Unverified: LoopGate never read that text."""

    path: str = ""
    page: int | None = None
    quote: str = ""
    score: float | None = None
    chunk_id: str = ""


@dataclass(frozen=True, slots=True)
class LegacyAnswer:
    """The legacy service's answer, or a flagged failure (``ok=False``; never an exception).

    :param latency_ms: wall-clock time of the call in milliseconds.
    :param status_code: HTTP status of the reply (0 when none arrived).
    :param warnings: non-fatal oddities (``"sources_path matched nothing"`` …).
    """

    ok: bool
    answer: str = ""
    sources: tuple[LegacySource, ...] = ()
    found: bool = False
    error_kind: ErrorKind | None = None
    error: str = ""
    status_code: int = 0
    latency_ms: float = 0.0
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (route records, API responses)."""
        return asdict(self)
