"""The outcome of document resolution (:class:`Resolution`): the documents a question names,
as :meth:`rag.resolve.DocumentResolver.resolve` found them, and what retrieval and the answer
read of it (:attr:`Resolution.filter`, :meth:`Resolution.other_organisation`). No I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from corpus.types import SearchFilter

__all__ = ["Resolution"]


@dataclass(frozen=True)
class Resolution:
    """The outcome of :meth:`DocumentResolver.resolve`.

    :param doc_ids: the resolved documents (empty when unsure or nothing named).
    :param paths: their paths, same order.
    :param entity_terms: the question terms that named documents.
    :param years: the question's years.
    :param sure: True when retrieval should run inside ``doc_ids``.
    :param reason: one line for the route record (``"3m + 2018 → 1 document"``).
    :param unknown_subjects: organisations the question asks about that no document's identity
        names (:meth:`DocumentResolver.unknown_subjects`).
    :param issuer_docs: doc ids of the documents whose cover names an issuer.
    """

    doc_ids: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    entity_terms: tuple[str, ...] = ()
    years: tuple[int, ...] = ()
    sure: bool = False
    reason: str = ""
    #: organisations the question asks about ("Walmart's revenue", "revenue for Boeing in
    #: 2022") that no document's identity names, and the documents with an issuer of their own:
    #: an answer from one of those is another organisation's figure (rag.decision)
    unknown_subjects: tuple[str, ...] = ()
    issuer_docs: frozenset[str] = frozenset()

    def other_organisation(self, doc_id: str) -> str | None:
        """The flag ``other_organisation:<names>`` when an answer quoted from ``doc_id`` would be
        another issuer's figure for a question about an organisation no document is by or about
        (:attr:`unknown_subjects`, ``doc_id`` in :attr:`issuer_docs`), else ``None``."""
        if self.unknown_subjects and doc_id in self.issuer_docs:
            return "other_organisation:" + ",".join(self.unknown_subjects)
        return None

    @property
    def filter(self) -> SearchFilter | None:
        """The resolved documents as a search filter when resolution is sure of at least one,
        else ``None`` (search the whole collection)."""
        return SearchFilter(doc_ids=self.doc_ids) if self.sure and self.doc_ids else None
