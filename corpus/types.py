"""Data contracts of the document layer (see ../shared/DESIGN.md, "Key contracts").

Everything above ``corpus`` (``rag``, ``loop``, ``gateway``) speaks in these types:

- :class:`Block` – one structural unit a parser found (heading, paragraph, table) with its
  1-based physical page and 1-based line numbers within that page.
- :class:`ParsedDocument` – a parser's whole output for one file.
- :class:`Chunk` – the unit of retrieval and of citation; stored as a Qdrant point payload.
- :class:`Citation` – a verified pointer from an answer into a chunk.
- :class:`SparseVector` – keyword (BM25) vector; IDF is applied by Qdrant (``Modifier.IDF``).
- :class:`SearchHit` – one chunk returned by a store query, with its score.
- :class:`ChunkStore` – the protocol every chunk-store backend implements.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "Block",
    "BlockKind",
    "Chunk",
    "ChunkKind",
    "ChunkStore",
    "Citation",
    "DocumentInfo",
    "LineSpan",
    "OutlineEntry",
    "ParsedDocument",
    "PassageEmbedder",
    "SearchFilter",
    "SearchHit",
    "SparseVector",
]

BlockKind = Literal["heading", "text", "table"]
ChunkKind = Literal["text", "table"]


@dataclass(frozen=True, slots=True)
class Block:
    """One structural unit of a parsed document.

    :param kind: ``heading``, ``text`` (paragraph / list item / line group) or ``table``
        (Markdown with its header row).
    :param text: the block's text, ligatures expanded (NFKC-safe), original script kept.
    :param page: 1-based physical page index (1 for non-paginated formats).
    :param line_start: 1-based line number of the block's first line within ``page``
        (for non-paginated formats: within the whole file).
    :param line_end: 1-based line number of the block's last line (on ``page_end``).
    :param page_end: last physical page of the block (a paragraph may cross a page break).
    :param level: heading level 1..6 for ``heading`` blocks, else 0.
    :param bbox: ``(x0, y0, x1, y1)`` in PDF points on ``page``, or ``None``.
    :param page_label: the page's printed label (PDF ``/PageLabels``), ``""`` when none.
    :param line_map: for multi-line blocks, ``(offset_in_text, page, line)`` triples marking where
        each source line starts inside ``text``; empty means "all of ``text`` is ``line_start``".
    """

    kind: BlockKind
    text: str
    page: int = 1
    line_start: int = 1
    line_end: int = 1
    page_end: int = 0
    level: int = 0
    bbox: tuple[float, float, float, float] | None = None
    page_label: str = ""
    line_map: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One entry of a document's section tree: heading ``title`` at ``level`` on ``page``."""

    title: str
    level: int
    page: int = 1
    section_path: tuple[str, ...] = ()


@dataclass(slots=True)
class ParsedDocument:
    """What a parser returns for one file.

    :param path: the file's path as given to the parser (the catalogue stores it relative to
        the ingest root when there is one).
    :param doc_id: sha256 hex digest of the file's bytes.
    :param title: document title (PDF metadata or first heading or file stem).
    :param media_type: ``pdf``, ``markdown``, ``text``, ``docx`` or ``html``.
    :param page_count: number of physical pages (1 for non-paginated formats).
    :param blocks: structural blocks in reading order.
    :param outline: section tree (PDF outline when present, else from headings).
    :param warnings: non-fatal problems (``"decoded with replacement characters"``, …).
    :param page_labels: physical page → printed label (PDF ``/PageLabels``).
    :param page_warnings: physical page → why its indexed text is less sure than a text
        layer: ``"ocr"`` (read by OCR, wholly or a picture of text on it) or ``"mixed_scan"``
        (it shows a picture of text that is not indexed); pages without one are absent.
    """

    path: str
    doc_id: str
    title: str
    media_type: str
    page_count: int
    blocks: list[Block]
    outline: list[OutlineEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    page_labels: dict[int, str] = field(default_factory=dict)
    page_warnings: dict[int, str] = field(default_factory=dict)


# (offset in chunk text, 1-based page, 1-based line) where each source line starts.
LineSpan = tuple[int, int, int]


_UNINFORMATIVE_NAME = re.compile(r"[0-9a-f]{16,}|[\d\W_]*", re.I)


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text).lower()


def document_name(path: str) -> str:
    """A readable document name from a stored path: the file name without suffix, ``_`` and
    ``-`` as spaces; ``""`` for hash-like or digit-only names (they say nothing about the
    subject)."""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    if _UNINFORMATIVE_NAME.fullmatch(stem):
        return ""
    return " ".join(re.split(r"[_\-\s]+", stem)).strip()


@dataclass(frozen=True, slots=True)
class Chunk:
    """The unit of retrieval and citation (DESIGN.md "Key contracts").

    :param chunk_id: stable id = document hash + ordinal (``f"{doc_id[:16]}-{ordinal:05d}"``);
        the Qdrant point id is derived from it deterministically.
    :param doc_id: sha256 hex of the document's bytes.
    :param path: document path relative to the collection's ingest root (what citations show).
    :param title: document title.
    :param section_path: headings from the top level down to this chunk's section.
    :param page_start: first 1-based physical page; ``page_end`` the last.
    :param page_label: printed label of ``page_start`` (``""`` when none).
    :param page_labels: printed labels of ``page_start`` … ``page_end`` in order (``()`` when
        the document has none; PDF ``/PageLabels`` via PyMuPDF ``Page.get_label()``).
    :param line_start: 1-based line on ``page_start`` of the first line; ``line_end`` the
        1-based line on ``page_end`` of the last line.
    :param char_start: offset of the chunk in the document's extracted text; ``char_end`` end.
    :param text: the chunk text as shown and quoted (tables as Markdown, header row first).
    :param kind: ``text`` or ``table``.
    :param prev_id: previous chunk of the same document or ``None``; ``next_id`` likewise.
    :param ordinal: 0-based position of the chunk in its document.
    :param line_map: ``(offset, page, line)`` triples: where each source line starts in ``text``;
        lets a quote be mapped back to page and lines (see ``corpus.citations``).
    :param page_warning: ``"mixed_scan"`` or ``"ocr"`` when a page of the chunk has that page
        warning (``ParsedDocument.page_warnings``; ``mixed_scan`` first), else ``""``: evidence
        from it is less sure (``rag.retriever`` lowers the retrieval's confidence).
    """

    chunk_id: str
    doc_id: str
    path: str
    title: str
    section_path: tuple[str, ...]
    page_start: int
    page_end: int
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    text: str
    kind: ChunkKind = "text"
    prev_id: str | None = None
    next_id: str | None = None
    ordinal: int = 0
    page_label: str = ""
    line_map: tuple[LineSpan, ...] = ()
    page_labels: tuple[str, ...] = ()
    page_warning: str = ""

    def label_of(self, page: int) -> str:
        """Printed label of physical ``page`` of this chunk (``""`` when unknown)."""
        i = page - self.page_start
        if 0 <= i < len(self.page_labels):
            return self.page_labels[i]
        return self.page_label if page == self.page_start else ""

    def to_payload(self) -> dict[str, Any]:
        """Return the chunk as a JSON-safe dict (the Qdrant point payload)."""
        data = asdict(self)
        data["section_path"] = list(self.section_path)
        data["line_map"] = [list(t) for t in self.line_map]
        return data

    @classmethod
    def from_payload(cls, data: dict[str, Any]) -> Chunk:
        """Rebuild a chunk from :meth:`to_payload` output (unknown keys are ignored)."""
        names = cls.__dataclass_fields__.keys()
        kw = {k: v for k, v in data.items() if k in names}
        kw["section_path"] = tuple(kw.get("section_path") or ())
        kw["line_map"] = tuple(tuple(t) for t in kw.get("line_map") or ())
        kw["page_labels"] = tuple(kw.get("page_labels") or ())
        return cls(**kw)

    @property
    def section(self) -> str:
        """The section path joined with `` > `` (``""`` at top level)."""
        return " > ".join(self.section_path)

    def table_header(self) -> str:
        """The first Markdown table line of the chunk (a table's header row, repeated on every
        row group), or ``""``: the column names a table row's evidence is read under."""
        return next((ln for ln in self.text.splitlines() if ln.lstrip().startswith("|")), "")

    def context_text(self) -> str:
        """Text that is embedded and keyword-indexed: document name, title, section path, then
        the chunk text, so a chunk carries its document's subject (issue 3, item 2).

        The document name is the file name without suffix, ``_``/``-`` read as spaces
        (``BESTBUY_2023_10K.pdf`` → ``BESTBUY 2023 10K``), left out when it is a hash or a
        number or already in the title: PDF titles are often an SEC accession number or
        ``UNITED STATES`` while file names name the company, year and form."""
        name = document_name(self.path)
        if name and _squash(name) in _squash(self.title):
            name = ""
        head = " > ".join(p for p in (name, self.title, *self.section_path) if p)
        return f"{head}\n{self.text}" if head else self.text


@dataclass(frozen=True, slots=True)
class Citation:
    """A verified pointer from an answer into a chunk that was read.

    :param chunk_id: the cited chunk.
    :param path: document path; ``section_path`` its headings.
    :param page: 1-based physical page where the quote starts; ``page_end`` where it ends.
    :param lines: ``(first, last)`` 1-based line numbers of the quote (first on ``page``,
        last on ``page_end``).
    :param quote: verbatim text found in the chunk (after whitespace normalisation).
    :param bbox: optional ``(x0, y0, x1, y1)`` on the PDF page.
    :param page_label: the printed label of ``page`` (``"3"`` on physical page 5 of a document
        numbered i, ii, 1, …), ``page_end_label`` of ``page_end``; ``""`` when the document has
        no labels. ``page`` stays the physical page (what the eval scorer scores).
    """

    chunk_id: str
    path: str
    section_path: tuple[str, ...]
    page: int
    lines: tuple[int, int]
    quote: str
    page_end: int = 0
    bbox: tuple[float, float, float, float] | None = None
    doc_id: str = ""
    page_label: str = ""
    page_end_label: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (API responses, route records, eval results)."""
        data = asdict(self)
        data["section_path"] = list(self.section_path)
        data["lines"] = list(self.lines)
        return data


@dataclass(frozen=True, slots=True)
class SparseVector:
    """A sparse keyword vector: parallel ``indices`` (term hashes, uint32) and ``values``."""

    indices: tuple[int, ...]
    values: tuple[float, ...]

    def is_empty(self) -> bool:
        """True when the vector has no terms (Qdrant must never be sent one)."""
        return not self.indices


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Optional restriction of a search: to documents (by id or path) and/or a section prefix."""

    doc_ids: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    section_prefix: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        """True when nothing is restricted."""
        return not (self.doc_ids or self.paths or self.section_prefix)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One chunk returned by a store query; ``score`` is the backend's (cosine, BM25 or RRF)."""

    chunk: Chunk
    score: float


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A catalogue entry: one document of a collection.

    ``text_key`` / ``loose_key``: sha256 hex of the document's normalised text
    (``corpus.text_identity.document_key`` / ``loose_key``; ``""`` for entries written before
    they existed): ingest refuses a second document with the same ``text_key`` as a duplicate
    and flags one with the same ``loose_key`` as a probable duplicate.
    """

    doc_id: str
    path: str
    title: str
    media_type: str
    page_count: int
    chunk_count: int
    ingested_at: float = 0.0
    has_dense: bool = False
    text_key: str = ""
    loose_key: str = ""


@runtime_checkable
class PassageEmbedder(Protocol):
    """What the ingest pipeline needs from a dense embedder (implemented in ``rag.embedder``;
    ``corpus`` never imports ``rag`` — the gateway passes the object in).

    :ivar model_name: model identifier stored with the collection (checked at start-up).
    :ivar dim: vector size.
    """

    model_name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages (the embedder adds any model prefix such as e5's ``"passage: "``)."""


@runtime_checkable
class ChunkStore(Protocol):
    """Chunk storage and search for one or more collections (Qdrant; DESIGN.md "Layers").

    Implementations: ``corpus.qdrant_store.QdrantChunkStore`` (qdrant-edge-py embedded engine or a
    Qdrant server through qdrant-client). All methods raise ``corpus.errors.StoreError`` on
    backend failures (original exception chained).
    """

    def ensure_collection(
        self, collection: str, *, dense_dim: int | None, embed_model: str | None
    ) -> None:
        """Create the collection if missing (named vectors ``dense`` and sparse ``bm25``)."""

    def collection_meta(self, collection: str) -> dict[str, Any]:
        """Stored metadata: ``embed_model``, ``dense_dim``, ``corpus_version`` …
        (``{}`` if none)."""

    def list_collections(self) -> list[str]:
        """Names of the collections that exist."""

    def upsert_chunks(
        self,
        collection: str,
        chunks: Sequence[Chunk],
        sparse: Sequence[SparseVector],
        dense: Sequence[Sequence[float]] | None = None,
    ) -> None:
        """Write chunks with their sparse (and optionally dense) vectors."""

    def delete_document(self, collection: str, doc_id: str) -> int:
        """Delete every chunk of ``doc_id``; returns how many were deleted."""

    def get_chunks(self, collection: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Chunks by id, in the order asked; unknown ids are skipped."""

    def neighbour(self, collection: str, chunk_id: str, step: int) -> Chunk | None:
        """The chunk ``step`` positions away in the same document (``+1`` next, ``-1`` previous)."""

    def document_chunks(self, collection: str, doc_id: str) -> list[Chunk]:
        """All chunks of a document in order."""

    def keyword_search(
        self, collection: str, query: SparseVector, top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Sparse BM25 search (IDF applied by Qdrant)."""

    def dense_search(
        self, collection: str, vector: Sequence[float], top_k: int, flt: SearchFilter | None = None
    ) -> list[SearchHit]:
        """Dense cosine search."""

    def hybrid_search(
        self,
        collection: str,
        vector: Sequence[float] | None,
        query: SparseVector,
        top_k: int,
        *,
        prefetch_k: int = 50,
        flt: SearchFilter | None = None,
    ) -> list[SearchHit]:
        """Dense and ``bm25`` prefetches fused by reciprocal rank fusion in one Qdrant query."""
