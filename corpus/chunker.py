"""Structure-following chunker: a ``ParsedDocument`` becomes a list of ``Chunk`` s.

Rules (issue 2 item 4, cases 09 and 14):

- A chunk never spans two heading sections and never two documents. The headings that open
  a section are the first lines of its first chunk; a heading with no body of its own (a
  chapter title directly followed by a sub-heading) is carried into the next section's chunk.
- Text is packed up to ``target_chars`` and never beyond ``max_chars``; a block longer than
  ``max_chars`` is split at blank lines, then sentence ends (``。！？；`` and ``. ! ? ;``
  followed by a space), then line breaks, then (last resort) at a space near ``max_chars``.
- A table is never separated from its header: a table longer than ``max_chars`` is split
  between rows into groups of about ``target_chars``, and every group after the first starts
  with the repeated header row and ``|---|`` row. A table starts its own chunk (a short lead-in
  sentence before it may stay).
- Fragments shorter than ``min_chars`` (a trailing sentence, a note under a table) are merged
  into a neighbouring chunk of the same section; junk (bare page numbers, ``Page 3 of 9``,
  table-of-contents leader lines) is dropped. A whole section shorter than ``min_chars`` stays
  a chunk of its own when it holds real words (case 14's "备注 Notes" section is 76
  characters and is cited by its heading).

Offsets: the document's extracted text is its blocks joined by ``"\\n\\n"``
(:func:`document_text`); ``char_start``/``char_end`` index into it. A chunk's text is the exact
slice ``text[char_start:char_end]``, except that a repeated table header is prepended to a
continued row group (the header then appears before ``char_start``). ``line_map`` maps every
source line start in the chunk text to its physical page and line, header included, so
:func:`corpus.citations.make_citation` can locate any quote.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice

from corpus._chunk_pack import assemble, section_groups
from corpus._chunk_spans import Unit, Window, document_text, is_junk_line
from corpus.types import Block, Chunk, ParsedDocument

__all__ = ["DocumentChunks", "chunk_document", "document_text", "is_junk_line", "iter_chunks"]


def chunk_document(
    doc: ParsedDocument,
    *,
    rel_path: str,
    min_chars: int = 80,
    max_chars: int = 1500,
    target_chars: int = 1000,
) -> list[Chunk]:
    """Split a parsed document into structure-following chunks (see the module docstring):
    ``list(iter_chunks(doc, ...))``.

    :param doc: parser output.
    :param rel_path: the document path stored in every chunk (relative to the ingest root).
    :param min_chars: fragments shorter than this are merged or dropped (default 80).
    :param max_chars: hard upper bound of a chunk's text, except a single table row or repeated
        header longer than it (default 1500).
    :param target_chars: soft size at which a chunk is closed (default 1000).
    :returns: chunks in document order, ``ordinal`` 0..n-1, ``prev_id``/``next_id`` linked,
        ``chunk_id = f"{doc_id[:16]}-{ordinal:05d}"`` (stable for the same bytes).
    :raises ValueError: when the sizes are inconsistent (need ``0 < min <= target <= max``).
    """
    return list(iter_chunks(doc, rel_path=rel_path, min_chars=min_chars, max_chars=max_chars,
                            target_chars=target_chars))


def iter_chunks(
    doc: ParsedDocument,
    *,
    rel_path: str,
    blocks: Iterable[Block] | None = None,
    min_chars: int = 80,
    max_chars: int = 1500,
    target_chars: int = 1000,
) -> Iterator[Chunk]:
    """The chunks of :func:`chunk_document`, the same ones with the same ids, produced one at a
    time as ``blocks`` (default ``doc.blocks``) are read: memory holds the blocks of about three
    chunks (a block longer than that whole), never the document's text or chunk list, so a
    large file can be chunked, embedded and written batch by batch (issue 20 item 4).

    :param blocks: the document's blocks in order when they come from elsewhere than
        ``doc.blocks`` (e.g. a parser's generator); iterated once.
    :raises ValueError: when the sizes are inconsistent (checked before the first chunk).
    """
    if not 0 < min_chars <= target_chars <= max_chars:
        raise ValueError(
            f"need 0 < min_chars <= target_chars <= max_chars, got "
            f"{min_chars}, {target_chars}, {max_chars}"
        )
    return _iter_chunks(doc, rel_path, doc.blocks if blocks is None else blocks,
                        min_chars, max_chars, target_chars)


def _iter_chunks(doc: ParsedDocument, rel_path: str, blocks: Iterable[Block], min_chars: int,
                 max_chars: int, target: int) -> Iterator[Chunk]:
    prefix = doc.doc_id[:16]
    win = Window()
    ordinal = 0
    ahead: tuple[tuple[str, ...], list[Unit]] | None = None  # next_id needs one group ahead

    def make(path: tuple[str, ...], g: list[Unit], last: bool) -> Chunk:
        ctext, cmap, own = assemble(g, win, win.lmap, win.keys)  # type: ignore[arg-type]
        first, end = own[0], own[-1]
        table_chars = sum(u.size for u in g if u.kind == "table")
        page_end = max(end[1], first[1])
        return Chunk(
            chunk_id=f"{prefix}-{ordinal:05d}",
            doc_id=doc.doc_id,
            path=rel_path,
            title=doc.title,
            section_path=path,
            page_start=first[1],
            page_end=page_end,
            line_start=first[2],
            line_end=end[2],
            char_start=g[0].start,
            char_end=g[-1].end,
            text=ctext,
            kind="table" if table_chars * 2 >= len(ctext) else "text",
            prev_id=f"{prefix}-{ordinal - 1:05d}" if ordinal else None,
            next_id=None if last else f"{prefix}-{ordinal + 1:05d}",
            ordinal=ordinal,
            page_label=doc.page_labels.get(first[1], ""),
            line_map=cmap,
            page_labels=tuple(doc.page_labels.get(p, "") for p in range(first[1], page_end + 1))
            if doc.page_labels else (),
            page_warning=_page_warning(doc, first[1], page_end),
        )

    for group in section_groups(blocks, win, min_chars, max_chars, target):
        if ahead is not None:
            yield make(*ahead, last=False)
            ordinal += 1
            win.trim(group[1][0].start)
        ahead = group
    if ahead is not None:
        yield make(*ahead, last=True)


class DocumentChunks:
    """The chunks of one parsed document as a re-iterable stream: each iteration chunks the
    held blocks again (:func:`iter_chunks`), so the chunks are never all in memory; ``len()``
    counts them once (one chunking pass, cached). For an ingest of a large file: progress
    needs the total, the writer reads the chunks batch by batch, the directory two passes.

    :param doc: the parsed document (its blocks are held).
    :param rel_path: the path stored in every chunk.
    """

    __slots__ = ("_n", "doc", "rel_path")

    def __init__(self, doc: ParsedDocument, rel_path: str) -> None:
        self.doc, self.rel_path = doc, rel_path
        self._n: int | None = None

    def __iter__(self) -> Iterator[Chunk]:
        return iter_chunks(self.doc, rel_path=self.rel_path)

    def __len__(self) -> int:
        if self._n is None:
            self._n = sum(1 for _ in self)
        return self._n

    def __bool__(self) -> bool:
        return next(iter(self), None) is not None

    def __contains__(self, item: object) -> bool:
        return any(c == item for c in self)

    def batches(self, size: int) -> Iterator[list[Chunk]]:
        """The chunks in lists of ``size`` (the last may be shorter)."""
        it = iter(self)
        while batch := list(islice(it, max(1, size))):
            yield batch


def _page_warning(doc: ParsedDocument, first: int, last: int) -> str:
    """The chunk's page warning (``Chunk.page_warning``): ``mixed_scan`` before ``ocr``."""
    got = {doc.page_warnings.get(p, "") for p in range(first, last + 1)} if doc.page_warnings \
        else set()
    return next((w for w in ("mixed_scan", "ocr") if w in got), "")

