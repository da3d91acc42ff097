"""Errors of the document layer.

Hierarchy (``LoopGateError`` is the root of every error LoopGate raises)::

    LoopGateError
     ├── CorpusError                 document layer
     │    ├── ParseError             one file could not be parsed (``code`` + message)
     │    ├── StoreError             the chunk store (Qdrant) failed; backend error chained
     │    ├── OutsideRootError       an ingest path lies outside the ingest root (a ValueError)
     │    └── IngestCancelled        an ingest was asked to stop; the file being written rolled back
     ├── RetrievalError              (rag.errors)
     ├── LoopError                   (loop.errors)
     └── GatewayError                (gateway.errors)

``ParseError.code`` is one of the stable codes in :data:`PARSE_ERROR_CODES`; the CLI and the
API show it per file.
"""

from __future__ import annotations

__all__ = [
    "CorpusError",
    "IngestCancelled",
    "LoopGateError",
    "OutsideRootError",
    "PARSE_ERROR_CODES",
    "ParseError",
    "StoreError",
    "WARNING_CODES",
]

PARSE_ERROR_CODES = {
    "password_protected": "the PDF needs a password to open",
    "corrupt": "the file is damaged or not of the type its name says",
    "corrupt_pdf": "the PDF is damaged (truncated, broken cross-references) beyond repair",
    "corrupt_archive": "the DOCX (ZIP) archive is damaged or truncated",
    "unsupported_legacy_doc": "a legacy binary Office file (OLE2 .doc/.xls/.ppt): not supported",
    "empty_file": "the file has zero bytes",
    "no_pages": "a well-formed PDF with zero pages",
    "needs_ocr": "no text layer (scanned pages): OCR is needed",
    "decompression_limit": "the archive would inflate beyond the safety limit (zip bomb)",
    "undecodable": "the text encoding could not be determined",
    "undecodable_name": "the file's name or folder is not valid UTF-8: rename it to index it",
    "control_char_name": "the file's name holds a control character: rename it to index it",
    "unsupported_type": "this file type is not supported",
    "vanished": "the file disappeared or became unreadable during the run",
    "no_text": "the document holds no extractable text",
    "extraction_forbidden": "the PDF's permissions forbid text extraction",
}


# Non-fatal findings on an ingested document: each warning text starts with ``code:``.
WARNING_CODES = {
    "extension_mismatch": "the content is another type than the name says; read by content",
    "repaired_pdf": "the PDF was damaged and repaired by MuPDF; text may be incomplete",
    "probable_duplicate": "the same text (ignoring layout) as another document of the collection",
    "encoding_guessed": "no byte-order mark and not UTF-8: decoded with a detector's guess",
    "replacement_characters": "mostly UTF-8 with a few bad bytes: those became U+FFFD",
    "owner_restricted": "the PDF's permissions forbid copying; indexed anyway (advisory bits)",
    "read_by_ocr": "scanned pages (no usable text layer) were read by OCR",
    "picture_read_by_ocr": "pictures of text on born-digital pages were read by OCR",
    "no_text_layer": "pages showing a picture, with no text layer and none from OCR: not indexed",
    "garbled_text": "pages whose text layer cannot be what they show: kept out of the index",
    "mixed_scan": "a picture of text on a page, OCR unavailable: its text is not indexed",
    "toc_pages_skipped": "table-of-contents pages were kept out of the chunks",
    "outline_truncated": "a very long outline: only its top levels are kept in the catalogue",
    "directory_failed": "the document's directory entries could not be stored (still indexed)",
    "embed_runtime_differs": "the collection's vectors were made by another embedding runtime",
    "collection_not_created": "no document could be ingested: the new collection was not kept",
}


class LoopGateError(Exception):
    """Root of every error LoopGate raises."""


class CorpusError(LoopGateError):
    """A document-layer failure."""


class ParseError(CorpusError):
    """One file could not be parsed.

    :param code: a key of :data:`PARSE_ERROR_CODES`.
    :param message: a human-readable explanation naming the file.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class StoreError(CorpusError):
    """The chunk store failed (Qdrant unreachable, locked, schema mismatch …)."""


class OutsideRootError(CorpusError, ValueError):
    """A path given to an ingest lies outside its root (``--root``): nothing was written."""


class IngestCancelled(CorpusError):
    """An ingest run was asked to stop (``Ingestor.ingest_paths(cancel=...)``) between two
    write batches: the document being written was rolled back (its staged chunks deleted, the
    previous version, if any, still the one searched); files finished before it stay."""
