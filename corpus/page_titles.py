"""Page heads of a paginated document: the title block at the top of each page and the chunks on
the page (issue 15, item 2: page-level navigation in long PDFs).

A financial statement, a slide or a form page states what it is in its first lines ("3M Company
and Subsidiaries / Consolidated Balance Sheet / At December 31 / (Dollars in millions …)"), but
the chunker cuts by size, so the chunk holding the page's rows rarely holds that title: it sits
at the end of the previous chunk, and a question naming the statement cannot reach the rows.
The page head keeps the title with the page.

Rule (layout-free, from the chunks' ``line_map``; running headers and page numbers are already
removed by the parser)::

    page lines   = the page's source lines in order, each once (overlapping chunks)
    title block  = the leading lines of the page while they look like a title: at most
                   ``max_chars_per_line`` characters, not a sentence (no final full stop after
                   40 characters), and no number other than a year or a note / item number
                   (a table row "Cash and cash equivalents $ 2,853" ends the block)
    head         = at most ``max_lines`` title lines joined with " / "

Pages with no title-like first line get an empty head. Documents without pages (Markdown, text)
have page 1 only, whose head is the document's first lines.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from corpus.types import Chunk

__all__ = [
    "PAGES_VERSION",
    "PageHead",
    "PageHeadsBuilder",
    "heads_from_data",
    "heads_to_data",
    "page_heads",
    "title_lines",
]

#: bump when the head rule changes: stored page records of another version are rebuilt
PAGES_VERSION = 1

_NUMBER = re.compile(r"(?<![\w.])[$€£¥(]?\d[\d,.]*%?\)?(?![\w])")
_YEAR = re.compile(r"^\(?(?:19|20)\d\d\)?[,.]?$")
_SMALL = re.compile(r"^\(?\d{1,2}[,.)]?$")  # "Note 6", "Item 7", "1." — not an amount


@dataclass(frozen=True, slots=True)
class PageHead:
    """One page's head.

    :param page: 1-based physical page.
    :param title: the title block, lines joined with ``" / "`` (``""`` when none).
    :param chunk_ids: the chunks whose page range covers the page, in document order.
    """

    page: int
    title: str
    chunk_ids: tuple[str, ...]


def _is_title_line(line: str, max_chars: int) -> bool:
    s = line.strip()
    if not s or len(s) > max_chars:
        return False
    if s.endswith(".") and len(s) > 40:
        return False
    if s.startswith("|"):  # a Markdown table row
        return False
    return all(_YEAR.match(n) or _SMALL.match(n) for n in _NUMBER.findall(s))


def title_lines(
    lines: Sequence[str], *, max_lines: int = 4, max_chars_per_line: int = 90
) -> list[str]:
    """The leading title-like lines of a page's lines (see the module rule)."""
    out: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if len(out) >= max_lines or not _is_title_line(line, max_chars_per_line):
            break
        out.append(line.strip())
    return out


class PageHeadsBuilder:
    """:func:`page_heads` fed chunk by chunk in document order (a streamed ingest): holds each
    page's chunk ids and only the ``max_lines + 1`` lowest-numbered lines of each page — all
    :func:`title_lines` can read — never the document's text.

    Usage: ``b = PageHeadsBuilder(); b.add(batch); heads = b.heads()``."""

    def __init__(self, *, max_lines: int = 4, max_chars_per_line: int = 90) -> None:
        self.max_lines, self.max_chars = max_lines, max_chars_per_line
        self._ids: dict[int, list[str]] = defaultdict(list)
        self._lines: dict[int, dict[int, str]] = defaultdict(dict)

    def add(self, chunks: Iterable[Chunk]) -> None:
        """Take the next chunks (ascending ordinal)."""
        keep = self.max_lines + 1
        for ch in chunks:
            for p in range(ch.page_start, ch.page_end + 1):
                self._ids[p].append(ch.chunk_id)
            spans = ch.line_map
            for i, (offset, page, line) in enumerate(spans):
                seen = self._lines[page]
                if line in seen or (len(seen) >= keep and line > max(seen)):
                    continue  # a later line never becomes one of the page's first lines
                end = spans[i + 1][0] if i + 1 < len(spans) else len(ch.text)
                text = ch.text[offset:end].strip("\n")
                if text.strip():
                    seen[line] = text
                    if len(seen) > keep:
                        del seen[max(seen)]

    def heads(self) -> list[PageHead]:
        """One :class:`PageHead` per page that holds a chunk, ascending page order."""
        heads = []
        for p in sorted(self._ids):
            texts = [t for _, t in sorted(self._lines.get(p, {}).items())]
            block = title_lines(texts, max_lines=self.max_lines,
                                max_chars_per_line=self.max_chars)
            heads.append(PageHead(p, " / ".join(block), tuple(self._ids[p])))
        return heads


def page_heads(
    chunks: Sequence[Chunk], *, max_lines: int = 4, max_chars_per_line: int = 90
) -> list[PageHead]:
    """The head of every page the chunks cover, by page.

    :param chunks: all chunks of one document (any order).
    :returns: one :class:`PageHead` per page that holds a chunk, ascending page order.
    """
    builder = PageHeadsBuilder(max_lines=max_lines, max_chars_per_line=max_chars_per_line)
    builder.add(sorted(chunks, key=lambda c: c.ordinal))
    return builder.heads()


def heads_to_data(heads: Sequence[PageHead]) -> dict[str, object]:
    """JSON-safe form of a document's page heads (the ``pages`` record of the catalogue)."""
    rows = [[h.page, h.title, list(h.chunk_ids)] for h in heads]
    return {"version": PAGES_VERSION, "pages": rows}


def heads_from_data(data: dict[str, object] | None) -> list[PageHead] | None:
    """Inverse of :func:`heads_to_data`; ``None`` for a missing record or another version."""
    if not data or data.get("version") != PAGES_VERSION:
        return None
    rows = data.get("pages")
    if not isinstance(rows, list):
        return None
    return [PageHead(int(p), str(t), tuple(ids)) for p, t, ids in rows]
