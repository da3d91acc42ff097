"""What a parser returns (``corpus.types``): :class:`Block` s with their pages and lines, the
:class:`OutlineEntry` section tree and the whole :class:`ParsedDocument`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Block", "BlockKind", "LineSpan", "OutlineEntry", "ParsedDocument"]

BlockKind = Literal["heading", "text", "table"]


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
    :param warnings: non-fatal problems, each ``"code: explanation"`` (codes in
        ``corpus.errors.WARNING_CODES``: ``replacement_characters``, ``read_by_ocr`` …).
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
