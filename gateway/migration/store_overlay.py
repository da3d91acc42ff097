"""Serve mapped existing collections next to LoopGate's own, behind one ``ChunkStore``.

:class:`ExistingCollectionsOverlay` wraps the gateway's chunk store (``QdrantChunkStore``) and a
:class:`~gateway.migration.existing_collection.QdrantExistingCollectionStore`: a collection
named in ``LOOPGATE_EXISTING_COLLECTIONS`` is read from the existing Qdrant collection, every
other collection from LoopGate's store, so the RAG path, the LoopAgent's read/next/prev tools
and the corpus-version cache key work unchanged. Writes to a mapped collection (ingest, delete)
raise ``StoreError`` naming the collection; it has no LoopGate catalogue, so ``records`` is
empty there (the LoopAgent's document directory lists nothing for it — search and reading
work). Anything else is passed to LoopGate's store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from corpus.errors import StoreError
from gateway.migration.existing_collection import QdrantExistingCollectionStore

if TYPE_CHECKING:
    from gateway.settings import Settings

__all__ = ["ExistingCollectionsOverlay", "with_existing_collections"]

_READ = frozenset(
    {
        "collection_meta",
        "get_chunks",
        "neighbour",
        "document_chunks",
        "keyword_search",
        "dense_search",
        "hybrid_search",
    }
)


class ExistingCollectionsOverlay:
    """One ChunkStore over LoopGate's store plus read-only existing collections.

    Usage example::

        store = ExistingCollectionsOverlay(QdrantChunkStore.server(url), existing)
        store.dense_search("legacy-manuals", vector, 5)   # read from the existing collection
        store.dense_search("manuals", vector, 5)          # read from LoopGate's own

    :param main: LoopGate's chunk store.
    :param existing: the mapped existing collections.
    """

    def __init__(self, main: Any, existing: QdrantExistingCollectionStore) -> None:
        self.main = main
        self.existing = existing

    def is_existing(self, collection: object) -> bool:
        """True when ``collection`` is served from an existing (foreign) collection."""
        return isinstance(collection, str) and collection in self.existing.mappings

    def list_collections(self) -> list[str]:
        """LoopGate's collections plus the mapped ones that exist in Qdrant."""
        own = list(self.main.list_collections())
        return own + [c for c in self.existing.list_collections() if c not in own]

    def records(self, collection: str, kind: str,
                limit: int = 10_000_000) -> dict[str, dict[str, Any]]:
        """Catalogue records, at most ``limit`` (none for an existing collection)."""
        if self.is_existing(collection):
            return {}
        return self.main.records(collection, kind, limit)  # type: ignore[no-any-return]

    def close(self) -> None:
        """Close LoopGate's store and the existing collections' client."""
        try:
            self.existing.client.close()
        finally:
            self.main.close()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.main, name)
        if not callable(attr):
            return attr

        def routed(*args: Any, **kw: Any) -> Any:
            collection = args[0] if args else kw.get("collection")
            if self.is_existing(collection):
                if name in _READ:
                    return getattr(self.existing, name)(*args, **kw)
                raise StoreError(
                    f"collection {collection!r} is an existing collection mapped read-only "
                    f"(LOOPGATE_EXISTING_COLLECTIONS); {name} is not possible — re-ingest it "
                    "under another name to manage it with LoopGate"
                )
            return attr(*args, **kw)

        routed.__name__ = name
        return routed


def with_existing_collections(settings: Settings, store: object) -> object:
    """``store`` wrapped with the settings' existing collections, or ``store`` itself when none
    is mapped (or the store failed to open)."""
    if store is None or not settings.existing_collections:
        return store
    from gateway.migration import build_existing_store

    return ExistingCollectionsOverlay(store, build_existing_store(settings))
