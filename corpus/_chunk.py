"""The unit of retrieval and citation (``corpus.types``): :class:`Chunk`, stored as a Qdrant
point payload, and :class:`Citation`, a verified pointer from an answer into a chunk."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any, Literal

from corpus._parsed import LineSpan

__all__ = ["Chunk", "ChunkKind", "Citation", "document_name"]

ChunkKind = Literal["text", "table"]



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
        # a stored payload has exactly the fields: taken whole, not key by key
        kw = dict(data) if data.keys() <= names else {k: data[k] for k in data.keys() & names}
        kw["section_path"] = tuple(kw.get("section_path") or ())
        kw["line_map"] = tuple(map(tuple, kw.get("line_map") or ()))
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


