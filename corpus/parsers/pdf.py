"""PDF parser (PyMuPDF): blocks with 1-based physical pages, page labels, line numbers, boxes.

Pipeline per document:

1. open; ``needs_pass`` → ``password_protected`` (case 17); unreadable or no pages →
   ``corrupt_pdf``. MuPDF silently repairs a damaged file (a truncated PDF opens as one blank
   page, case 18): a repaired PDF that yields text is indexed with a ``repaired_pdf:`` warning;
   one that yields none is ``corrupt_pdf``, never an empty or ``no_text`` document. An
   owner-restricted PDF (opens without a password, copy/extract permission cleared) **is
   indexed**, with a warning recorded on the document: the permission bits are advisory and
   the organisation indexing its own documents is their owner's intended reader.
2. visual lines per page (:func:`corpus.parsers._pdf_page.page_lines`), ligatures expanded
   (case 04). Line ``n`` of a page is its n-th visible text line top to bottom, running
   header and footer included, so a person counting lines on the printed page agrees.
3. running headers/footers: a line among the first/last three of a page, in the top/bottom
   12 % of the page (or the page's very first/last line, wherever it sits), whose text with
   digits masked repeats on at least two pages and 20 % of them (``第 1 页 / 共 2 页`` =
   ``第 2 页 / 共 2 页``); bare page numbers opening or closing a page. Both are dropped
   from the text (case 01).
4. table-of-contents pages (six or more lines ending in ascending small page numbers, at
   least 40 % of the page): kept out of the chunks; the outline comes from ``get_toc()`` or
   the headings.
5. ruled tables (pages with a ruling grid only, see ``_pdf_page``) → Markdown ``table`` blocks
   whose rows carry their own page and line; a table that opens a page and has the column
   count of the table closing the previous page continues it: its first row stays a data
   row, and a repeated header row is dropped (case 01).
6. headings: ``get_toc()`` titles found on their page; else lines whose font is ≥ 1.15× the
   body font (the character-weighted most common size, of the document and of the page),
   levels by size; plus numbered headings (``Section 2.3 …``, ``Item 7.``, ``第一章``) on a
   line of their own.
7. scanned pages (images over half the page, under 200 characters of text) are read by OCR
   when Tesseract is installed (``corpus.parsers._pdf_ocr``), with a warning naming them.
8. text-layer quality (``corpus.parsers._pdf_quality``): a page whose text cannot be what it
   shows (unmapped glyphs, private-use characters, implausible CJK) is read by OCR when
   available, else kept out of the index with a ``garbled_text: … needs_ocr: [pages]`` warning.
9. pictures of text on born-digital pages (``corpus.parsers._pdf_mixed``: an image over 5 %
   of the page with no text layer on it): read by OCR where they sit when they read as prose,
   else (no OCR) reported with a ``mixed_scan: … needs_ocr: [pages]`` warning.
10. no text at all: ``needs_ocr`` when the pages hold images (and OCR is unavailable or read
   nothing), else ``no_text``.
"""

from __future__ import annotations

import re
from pathlib import Path

from corpus.errors import ParseError
from corpus.parsers._common import outline_from_blocks, sha256_hex
from corpus.parsers._pdf_blocks import document_blocks
from corpus.parsers._pdf_mixed import read_text_pictures
from corpus.parsers._pdf_ocr import needs_ocr, ocr_languages, ocr_textpage
from corpus.parsers._pdf_page import VLine, page_lines
from corpus.parsers._pdf_quality import screen_pages
from corpus.parsers._pdf_structure import body_size, norm_title, running_lines
from corpus.parsers._pymupdf import pymupdf
from corpus.types import OutlineEntry, ParsedDocument

__all__ = ["parse_pdf", "warned_pages"]

# a PDF warning's kind → how it starts or what it holds; its page list is the last [...]
_PAGE_WARNINGS = (
    ("garbled_text", "garbled_text:"),
    ("mixed_scan", "mixed_scan:"),
    ("read_by_ocr", "read by OCR"),
    ("no_text_layer", "without a text layer"),
)
_PAGE_LIST = re.compile(r"\[([\d, ]+)\]\s*$")


def warned_pages(warnings: list[str]) -> dict[str, list[int]]:
    """The pages a PDF's warnings name, by kind: ``garbled_text`` (kept out of the index),
    ``mixed_scan`` (a picture of text not read), ``read_by_ocr`` (scanned pages and pictures of
    text read by OCR), ``no_text_layer``; 1-based physical pages, at most 20 per warning (as
    the warnings list them). Kinds without pages are left out."""
    out: dict[str, list[int]] = {}
    for w in warnings:
        m = _PAGE_LIST.search(w)
        if m is None:
            continue
        for kind, mark in _PAGE_WARNINGS:
            if w.startswith(mark) or (not mark.endswith(":") and mark in w):
                pages = [int(p) for p in m.group(1).split(",") if p.strip()]
                out[kind] = sorted(set(out.get(kind, [])) | set(pages))
                break
    return out


def _open(path: Path, data: bytes) -> pymupdf.Document:
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError / RuntimeError variants
        raise ParseError("corrupt_pdf", f"{path}: not a readable PDF ({exc})") from exc
    if doc.needs_pass:
        doc.close()
        raise ParseError("password_protected", f"{path}: the PDF is password protected")
    if doc.page_count == 0:
        repaired = doc.is_repaired
        doc.close()
        if repaired:  # MuPDF rebuilt a damaged file and found no page in it
            raise ParseError("corrupt_pdf", f"{path}: the PDF is damaged: no page could be read")
        raise ParseError("no_pages", f"{path}: a well-formed PDF with zero pages (its page "
                                     "tree is empty): nothing to index")
    return doc


def _ocr_lines(page: pymupdf.Page) -> list[VLine] | None:
    tp = ocr_textpage(page)
    return page_lines(page, tp) if tp is not None else None



def parse_pdf(path: Path, data: bytes) -> ParsedDocument:
    """Parse a PDF (see the module docstring for every rule).

    :raises ParseError: ``corrupt_pdf``, ``password_protected``, ``no_pages``, ``needs_ocr``,
        ``no_text``.
    """
    doc = _open(path, data)
    try:
        try:
            parsed = _parse(path, data, doc)
        except ParseError as exc:
            if doc.is_repaired and exc.code == "no_text":
                raise ParseError(
                    "corrupt_pdf",
                    f"{path}: the PDF is damaged (truncated or broken cross-references); "
                    f"MuPDF's repair recovered {doc.page_count} page(s) but no text",
                ) from exc
            raise
        if doc.is_repaired:
            parsed.warnings.insert(
                0,
                "repaired_pdf: the PDF was damaged (truncated or broken cross-references) and "
                "repaired on reading; text may be incomplete",
            )
        return parsed
    finally:
        doc.close()


def _parse(path: Path, data: bytes, doc: pymupdf.Document) -> ParsedDocument:
    warnings: list[str] = []
    if not doc.permissions & pymupdf.PDF_PERM_COPY:  # type: ignore[attr-defined]
        warnings.append(
            "owner_restricted: owner-restricted PDF: its permissions forbid copying/extraction; "
            "indexed anyway (policy: the permission bits are advisory for the document's owner)"
        )
    pages = [doc[i] for i in range(doc.page_count)]
    lines = [page_lines(p) for p in pages]
    scans = [i for i, p in enumerate(pages) if needs_ocr(p, sum(len(v.text) for v in lines[i]))]
    read_by_ocr: list[int] = []
    ocr_ran = 0  # pages OCR ran on (it is installed), whether it found text or not
    for i in scans:
        tp = ocr_textpage(pages[i])
        if tp is not None:
            ocr_ran += 1
            ocr_lines = page_lines(pages[i], tp)
            if ocr_lines:
                lines[i] = ocr_lines
                read_by_ocr.append(i + 1)
    fixed, garbled = screen_pages(lines, lambda ls: "".join(v.text for v in ls),
                                  lambda i: _ocr_lines(pages[i]), {p - 1 for p in read_by_ocr})
    read_by_ocr = sorted(read_by_ocr + fixed)
    pictures, unread_pictures = read_text_pictures(
        pages, lines, {i for i in scans} | {p - 1 for p in read_by_ocr}
    )
    if garbled:
        warnings.append(
            f"garbled_text: {len(garbled)} page(s) whose text layer cannot be what the page "
            f"shows ({', '.join(sorted(set(garbled.values())))}) kept out of the index; "
            f"needs_ocr: {sorted(garbled)[:20]}"
        )
        if not any(lines):
            raise ParseError("needs_ocr", f"{path}: the text layer of every page with text is "
                             f"garbled ({', '.join(sorted(set(garbled.values())))}; a font "
                             "without a usable ToUnicode map): OCR is needed")
    if read_by_ocr:
        warnings.append(
            f"read_by_ocr: {len(read_by_ocr)} scanned page(s) read by OCR ({ocr_languages()}): "
            f"{read_by_ocr[:20]}"
        )
    if pictures:
        warnings.append(
            f"picture_read_by_ocr: {len(pictures)} page(s) with a picture of text read by OCR "
            f"({ocr_languages()}): "
            f"{pictures[:20]}"
        )
    if unread_pictures:
        warnings.append(
            f"mixed_scan: {len(unread_pictures)} page(s) show a picture with no text layer on "
            f"it; text in it is not indexed; needs_ocr: {unread_pictures[:20]}"
        )
    unread_scans = len(scans) - len(read_by_ocr)
    heights = [p.rect.height for p in pages]
    labels: dict[int, str] = {}
    if doc.get_page_labels():
        labels = {i + 1: p.get_label() for i, p in enumerate(pages) if p.get_label()}
    if not any(lines):
        if scans and ocr_ran == len(scans):
            # OCR ran on every page without text and found none (a break-it trial's 1-pixel
            # image was told "OCR is needed" with Tesseract installed)
            raise ParseError("no_text", f"{path}: no text layer, and OCR ({ocr_languages()}) "
                             f"found no text on any of {len(pages)} page(s)")
        if any(p.get_images(full=False) for p in pages):
            raise ParseError(
                "needs_ocr", f"{path}: no text layer on any of {len(pages)} page(s): OCR is needed"
            )
        raise ParseError("no_text", f"{path}: the PDF holds no extractable text")
    no_text = [i + 1 for i, ls in enumerate(lines) if not ls and pages[i].get_images(full=False)]
    if no_text:
        warnings.append(f"no_text_layer: {len(no_text)} page(s) without a text layer (OCR "
                        f"needed): {no_text[:20]}")

    body = body_size(lines)
    toc = doc.get_toc(simple=True)
    toc_titles: dict[str, int] = {}
    for level, title, _pg in toc:
        toc_titles.setdefault(norm_title(title), min(max(level, 1), 6))
    toc_titles.pop("", None)
    drop = running_lines(lines, heights, body, toc_titles)
    big = sorted(
        {round(v.size, 1) for ls in lines for v in ls if v.min_size >= body * 1.15}, reverse=True
    )
    size_levels = {sz: min(i + 1, 6) for i, sz in enumerate(big)}

    blocks, toc_pages = document_blocks(pages, lines, drop, labels, body, size_levels,
                                        toc_titles)
    if toc_pages:
        warnings.append(f"toc_pages_skipped: {toc_pages} table-of-contents page(s) kept out of "
                        "the chunks")
    if not blocks:
        if unread_scans:
            raise ParseError(
                "needs_ocr",
                f"{path}: {unread_scans} scanned page(s) and no other text: OCR is needed "
                "(install Tesseract, e.g. apt-get install tesseract-ocr)",
            )
        raise ParseError("no_text", f"{path}: the PDF holds no text besides page furniture")

    meta_title = ((doc.metadata or {}).get("title") or "").strip()
    if not re.search(r"[^\W\d_]{3,}", meta_title):  # "0000764478-23-000006": an SEC accession no.
        meta_title = ""
    first_heading = next((b.text for b in blocks if b.kind == "heading"), "")
    if toc:
        outline: list[OutlineEntry] = []
        stack: list[str] = []
        for level, title, pg in toc:
            stack = stack[: max(level, 1) - 1] + [title.strip()]
            outline.append(OutlineEntry(title.strip(), level, max(pg, 1), tuple(stack)))
    else:
        outline = outline_from_blocks(blocks)
    return ParsedDocument(
        path=str(path),
        doc_id=sha256_hex(data),
        title=meta_title or first_heading or path.stem,
        media_type="pdf",
        page_count=len(pages),
        blocks=blocks,
        outline=outline,
        warnings=warnings,
        page_labels=labels,
        page_warnings={**{p: "ocr" for p in read_by_ocr + pictures},
                       **{p: "mixed_scan" for p in unread_pictures}},
    )

