"""Citation checking for the LoopAgent (DESIGN.md "Key contracts": a citation whose quote is not
in the cited chunk, or whose chunk the agent never read, is dropped and counted — never shown).

The verbatim check with page/line mapping is ``corpus.citations.make_citation`` (engineer A;
re-exported here); this module adds the loop's rule: only chunks read in this loop count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpus.citations import make_citation
from corpus.types import Chunk, Citation

__all__ = ["CitationCheck", "check_citations", "make_citation"]


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
