"""Citation checking for the LoopAgent (DESIGN.md "Key contracts": a citation whose quote is not
in the cited chunk, or whose chunk the agent never read, is dropped and counted — never shown).

The verbatim check with page/line mapping is ``corpus.citations.make_citation`` (engineer A;
re-exported here); this module adds the loop's rule: only chunks read in this loop count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpus.answer_check import check_answer
from corpus.citations import display_quote, make_citation
from corpus.injection import in_injection
from corpus.types import Chunk, Citation

__all__ = ["CitationCheck", "check_citations", "make_citation", "supported_answer"]


@dataclass(slots=True)
class CitationCheck:
    """Outcome of checking an answer's citations: ``verified`` ones and why others dropped."""

    verified: list[Citation] = field(default_factory=list)
    dropped: int = 0
    reasons: list[str] = field(default_factory=list)


def check_citations(raw: Any, read: Mapping[str, Chunk], resolve: Callable[[str], str | None]
                    ) -> CitationCheck:
    """Keep citations whose chunk was read in this loop and whose quote is verbatim in it and
    is no instruction to a model, nor cut from one (:func:`corpus.injection.in_injection`).

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
        if in_injection(read[cid].text, quote):  # a line speaking to a model: data, not evidence
            out.dropped += 1
            out.reasons.append(f"quote is an instruction to the reader: {quote[:60]!r}")
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


def supported_answer(answer: str, citations: Sequence[Citation]) -> tuple[str, int]:
    """A model-written answer cut to the sentences its verified ``citations`` support
    (``corpus.answer_check.check_answer``: numbers, codes, names and URLs present in the quotes
    or the cited paths and section titles; no instruction to a model).

    :returns: ``(text, dropped)``; when no sentence is supported, ``text`` is the first
        citation's quote (verbatim document text) and ``dropped`` counts every sentence.
    """
    context = [" ".join((c.path, *c.section_path)) for c in citations]
    chk = check_answer(answer, [c.quote for c in citations], context)
    if chk.text or not citations:
        return chk.text, chk.dropped
    return display_quote(citations[0].quote), chk.dropped
