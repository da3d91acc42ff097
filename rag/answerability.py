"""Is the answer in the evidence? A check separate from retrieval rank (issue 15, items 4–5).

An extractive answer quotes the best-scoring unit of the retrieved chunks; retrieval always
returns *something*, so a question about a product, a filing or a document the collection does
not hold used to come back "found" quoting an unrelated manual at confidence 0.78. The rule
here: every **code** the question names — a token of letters and digits such as
``ESP32-PICO-D4``, ``FW-301``, ``3M``, not a period such as ``FY2018`` or ``Q2`` — must occur in
the answer unit or in its context (the chunk's title, section path, path and table header),
matched whole (separators ignored, ``FW-301`` never inside ``FW-3010``). A code nowhere in the
evidence means the evidence is about something else: the answer is "not found" and the route
record says which code was missing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from corpus.types import Chunk
from rag.types import Evidence

__all__ = ["codes_of", "missing_codes", "supported_evidence"]

_PERIOD = re.compile(
    r"^(?:fy|q[1-4]|h[12]|cy)?'?\d{2,4}$|^(?:q[1-4]|h[12])$|^\d{4}[-/.]\d{1,2}([-/.]\d{1,2})?$"
    r"|^v?\d+(?:\.\d+)+[a-z]?$|^v\d+$"  # periods, dates, versions (1.2, v1.2.3): not names
)
_SEP = re.compile(r"[\-_./\u00ad\u2010-\u2015·]+")


def _squash(text: str) -> str:
    return _SEP.sub("", unicodedata.normalize("NFKC", text).lower())


def codes_of(key_terms: Iterable[str]) -> list[str]:
    """The key terms that are codes: letters and digits together, not a period or a plain
    number with a unit (``8kw``, ``5v`` are quantities, not names)."""
    out = []
    for t in key_terms:
        if not (re.search(r"\d", t) and re.search(r"[a-z]", t)):
            continue
        if _PERIOD.match(t) or re.fullmatch(r"\d+(?:\.\d+)?[a-zμ%°]{1,3}", t):
            continue
        out.append(t)
    return out


def _holds(code: str, hay: str) -> bool:
    """``code`` occurs in ``hay`` (both squashed) as a whole token: no ASCII letter or digit
    right before or after it (``fw301`` is not in ``fw3010``, ``3m`` not in ``2023m``)."""
    c = _squash(code)
    if not c:
        return True
    rx = re.compile(r"(?<![a-z0-9])" + re.escape(c) + r"(?![a-z0-9])")
    return rx.search(hay) is not None


def missing_codes(key_terms: Sequence[str], texts: Iterable[str]) -> list[str]:
    """Codes of ``key_terms`` that none of ``texts`` (the answer unit and its context) holds.

    :param key_terms: the question's key terms (``Tokenizer.key_terms``, normalised).
    :param texts: answer unit, chunk title, section path, path, table header — any strings.
    :returns: the missing codes, in question order (empty: the evidence names them all).
    """
    codes = codes_of(key_terms)
    if not codes:
        return []
    hay = " ".join(_squash(t) for t in texts)
    return [c for c in codes if not _holds(c, hay)]


def supported_evidence(
    evidence: Sequence[Evidence], chunks: Iterable[Chunk], key_terms: Sequence[str]
) -> tuple[list[Evidence], list[str]]:
    """The evidence units whose unit or context names every code of the question, best first,
    and the codes the best unit lacked when none does (``([], codes)`` = "not found").

    :param evidence: candidate evidence, best first (``rag.extractive.extract_answer``).
    :param chunks: the retrieved chunks (to find each unit's title, section, path, table header).
    """
    if not codes_of(key_terms) or not evidence:
        return list(evidence), []
    by_id = {c.chunk_id: c for c in chunks}
    kept: list[Evidence] = []
    first_missing: list[str] | None = None
    for ev in evidence:
        c = by_id.get(ev.citation.chunk_id)
        ctx = (c.title, " ".join(c.section_path), c.path, c.table_header()) if c else ()
        miss = missing_codes(key_terms, (ev.text, *ctx))
        if not miss:
            kept.append(ev)
        elif first_missing is None:
            first_missing = miss
    return kept, ([] if kept else first_missing or [])
