"""Citation check: is a quote verbatim in a chunk, and on which page and lines does it sit?

LoopGate shows a citation only when its quote is found in the cited chunk (DESIGN.md "Key
contracts"). "Verbatim" is decided on a normal form applied to both sides:

1. each character is NFKC-normalised on its own (ligatures ``ﬁ`` → ``fi``, full-width ``ＡＢ１``
   → ``AB1``, ideographic space → space; the position of every output character is remembered);
2. every run of whitespace becomes one space, and whitespace next to a CJK character (Han,
   kana, Hangul, CJK punctuation) is removed — PDF line breaks inside Chinese sentences are
   not part of the text, and quotes of them carry no spaces;
3. leading/trailing whitespace is dropped. Case, punctuation and digits are kept exactly.

The match is located back in the original chunk text, and the chunk's ``line_map``
(``(offset, page, line)`` per source line) gives the page and line of its first and last
characters. Quotes that span lines, pages (a paragraph across a page break) and table rows
are located the same way. Nothing is fuzzy: a changed word or number is not a match.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from corpus._normal_form import NormalForm, is_cjk
from corpus.types import Chunk, Citation

__all__ = [
    "MIN_QUOTE_CHARS", "display_quote", "find_quote", "locate", "location_text", "make_citation",
    "citation_location", "normalise_ws", "page_text",
]

MIN_QUOTE_CHARS = 2


def _normal_form(text: str) -> NormalForm:
    """The normal form of ``text`` (``.norm``) and the source index of each of its characters
    (``.source(i)``). CJK-ness is judged on the source character too, so a full-width comma
    (NFKC ``，`` → ``,``) still absorbs the line break after it. Chunk texts recur (every
    question that cites a chunk verifies its quote against the same text): the last 512 results
    are kept."""
    return _normal_form_cached(text) if len(text) <= 20000 else NormalForm(text)


@lru_cache(maxsize=512)
def _normal_form_cached(text: str) -> NormalForm:
    return NormalForm(text)


def normalise_ws(text: str) -> str:
    """The normal form used to compare quotes with chunk text (see the module docstring).

    >>> normalise_ws("Con\\ufb01guration  files\\n are")
    'Configuration files are'
    >>> normalise_ws("停止接收\\n新文档 。")
    '停止接收新文档。'
    """
    return _normal_form(text).norm


def find_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` occurs in ``text`` after normalisation: ``(start, end)`` source offsets
    (``end`` exclusive) of the first occurrence, or ``None`` (also for a quote shorter than
    :data:`MIN_QUOTE_CHARS` normalised characters: one character proves nothing)."""
    q = normalise_ws(quote)
    if len(q) < MIN_QUOTE_CHARS:
        return None
    form = _normal_form(text)
    at = form.norm.find(q)
    if at < 0:
        return None
    return form.source(at), form.source(at + len(q) - 1) + 1


def locate(chunk: Chunk, start: int, end: int) -> tuple[int, int, int, int]:
    """``(page, line, page_end, line_end)`` of the source span ``[start, end)`` of chunk text.

    Uses ``chunk.line_map``; a chunk without one is taken to start at
    ``(page_start, line_start)`` and counts ``\\n`` from there (non-paginated text).
    """
    lmap = chunk.line_map
    if not lmap:
        first = chunk.line_start + chunk.text.count("\n", 0, start)
        last = chunk.line_start + chunk.text.count("\n", 0, max(end - 1, start))
        return chunk.page_start, first, chunk.page_start, last
    keys = [e[0] for e in lmap]
    a = lmap[max(bisect_right(keys, start) - 1, 0)]
    b = lmap[max(bisect_right(keys, max(end - 1, start)) - 1, 0)]
    return a[1], a[2], b[1], b[2]


def display_quote(text: str) -> str:
    """``text`` with its whitespace as a reader expects it: a line break (with the whitespace
    around it) next to a CJK character removed (PDF line and block breaks inside a Chinese
    sentence), every other whitespace run one space; characters themselves unchanged. Same
    normal form as ``text``, so it verifies."""
    out: list[str] = []
    run = ""
    for ch in text.strip():
        if ch.isspace():
            run += ch
            continue
        if run and out:
            broken = "\n" in run or "\r" in run
            if not (broken and (is_cjk(out[-1]) or is_cjk(ch))):
                out.append(" ")
        run = ""
        out.append(ch)
    return "".join(out)


def make_citation(chunk: Chunk, quote: str) -> Citation | None:
    """Verify ``quote`` against ``chunk`` and build its citation.

    :param chunk: the chunk the answer cites (it must have been read by the caller).
    :param quote: text claimed to be verbatim in the chunk.
    :returns: a :class:`~corpus.types.Citation` with the page/lines the quote covers (``page``
        and ``lines[0]`` where it starts, ``page_end`` and ``lines[1]`` where it ends) and the
        quote as it stands in the chunk text, its whitespace as :func:`display_quote` gives it
        (no ``\n\n`` of a PDF block break inside a sentence); ``None`` when the quote is not
        in the chunk.
    """
    span = find_quote(chunk.text, quote)
    if span is None:
        return None
    start, end = span
    page, line, page_end, line_end = locate(chunk, start, end)
    return Citation(
        chunk_id=chunk.chunk_id,
        path=chunk.path,
        section_path=chunk.section_path,
        page=page,
        lines=(line, line_end),
        quote=display_quote(chunk.text[start:end]),
        page_end=page_end,
        doc_id=chunk.doc_id,
        page_label=chunk.label_of(page),
        page_end_label=chunk.label_of(page_end),
    )


def page_text(page: int, label: str = "") -> str:
    """A page for people: ``p.5``, or with a printed label that differs from the physical
    page ``p. 3 (PDF page 5)``."""
    label = (label or "").strip()
    if label and label != str(page):
        return f"p. {label} (PDF page {page})"
    return f"p.{page}"


def location_text(
    page: int, page_end: int, lines: tuple[int, int] | list[int], label: str = "",
    end_label: str = "",
) -> str:
    """Where a quote is, for people: ``p.4 | lines 3-7``, or across a page break
    ``p.8 line 132 – p.9 line 2`` (``lines`` are ``(first on page, last on page_end)``;
    ``page_end`` 0 or equal to ``page`` means one page). With printed page labels that differ
    from the physical pages (``label`` of ``page``, ``end_label`` of ``page_end``) each page
    reads ``p. 3 (PDF page 5)`` (:func:`page_text`)."""
    first, last = int(lines[0]), int(lines[1])
    if page_end and page_end != page:
        end = page_text(page_end, end_label)
        return f"{page_text(page, label)} line {first} – {end} line {last}"
    where = page_text(page, label)
    return f"{where} | lines {first}-{last}" if last != first else f"{where} | line {first}"


def citation_location(c: Citation | Mapping[str, Any]) -> str:
    """:func:`location_text` of a citation (a :class:`~corpus.types.Citation` or its
    ``to_dict()`` form), printed labels included: ``p. 3 (PDF page 5) | lines 4-6``."""
    if isinstance(c, Mapping):
        span = list(c.get("lines") or [0, 0])[:2]
        return location_text(int(c.get("page") or 0), int(c.get("page_end") or 0), span,
                             str(c.get("page_label") or ""), str(c.get("page_end_label") or ""))
    return location_text(c.page, c.page_end, c.lines, c.page_label, c.page_end_label)
