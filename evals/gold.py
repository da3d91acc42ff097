"""Gold-location matching: does a chunk, citation or candidate sit where the answer is?

The one definition the whole team scores with (issue 4; same rules as ``BASELINE.md`` hit@k):

============================  ===============================================================
dataset                       a location hits gold when …
============================  ===============================================================
PDFs (FinanceBench,           same document and the chunk's page span ``page_start..page_end``
MMLongBench-Doc, OHR-Bench,   covers a gold page (``pages``, else ``page``; for zh-pdf also
zh-pdf-authored)              every ``evidence_pages`` entry, which may name other documents)
DRCD                          same document and the gold paragraph id (the H2 heading) is one
                              of the chunk's section-path headings
CMRC2018, GitLab Handbook     same document (GitLab also has :func:`section_hits_gold`, a
                              section-level check reported beside it)
``unanswerable`` questions    never (there is no gold location; score refusals instead)
============================  ===============================================================

Document paths differ: questions name ``doc`` relative to the eval folder
(``en/docs/financebench/3M_2018_10K.pdf``) while ingest stores paths relative to whatever root
was given on the command line (``financebench/3M_2018_10K.pdf``, ``en/docs/…``, or an absolute
path). :func:`doc_matches` compares the part after ``<lang>/docs/`` on whole path components:
the shorter of the two must be a suffix of the longer (so ingesting ``../shared/eval``,
``../shared/eval/en/docs`` or ``…/financebench`` all match).

Usage example::

    from evals.gold import chunk_hits_gold, doc_matches, location_hits_gold
    chunk_hits_gold(q, chunk.path, chunk.page_start, chunk.page_end, chunk.section_path)
    location_hits_gold(q, citation)        # Citation, Chunk, SearchHit or a dict of those fields
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Literal

from evals.questions import Question

__all__ = [
    "GoldLevel",
    "chunk_hits_gold",
    "doc_matches",
    "gold_level",
    "heading_key",
    "location_hits_gold",
    "path_key",
    "section_hits_gold",
]

GoldLevel = Literal["page", "section", "document", "none"]

_SECTION_DATASETS = frozenset({"DRCD"})
_ANCHOR = re.compile(r"\s*\{#[^}]*\}\s*$")
_MD_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_MD_MARK = re.compile(r"[*_`]+")
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=8192)
def path_key(path: str) -> tuple[str, ...]:
    """Path components to compare on: NFC, ``/`` separators, ``.``/empty parts dropped, and
    everything up to and including the first ``docs`` component removed
    (``en/docs/financebench/a.pdf`` → ``("financebench", "a.pdf")``)."""
    text = unicodedata.normalize("NFC", str(path)).replace("\\", "/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if "docs" in parts:
        parts = parts[parts.index("docs") + 1 :]
    return tuple(parts)


def _same_doc(gold_doc: str, path: str) -> bool:
    g, p = path_key(gold_doc), path_key(path)
    if not g or not p:
        return False
    short, long_ = (g, p) if len(g) <= len(p) else (p, g)
    return long_[len(long_) - len(short) :] == short


def doc_matches(question: Question, path: str) -> bool:
    """True when ``path`` (as stored at ingest) is one of the question's gold documents
    (``doc``, or a document named by ``evidence_pages``)."""
    return any(_same_doc(d, path) for d in question.gold_docs)


@lru_cache(maxsize=8192)
def heading_key(heading: str) -> str:
    """A heading reduced for comparison: NFKC, ``{#anchor}`` / Markdown links and emphasis /
    leading ``#`` removed, whitespace collapsed, case-folded."""
    text = unicodedata.normalize("NFKC", str(heading))
    text = _ANCHOR.sub("", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_MARK.sub("", text).lstrip("#")
    return _SPACE.sub(" ", text).strip().casefold()


def gold_level(question: Question) -> GoldLevel:
    """How precisely :func:`chunk_hits_gold` checks this question: ``page`` (gold pages known),
    ``section`` (DRCD paragraph id), ``document`` (CMRC2018, GitLab, PDFs without a gold page),
    or ``none`` (``unanswerable``, or no gold document)."""
    if question.unanswerable or not question.gold_docs:
        return "none"
    if question.gold_pages:
        return "page"
    if question.section and question.source_dataset in _SECTION_DATASETS:
        return "section"
    return "document"


def section_hits_gold(question: Question, path: str, section_path: Sequence[str]) -> bool:
    """Section-level check (DRCD paragraph ids, GitLab heading paths): same document and the
    gold section's deepest heading is one of the chunk's section-path headings (so a chunk in
    the gold section or in a subsection of it hits). ``False`` when the question has no section.
    """
    if not question.section or not doc_matches(question, path):
        return False
    gold = [heading_key(h) for h in question.section.split(" > ") if heading_key(h)]
    if not gold:
        return False
    have = {heading_key(h) for h in section_path}
    return gold[-1] in have


def chunk_hits_gold(
    question: Question,
    path: str,
    page_start: int,
    page_end: int,
    section_path: Sequence[str],
) -> bool:
    """True when a chunk (or citation) at this location is at the question's gold location
    (rules in the module docstring).

    :param path: document path as stored at ingest (any root; see :func:`doc_matches`).
    :param page_start: 1-based first physical page of the chunk (or cited page).
    :param page_end: last page; ``0`` or less than ``page_start`` means ``page_start``.
    :param section_path: the chunk's headings, top level first.
    """
    level = gold_level(question)
    if level == "none":
        return False
    if level == "page":
        start = int(page_start or 0)
        end = max(int(page_end or 0), start)
        return any(
            start <= gp.page <= end and _same_doc(gp.doc, path) for gp in question.gold_pages
        )
    if level == "section":
        return section_hits_gold(question, path, section_path)
    return doc_matches(question, path)


def _fields(obj: Any) -> tuple[str, int, int, Sequence[str]]:
    """(path, page_start, page_end, section_path) of a Chunk, Citation, SearchHit or dict."""
    inner = getattr(obj, "chunk", None)
    if inner is not None and not isinstance(obj, Mapping):
        obj = inner
    if isinstance(obj, Mapping):
        if isinstance(obj.get("chunk"), Mapping):
            obj = obj["chunk"]
        get = obj.get
    else:

        def get(key: str, default: Any = None) -> Any:
            return getattr(obj, key, default)

    path = get("path") or ""
    start = get("page_start") or get("page") or 0
    end = get("page_end") or start
    section = get("section_path") or ()
    if isinstance(section, str):
        section = tuple(s for s in section.split(" > ") if s)
    return str(path), int(start), int(end), tuple(section)


def location_hits_gold(question: Question, obj: Any) -> bool:
    """:func:`chunk_hits_gold` for any object carrying a location: ``corpus.types.Chunk``,
    ``Citation`` (``page``/``page_end``), ``SearchHit`` (its ``chunk``), or a dict with the same
    keys (``path``, ``page_start``/``page``, ``page_end``, ``section_path`` list or
    ``" > "``-joined string)."""
    path, start, end, section = _fields(obj)
    return chunk_hits_gold(question, path, start, end, section)
