"""A :class:`corpus.types.SearchFilter` from the names a caller gives (``loopgate ask --doc
… --path-prefix …``, the HTTP API's ``filters``): document paths, file names or ids, a path
prefix and a section prefix, resolved through the collection's catalogue
(:func:`resolve_filter`; re-exported by ``rag.retriever``)."""

from __future__ import annotations

from collections.abc import Sequence

from corpus.types import ChunkStore, SearchFilter

__all__ = ["resolve_filter"]


def resolve_filter(
    store: ChunkStore,
    collection: str,
    *,
    documents: Sequence[str] = (),
    path_prefix: str = "",
    section_prefix: Sequence[str] = (),
) -> SearchFilter | None:
    """Build a :class:`SearchFilter` from user-facing names via the collection's catalogue.

    :param documents: document paths, file names (unique path suffixes) or ``doc_id`` s.
    :param path_prefix: keep documents whose path starts with this (``"financebench/"``).
    :param section_prefix: keep chunks under these headings (top level first).
    :returns: the filter, or ``None`` when nothing restricts.
    :raises RetrievalError: a named document, or the prefix, matches no document.
    """
    from corpus.catalogue import Catalogue
    from rag.errors import RetrievalError

    if not documents and not path_prefix and not section_prefix:
        return None
    cat = Catalogue(store)  # type: ignore[arg-type]
    doc_ids: list[str] = []
    for name in documents:
        entry = cat.find(collection, name)
        if entry is None:
            raise RetrievalError(f"no single document of {collection!r} matches {name!r}")
        doc_ids.append(entry.info.doc_id)
    if path_prefix:
        pref = path_prefix.lstrip("./")
        found = [d.doc_id for d in cat.documents(collection) if d.path.startswith(pref)]
        if not found:
            raise RetrievalError(f"no document of {collection!r} has a path under {pref!r}")
        doc_ids = [d for d in doc_ids if d in found] if documents else found
        if not doc_ids:
            raise RetrievalError("the named documents are not under the path prefix")
    return SearchFilter(doc_ids=tuple(dict.fromkeys(doc_ids)), section_prefix=tuple(section_prefix))
