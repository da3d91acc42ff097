"""File type from the bytes: magic bytes first, the name's extension second (case 18).

A ``.docx`` that is really a PDF, an HTML page saved under ``.docx``, plain text named ``.pdf``
or an old binary Word file renamed ``.docx`` (LightRAG PR#3210, GSA/srt-fbo-scraper#183) must
not reach the wrong parser and come back as a misleading "Package not found" / "BadZipFile".

:func:`choose_kind` decides which parser reads a file:

=============================================  ================================================
content (first 8 KiB)                          parser kind
=============================================  ================================================
``%PDF-`` first (in the first 1 KiB: .pdf)   ``pdf``
``PK\\x03\\x04`` / ``PK\\x05\\x06`` (ZIP)         ``docx`` (its own checks name a non-Word ZIP)
OLE2 ``D0 CF 11 E0 A1 B1 1A E1``               refused: ``unsupported_legacy_doc``
``<!doctype html`` / ``<html`` / ``<body``     ``html`` — only for a binary name (.pdf, .docx)
text (no NUL, under 2 % control bytes)         ``text`` — only for a binary name (.pdf, .docx)
another known binary type (puremagic)          refused: ``unsupported_type`` naming the type
anything else                                  the extension's parser
=============================================  ================================================

Markdown, text and HTML names keep their parser for text-like content (Markdown may start with
``<html>``; a ``.txt`` of HTML source stays text). When the content decides against the name,
the returned warning starts with ``extension_mismatch:`` and ends up on the document and in the
ingest report. The magic table of other types comes from ``puremagic`` (pure Python, no
libmagic); the four signatures above are checked here because they must also match after a BOM
or leading whitespace, which puremagic's fixed-offset matching misses.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from corpus.errors import ParseError

__all__ = ["choose_kind", "sniff"]

_HEAD = 8192
_OLE2 = bytes.fromhex("D0CF11E0A1B11AE1")
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_HTML = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]", re.I | re.S)
_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\v\x1b")
_BINARY_KINDS = ("pdf", "docx")
_LABELS = {"pdf": "PDF", "docx": "a ZIP/Office archive", "html": "HTML", "text": "plain text"}
# puremagic answers that still mean "text" (JSON, XML, CSV …); an empty MIME type is no answer
_TEXTISH_MIME = ("text/", "application/json", "application/xml")


def _looks_like_text(head: bytes) -> bool:
    """No NUL byte (unless a UTF-16 BOM) and under 2 % control bytes other than tab/newlines."""
    if head.startswith(_BOMS):
        return True
    if b"\x00" in head:
        return False
    bad = sum(1 for b in head if b < 0x20 and b not in _TEXT_CONTROLS)
    return bad <= 0.02 * len(head)


def _magic_name(head: bytes) -> tuple[str, str] | None:
    """``(name, mime)`` of the best puremagic match, ``None`` when it knows none."""
    import puremagic

    try:
        matches = puremagic.magic_string(head)
    except (puremagic.PureError, ValueError):
        return None
    if not matches:
        return None
    best = matches[0]
    return best.name, best.mime_type or ""


def sniff(data: bytes, by_name: str = "") -> str | None:
    """The parser kind the bytes say (``pdf``, ``docx``, ``html``, ``text``), ``ole2`` for a
    legacy Office binary, or ``None`` when the content gives no clear answer (empty data, or
    binary of an unknown or unsupported type). ``by_name`` (the extension's kind) only widens
    the PDF test: a ``.pdf`` may carry junk before ``%PDF-`` (readers accept 1 KiB of it)."""
    head = data[:_HEAD]
    body = head.removeprefix(codecs.BOM_UTF8)
    if body.lstrip().startswith(b"%PDF-") or (by_name == "pdf" and b"%PDF-" in head[:1024]):
        return "pdf"
    if head.startswith(_ZIP):
        return "docx"
    if head.startswith(_OLE2):
        return "ole2"
    if _HTML.match(body):
        return "html"
    if head and _looks_like_text(head):
        return "text"
    return None


def choose_kind(path: Path, data: bytes, by_name: str) -> tuple[str, str | None]:
    """The parser kind for ``data`` read from ``path`` whose extension says ``by_name``.

    :param by_name: the kind of the file's suffix (``corpus.parsers.SUPPORTED_SUFFIXES``).
    :returns: ``(kind, warning)``; the warning (``"extension_mismatch: …"``) is ``None`` when the
        content agrees with the name or does not contradict it.
    :raises ParseError: ``unsupported_legacy_doc`` for an OLE2 file (old ``.doc``/``.xls``/
        ``.ppt``), ``unsupported_type`` for another recognised binary type (image, archive …)
        under a PDF/DOCX name.
    """
    found = sniff(data, by_name)
    if found == "ole2":
        raise ParseError(
            "unsupported_legacy_doc",
            f"{path}: a legacy binary Office file (OLE2, e.g. Word 97-2003 .doc), not "
            f"{path.suffix or 'a supported type'}; save it as .docx or PDF",
        )
    if found is None or found == by_name:
        if found is None and by_name in _BINARY_KINDS:
            magic = _magic_name(data[:_HEAD])
            if magic is not None and magic[1] and not magic[1].startswith(_TEXTISH_MIME):
                raise ParseError(
                    "unsupported_type",
                    f"{path}: the content is {magic[0]} ({magic[1]}), not {_LABELS[by_name]}",
                )
        return by_name, None
    if found in _BINARY_KINDS or by_name in _BINARY_KINDS:
        return found, (
            f"extension_mismatch: the content is {_LABELS[found]}, the name says "
            f"{path.suffix}; read as {_LABELS[found]}"
        )
    return by_name, None  # text-like content under a text-like name: the name decides
