"""Document parsers: one file in, one :class:`~corpus.types.ParsedDocument` out.

``parse_file(path)`` dispatches on the content first, the file suffix second
(:mod:`corpus.parsers._sniff`: a PDF named ``.docx`` is read as PDF, an OLE2 ``.doc`` renamed
``.docx`` is refused as ``unsupported_legacy_doc``; a mismatch is recorded on the document as an
``extension_mismatch:`` warning). Suffixes and parsers:

===================  ==========================  ==================================
suffix               module                      library
===================  ==========================  ==================================
.pdf                 :mod:`corpus.parsers.pdf`   PyMuPDF (text, fonts, find_tables)
.md .markdown        ``markdown``                markdown-it-py
.txt .text           ``text``                    codecs + charset-normalizer
.docx                ``docx``                    python-docx (after a zip-bomb check)
.html .htm           ``html``                    selectolax
===================  ==========================  ==================================

Contract: the file is read once; ``doc_id`` is the sha256 of exactly those bytes; the result
is plain picklable data (safe to return from a worker process); a parser never writes
anything, so a failure leaves no partial state. Every failure is a
:class:`~corpus.errors.ParseError` whose ``code`` is a key of
:data:`corpus.errors.PARSE_ERROR_CODES`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from corpus.errors import ParseError
from corpus.parsers._common import read_bytes
from corpus.parsers._sniff import choose_kind
from corpus.types import ParsedDocument

__all__ = ["SUPPORTED_SUFFIXES", "parse_bytes", "parse_file"]

SUPPORTED_SUFFIXES = {
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
}


def _parser(kind: str) -> Callable[[Path, bytes], ParsedDocument]:
    if kind == "pdf":
        from corpus.parsers.pdf import parse_pdf

        return parse_pdf
    if kind == "markdown":
        from corpus.parsers.markdown import parse_markdown

        return parse_markdown
    if kind == "text":
        from corpus.parsers.text import parse_text

        return parse_text
    if kind == "docx":
        from corpus.parsers.docx import parse_docx

        return parse_docx
    from corpus.parsers.html import parse_html

    return parse_html


def _kind(path: Path) -> str:
    """The parser kind for ``path``'s suffix; ``unsupported_type`` for any other suffix."""
    kind = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise ParseError(
            "unsupported_type",
            f"{path}: unsupported file type {path.suffix or '(no suffix)'!r}; supported: "
            + " ".join(sorted(SUPPORTED_SUFFIXES)),
        )
    return kind


def parse_bytes(path: Path, data: bytes) -> ParsedDocument:
    """Parse ``data`` from the file ``path``: the bytes decide the format where they are clear,
    else the suffix (see :func:`corpus.parsers._sniff.choose_kind`).

    :returns: the parsed document; when content and name disagree, its ``warnings`` start with
        ``"extension_mismatch: …"``.
    :raises ParseError: ``unsupported_type``, ``empty_file``, ``unsupported_legacy_doc`` or the
        parser's own codes; an unexpected library failure becomes ``corrupt`` with the cause
        chained.
    """
    by_name = _kind(path)
    if not data:
        raise ParseError("empty_file", f"{path}: the file has zero bytes")
    kind, mismatch = choose_kind(path, data, by_name)
    try:
        doc = _parser(kind)(path, data)
        if mismatch:
            doc.warnings.insert(0, mismatch)
        return doc
    except ParseError:
        raise
    except MemoryError:
        raise
    except Exception as exc:  # library failure on a damaged file: one clear per-file error
        raise ParseError(
            "corrupt", f"{path}: could not parse as {kind} ({type(exc).__name__}: {exc})"
        ) from exc


def parse_file(path: Path) -> ParsedDocument:
    """Parse one file.

    :param path: file to read; its suffix must be supported (``SUPPORTED_SUFFIXES``); the
        content, then the suffix, selects the parser (:func:`parse_bytes`).
    :returns: the parsed document (``doc_id`` = sha256 of the bytes read).
    :raises ParseError: ``unsupported_type`` (checked before reading), ``vanished``,
        ``empty_file``, ``corrupt``, ``corrupt_pdf``, ``corrupt_archive``,
        ``unsupported_legacy_doc``, ``password_protected``, ``needs_ocr``,
        ``decompression_limit``, ``undecodable``, ``no_text``.
    """
    path = Path(path)
    _kind(path)  # unsupported_type before reading anything
    return parse_bytes(path, read_bytes(path))
