"""Citation checking for the LoopAgent (DESIGN.md "Key contracts": a citation whose quote is not
in the cited chunk, or whose chunk the agent never read, is dropped and counted — never shown).

The verbatim check with page/line mapping is engineer A's ``corpus.citations.make_citation``;
until that module exists in the tree, :func:`_bridge_make_citation` (whitespace-normalised
containment + ``line_map`` lookup) stands in, so the loop runs; it is used only on ImportError.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpus.types import Chunk, Citation

__all__ = ["CitationCheck", "check_citations", "make_citation"]

_WS = re.compile(r"\s+")


def _bridge_make_citation(chunk: Chunk, quote: str) -> Citation | None:
    """Stand-in for ``corpus.citations.make_citation`` (see module docstring)."""
    q = _WS.sub(" ", quote).strip()
    if len(q) < 2:
        return None
    # normalised text with a map from normalised offset -> original offset
    norm_chars: list[str] = []
    orig_idx: list[int] = []
    prev_space = True
    for i, ch in enumerate(chunk.text):
        if ch.isspace():
            if not prev_space:
                norm_chars.append(" ")
                orig_idx.append(i)
            prev_space = True
        else:
            norm_chars.append(ch)
            orig_idx.append(i)
            prev_space = False
    pos = "".join(norm_chars).find(q)
    if pos < 0:
        return None
    start, end = orig_idx[pos], orig_idx[pos + len(q) - 1]

    def where(off: int) -> tuple[int, int]:
        page, line = chunk.page_start, chunk.line_start
        for o, p, ln in chunk.line_map:
            if o > off:
                break
            page, line = p, ln
        if not chunk.line_map:
            line = chunk.line_start + chunk.text.count("\n", 0, off)
        return page, line

    p0, l0 = where(start)
    p1, l1 = where(end)
    return Citation(chunk.chunk_id, chunk.path, chunk.section_path, p0, (l0, l1), q,
                    page_end=p1, doc_id=chunk.doc_id)


def _load() -> Callable[[Chunk, str], Citation | None]:
    try:
        from corpus.citations import make_citation as real  # engineer A
    except ImportError:
        return _bridge_make_citation
    return real  # type: ignore[no-any-return]


make_citation: Callable[[Chunk, str], Citation | None] = _load()


@dataclass(slots=True)
class CitationCheck:
    """Outcome of checking an answer's citations: ``verified`` ones and why others dropped."""

    verified: list[Citation] = field(default_factory=list)
    dropped: int = 0
    reasons: list[str] = field(default_factory=list)


def check_citations(raw: Any, read: Mapping[str, Chunk], resolve: Callable[[str], str | None]
                    ) -> CitationCheck:
    """Keep citations whose chunk was read in this loop and whose quote is verbatim in it.

    :param raw: the model's ``citations`` argument: a list of ``{"chunk_id", "quote"}``
        (anything else counts as one dropped citation).
    :param read: chunks read in this loop, by id.
    :param resolve: maps a model-written id (maybe a unique prefix) to a known chunk id.
    :returns: verified citations (duplicates removed) and the dropped count with reasons.
    """
    out = CitationCheck()
    items: Sequence[Any] = raw if isinstance(raw, list) else ([raw] if raw else [])
    seen: set[tuple[str, str]] = set()
    for item in items:
        if not isinstance(item, dict):
            out.dropped += 1
            out.reasons.append(f"not an object: {str(item)[:60]}")
            continue
        cid = resolve(str(item.get("chunk_id", "")).strip())
        quote = str(item.get("quote", ""))
        if cid is None or cid not in read:
            out.dropped += 1
            out.reasons.append(f"chunk {item.get('chunk_id')!r} was not read in this loop")
            continue
        cit = make_citation(read[cid], quote)
        if cit is None:
            out.dropped += 1
            out.reasons.append(f"quote not found verbatim in {cid}: {quote[:60]!r}")
            continue
        key = (cit.chunk_id, cit.quote)
        if key not in seen:
            seen.add(key)
            out.verified.append(cit)
    return out
