"""A catalogue entry (``corpus.catalogue``): one document's info, outline, size, warnings,
source path and profile, as stored in its record point; and the outline it keeps (from the
chunks' section paths when the parser found none, bounded to :data:`OUTLINE_MAX` headings)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from corpus.profile import DocumentProfile
from corpus.types import Chunk, DocumentInfo, OutlineEntry

__all__ = ["OUTLINE_MAX", "CatalogueEntry", "bounded_outline", "outline_from_chunks"]


class CatalogueEntry:
    """One catalogue record: the :class:`DocumentInfo`, the outline, the byte size and the
    absolute ``source`` path the file was read from (``""`` when unknown, e.g. older entries);
    a folder walk only ever removes documents whose source lies under the walked folder; and the
    document's :class:`~corpus.profile.DocumentProfile` (``None`` for entries written before
    profiles existed: :meth:`Catalogue.profiles` builds those from the stored chunks)."""

    __slots__ = ("info", "outline", "profile", "size", "source", "warnings")

    def __init__(
        self,
        info: DocumentInfo,
        outline: Sequence[OutlineEntry] = (),
        size: int = 0,
        warnings: Sequence[str] = (),
        source: str = "",
        profile: DocumentProfile | None = None,
    ) -> None:
        self.info, self.outline, self.size = info, list(outline), size
        self.warnings = list(warnings)
        self.source = source
        self.profile = profile

    def to_data(self) -> dict[str, Any]:
        """JSON-safe form stored in the record point."""
        return {
            "info": asdict(self.info),
            "size": self.size,
            "warnings": self.warnings,
            "source": self.source,
            "outline": [[e.title, e.level, e.page, list(e.section_path)] for e in self.outline],
            **({"profile": self.profile.to_data()} if self.profile is not None else {}),
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> CatalogueEntry:
        """Inverse of :meth:`to_data`."""
        outline = [
            OutlineEntry(t, int(lv), int(p), tuple(sp)) for t, lv, p, sp in data.get("outline", [])
        ]
        return cls(
            DocumentInfo(**data["info"]),
            outline,
            int(data.get("size", 0)),
            data.get("warnings", []),
            str(data.get("source", "")),
            DocumentProfile.from_data(data["profile"]) if data.get("profile") else None,
        )


def outline_from_chunks(chunks: Iterable[Chunk]) -> list[OutlineEntry]:
    """A section tree from the chunks' section paths (used when the parser found no outline):
    one entry per heading, at the page of the first chunk under it."""
    out: list[OutlineEntry] = []
    seen: set[tuple[str, ...]] = set()
    for c in chunks:
        for depth in range(1, len(c.section_path) + 1):
            path = tuple(c.section_path[:depth])
            if path not in seen:
                seen.add(path)
                out.append(OutlineEntry(path[-1], depth, c.page_start, path))
    return out


#: headings a catalogue entry keeps of a document's outline (every catalogue read loads every
#: entry: one 42,393-heading outline made each read 0.5-0.9 s)
OUTLINE_MAX = 1000


def bounded_outline(outline: Sequence[OutlineEntry], limit: int | None = None
                    ) -> tuple[list[OutlineEntry], str]:
    """At most ``limit`` (default :data:`OUTLINE_MAX`) headings of ``outline``, in document
    order: every heading of the top levels that fit whole (levels 1..L), or — when level 1
    alone does not fit — its first ``limit`` headings. Returns the headings kept and a
    warning (``""`` when all fit).

    Example: 3 level-1 and 40,000 level-2 headings, limit 1000 → the 3 level-1 headings and
    ``"outline_truncated: 40,003 headings, 3 of levels 1-1 kept"``."""
    limit = OUTLINE_MAX if limit is None else limit
    if len(outline) <= limit:
        return list(outline), ""
    levels = sorted({e.level for e in outline})
    keep_to = 0
    for lv in levels:
        if sum(1 for e in outline if e.level <= lv) > limit:
            break
        keep_to = lv
    kept = ([e for e in outline if e.level <= keep_to] if keep_to
            else [e for e in outline if e.level == levels[0]][:limit])
    shown = f"levels {levels[0]}-{keep_to}" if keep_to else f"the first of level {levels[0]}"
    return kept, f"outline_truncated: {len(outline):,} headings, {len(kept):,} of {shown} kept"
