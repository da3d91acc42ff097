"""Page references in questions and printed page labels (issue 17 item 3).

A question's "page 5", "p. 5", "pp. 5", "第5页", "page iv" names the page as the reader sees it
printed: the document's page label (PDF ``/PageLabels``, ``Chunk.page_labels``) comes first,
and only a document without labels is read by physical page index. Citations keep both
(``Citation.page`` physical, ``Citation.page_label`` printed).
"""

from __future__ import annotations

import re

from corpus.types import Chunk

__all__ = ["chunk_on_page", "page_refs"]

_REF = re.compile(
    r"\b(?:page|pages|pg\.?|pp?\.)\s*(?P<en>\d{1,4}|[ivxlc]{1,6})\b|第\s*(?P<zh>\d{1,4})\s*页",
    re.I,
)


def page_refs(question: str) -> list[str]:
    """Pages the question names, as written (``"5"``, ``"iv"``, lower case), in order,
    without repeats; ``[]`` when it names none."""
    out = [(m["en"] or m["zh"]).lower() for m in _REF.finditer(question)]
    return list(dict.fromkeys(out))


def chunk_on_page(chunk: Chunk, ref: str) -> bool:
    """True when ``chunk`` covers the page ``ref`` names: by printed label when the chunk's
    document has labels (``Chunk.page_labels``), else by physical page number."""
    labels = chunk.page_labels or ((chunk.page_label,) if chunk.page_label else ())
    if labels:
        return any(lb.strip().lower() == ref for lb in labels)
    return ref.isdigit() and chunk.page_start <= int(ref) <= max(chunk.page_end, chunk.page_start)
