"""Chunks made by hand for tests that need no parser: numbered like the chunker's output."""

from __future__ import annotations

from typing import Any

from corpus.types import Chunk


def make_chunk(doc_id: str, ordinal: int, text: str, **fields: Any) -> Chunk:
    """One chunk of one line holding ``text``: id ``<doc_id[:16]>-<ordinal:05d>``, path and
    title ``doc_id``, no section, page ``ordinal + 1``; ``fields`` set any other value."""
    base: dict[str, Any] = {
        "chunk_id": f"{doc_id[:16]}-{ordinal:05d}", "doc_id": doc_id, "path": doc_id,
        "title": doc_id, "section_path": (), "page_start": ordinal + 1,
        "page_end": ordinal + 1, "line_start": 1, "line_end": 1, "char_start": 0,
        "char_end": len(text), "text": text, "ordinal": ordinal,
    }
    return Chunk(**{**base, **fields})


def make_document(doc_id: str, path: str, texts: list[tuple[tuple[str, ...], str]], *,
                  linked: bool = False, **fields: Any) -> list[Chunk]:
    """The chunks of one document at ``path``, one per ``(section_path, text)``, a page each;
    ``linked``: ``prev_id`` / ``next_id`` set like the chunker's."""
    chunks = [make_chunk(doc_id, i, text, path=path, title=path, section_path=sec, **fields)
              for i, (sec, text) in enumerate(texts)]
    if not linked:
        return chunks
    ids = [c.chunk_id for c in chunks]
    return [make_chunk(doc_id, i, c.text, path=path, title=path, section_path=c.section_path,
                       prev_id=ids[i - 1] if i else None,
                       next_id=ids[i + 1] if i + 1 < len(ids) else None, **fields)
            for i, c in enumerate(chunks)]
