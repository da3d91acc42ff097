"""Gradual migration from an existing RAG service (docs/migration.md).

- :mod:`gateway.migration.legacy` — HTTP adapter of the legacy service (mapping in settings);
- :mod:`gateway.migration.modes` — proxy / shadow / canary / gateway per collection, the
  canary split;
- :mod:`gateway.migration.dispatcher` — the dispatcher the query route calls (shadow runs in
  the background);
- :mod:`gateway.migration.agreement` — citation overlap, answer similarity, the migration log;
- :mod:`gateway.migration.existing_collection` — read an existing Qdrant collection through a
  payload mapping.

:func:`build_dispatcher` assembles the dispatcher from :class:`gateway.settings.Settings`; it
returns ``None`` when nothing is configured (every collection in ``gateway`` mode and no legacy
URL), so the query route can skip migration entirely.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from corpus.errors import StoreError
from gateway.migration.agreement import (
    Agreement,
    MigrationLog,
    SourceRef,
    answer_similarity,
    citation_overlap,
    compare,
)
from gateway.migration.dispatcher import MigrationDispatcher
from gateway.migration.legacy import LegacyRagClient
from gateway.migration.legacy_types import (
    LegacyAnswer,
    LegacyConfigError,
    LegacyRagConfig,
    LegacySource,
)
from gateway.migration.modes import (
    CollectionMigration,
    LoopGateCall,
    MigrationMode,
    MigrationPolicy,
    canary_bucket,
    canary_selects_loopgate,
)
from gateway.migration.outcome import MigrationOutcome
from gateway.settings import Settings

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = [
    "Agreement",
    "CollectionMigration",
    "LegacyAnswer",
    "LegacyConfigError",
    "LegacyRagClient",
    "LegacyRagConfig",
    "LegacySource",
    "LoopGateCall",
    "MigrationDispatcher",
    "MigrationLog",
    "MigrationMode",
    "MigrationOutcome",
    "MigrationPolicy",
    "SourceRef",
    "answer_similarity",
    "build_dispatcher",
    "build_existing_store",
    "canary_bucket",
    "canary_selects_loopgate",
    "citation_overlap",
    "compare",
    "legacy_config_from_settings",
]


def legacy_config_from_settings(settings: Settings) -> LegacyRagConfig | None:
    """The legacy mapping from ``LOOPGATE_LEGACY_RAG_*`` (``None`` when no URL is set)."""
    if not settings.legacy_rag_url:
        return None
    headers = dict(settings.legacy_rag_headers)
    if settings.legacy_rag_api_key is not None:
        headers.setdefault(
            "Authorization", f"Bearer {settings.legacy_rag_api_key.get_secret_value()}"
        )
    return LegacyRagConfig(
        url=settings.legacy_rag_url,
        method=settings.legacy_rag_method,
        body=json.loads(settings.legacy_rag_body),
        answer_path=settings.legacy_rag_answer_path,
        sources_path=settings.legacy_rag_sources_path,
        source_fields=dict(settings.legacy_rag_source_fields),
        found_path=settings.legacy_rag_found_path,
        headers=headers,
        timeout_s=settings.legacy_rag_timeout_s,
    )


def build_dispatcher(settings: Settings, redis: Redis | None = None) -> MigrationDispatcher | None:
    """The migration dispatcher for these settings, or ``None`` when migration is off.

    :param redis: a ``redis.asyncio.Redis`` (shared counters and records across replicas), or
        ``None`` for in-process ones.
    :raises LegacyConfigError: a mode needs the legacy service but none is configured, or the
        mapping is invalid (bad URL, JMESPath …).
    """
    policy = MigrationPolicy.from_strings(
        settings.migration_modes,
        settings.migration_default_mode,
        settings.migration_canary_percent,
        settings.migration_canary_key,
    )
    config = legacy_config_from_settings(settings)
    if config is None and not policy.needs_legacy():
        return None
    return MigrationDispatcher(
        policy,
        LegacyRagClient(config) if config is not None else None,
        MigrationLog(
            redis,
            prefix=f"{settings.redis_key_prefix}migration",
            max_records=settings.routelog_max_records,
            timeout_s=settings.timeout_cache_s,
        ),
        shadow_timeout_s=settings.migration_shadow_timeout_s,
        shadow_max_concurrency=settings.migration_shadow_max_concurrency,
    )


def build_existing_store(settings: Settings, client: Any = None) -> Any:
    """A :class:`~gateway.migration.existing_collection.QdrantExistingCollectionStore` for
    ``LOOPGATE_EXISTING_COLLECTIONS`` (``None`` when none is mapped).

    :param client: a ``QdrantClient``; default: one for ``LOOPGATE_QDRANT_URL`` (which must be
        set — an existing collection lives on a Qdrant server).
    :raises corpus.errors.StoreError: a mapping is invalid or no Qdrant URL is configured.
    """
    if not settings.existing_collections:
        return None
    from gateway.migration.existing_collection import (
        PayloadMapping,
        QdrantExistingCollectionStore,
    )

    mappings = {
        name: PayloadMapping.from_dict(m) for name, m in settings.existing_collections.items()
    }
    if client is None:
        if not settings.qdrant_url:
            raise StoreError(
                "LOOPGATE_EXISTING_COLLECTIONS needs LOOPGATE_QDRANT_URL (the server holding them)"
            )
        from qdrant_client import QdrantClient

        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        client = QdrantClient(url=settings.qdrant_url, api_key=key)
    return QdrantExistingCollectionStore(client, mappings)
