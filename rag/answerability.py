"""Is the answer in the evidence? A check separate from retrieval rank (issue 15, items 4–5).

An extractive answer quotes the best-scoring unit of the retrieved chunks; retrieval always
returns *something*, so a question about a product, a filing or a document the collection does
not hold used to come back "found" quoting an unrelated manual at confidence 0.78. The rule
here: every **code** the question names — a token of letters and digits such as
``ESP32-PICO-D4``, ``FW-301``, ``3M``, not a period such as ``FY2018`` or ``Q2`` — must occur in
the answer unit or in its context (the chunk's title, section path, path and table header),
matched whole by ``corpus.term_match.holds_term`` (any separators, ``FW-301`` never inside
``FW-3010``). A code nowhere in the
evidence means the evidence is about something else: the answer is "not found" and the route
record says which code was missing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from functools import cache, partial
from typing import Any

from corpus.answer_support import SupportModel, support_features
from corpus.asked_names import checked_names
from corpus.derived import asks_superlative
from corpus.document_vocabulary import DocumentVocabulary
from corpus.item_scope import item_units, numbers_items
from corpus.labels import asked_item
from corpus.period_scope import other_period, pinned_years, row_other_period
from corpus.presence import specific_terms, unit_lacks
from corpus.question_scope import asks_content, content_misses, count_unit, page_misses
from corpus.term_match import code_terms, has_code_part, holds_term, is_period
from corpus.types import Chunk
from rag.types import Evidence, Retrieval

__all__ = ["answer_support", "codes_of", "missing_codes", "present_evidence",
           "scoped_evidence", "supported_evidence"]

_VERSION = re.compile(r"^v?\d+(?:\.\d+)+[a-z]?$|^v\d+$")  # 1.2, v1.2.3, v2: not names


def codes_of(key_terms: Iterable[str]) -> list[str]:
    """The key terms that are codes (``corpus.term_match.is_code``) with an identifier's part
    (``corpus.term_match.has_code_part``: not ``top-3``), not a period, date or version
    (``fy2018``, ``fy2023q1``, ``q2``, ``v1.2``); the same codes ``corpus.presence`` looks for
    in a document."""
    return [t for t in code_terms(key_terms)
            if not is_period(t) and not _VERSION.match(t) and has_code_part(t)]


def missing_codes(key_terms: Sequence[str], texts: Iterable[str]) -> list[str]:
    """Codes of ``key_terms`` that none of ``texts`` (the answer unit and its context) holds.

    :param key_terms: the question's key terms (``Tokenizer.key_terms``, normalised).
    :param texts: answer unit, chunk title, section path, path, table header — any strings.
    :returns: the missing codes, in question order (empty: the evidence names them all).
    """
    codes = codes_of(key_terms)
    if not codes:
        return []
    hay = unicodedata.normalize("NFKC", " ".join(texts)).lower()
    return [c for c in codes if not holds_term(c, hay)]


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


def _other_block(question: str, ev: Evidence, chunk: Chunk | None) -> str | None:
    """``other_period`` of a statement row read without a period header (no reading) by the
    years labelling its block of rows or its columns (``corpus.period_scope.row_other_period``)."""
    if ev.reading or chunk is None:
        return None
    return row_other_period(question, ev.text, chunk.text)


_TOTAL_ROW = re.compile(r"^\W*total\b", re.I)  # a statement's total or subtotal row


def scoped_evidence(
    evidence: Sequence[Evidence], chunks: Iterable[Chunk], question: str
) -> tuple[list[Evidence], list[str]]:
    """The evidence units inside what the question restricts its answer to
    (``corpus.question_scope``): quoted from a page it names, not stating another year than
    the ones it pins (a unit stating none stays: ``corpus.period_scope.other_period``), and
    stating the colour or the physical quantity it asks (typography and picture counts: none),
    in the article or clause it names (``corpus.labels.other_item``), best first, with the
    flags of why none is (``not_on_asked_page:<n>``, ``other_period:<years>``,
    ``other_item:<label>``, ``asks_visual:<kind>``, ``no_value_in:<dimension>``; ``([],
    flags)`` = "not found").

    :param evidence: candidate evidence, best first; ``chunks``: the retrieved chunks (a
        colour may be stated in the unit's chunk rather than the unit).
    """
    if not evidence:
        return [], []
    by_id = {c.chunk_id: c for c in chunks}  # read once: ``chunks`` may be an iterator
    kept, flags = page_misses(question, evidence, lambda ev: ev.citation)
    if kept and pinned_years(question):
        # "Revenue in 2019 was …" answers another question than "… in 2018?"; a statement row
        # is read by the years of its column header (its reading): "Cost of revenues — 2015: …;
        # 2014: …" does not answer "… revenue in 2025?" (a new-user trial)
        periods = [other_period(question, ev.reading or ev.text)
                   or _other_block(question, ev, by_id.get(ev.citation.chunk_id))
                   for ev in kept]
        if all(periods):
            return [], [*flags, "other_period:" + str(periods[0])]
        kept = [ev for ev, p in zip(kept, periods, strict=True) if p is None]
    if kept and asks_superlative(question) is not None:
        # "the largest current asset" is one item, never the total of them (a trial got "Total
        # current assets, 2022: 109,523" where the statement has no section heading to read)
        items = [ev for ev in kept if not _TOTAL_ROW.match(ev.text)]
        if not items:
            return [], [*flags, "total_is_no_item"]
        kept = items
    if kept and (asked := asked_item(question)) is not None:
        # "第二十六条规定了什么？" is answered by 第二十六条, not by a clause citing it, nor by
        # any clause when there is none; where some unit is in the item asked, a unit of a text
        # numbering nothing is no answer; where none is but a retrieved text numbers such items,
        # the item is not there (corpus.item_scope.item_units)
        def place(ev: Evidence) -> tuple[str, str, tuple[str, ...]]:
            c = by_id.get(ev.citation.chunk_id)
            return ev.text, c.text if c else "", c.section_path if c else ()

        kept, inside = item_units(question, kept, place)
        if not kept or (not inside and numbers_items(question, by_id.values())):
            return [], [*flags, "other_item:" + asked.text]
        kept = inside or kept
    if kept and asks_content(question):
        best = by_id.get(kept[0].citation.chunk_id)
        heads = (best.title, *best.section_path) if best else ()
        misses = content_misses(question, kept[0].text + "\n" + (best.text if best else ""),
                                count_unit(kept[0].text, heads))
        if misses:
            kept, flags = [], [*flags, *misses]
    return kept, flags


def present_evidence(
    evidence: Sequence[Evidence],
    chunks: Iterable[Chunk],
    key_terms: Sequence[str],
    question: str | None,
    absent: Callable[[str, list[str]], list[str]],
    acronyms: Sequence[str] = (),
    names: Sequence[str] = (),
    in_collection: Callable[[str], bool] | None = None,
) -> tuple[list[Evidence], list[str]]:
    """The document-level answerability check (``corpus.presence``): the first evidence unit
    whose document holds every specific term of the question (codes, years) becomes the
    answer, the others keep their order behind it.

    :param evidence: candidate evidence, best first.
    :param chunks: the retrieved chunks (each unit's text, title, section path and path are
        looked at first: a term they hold needs no index query).
    :param key_terms: the question's key terms; ``question``: the question in their normal form
        (``Tokenizer.normalize``), see ``corpus.presence.specific_terms``.
    :param absent: ``(doc_id, terms) -> the terms that document lacks``
        (``DocumentTermProbe.absent`` bound to the collection); blocking, may raise.
    :param acronyms: acronyms the question names (``corpus.presence.subject_acronyms``),
        checked like the specific terms.
    :param names: names the question asks about (``corpus.asked_names.asked_names``), checked
        like the specific terms where ``corpus.asked_names.checked_names`` keeps them for a
        unit: names no chunk of the collection matches (``in_collection``, asked once per term;
        ``None``: names are not checked).
    :returns: ``(evidence, [])`` with the answering unit first, or ``(evidence, missing)``
        unchanged when no unit's document holds them all (``missing``: the best unit's absent
        terms; the answer is then "not found").
    """
    terms = list(dict.fromkeys([*specific_terms(key_terms, question), *acronyms]))
    held = cache(in_collection) if in_collection is not None else None
    if not evidence or not (terms or (names and held)):
        return list(evidence), []
    by_id = {c.chunk_id: c for c in chunks}
    first_missing: list[str] | None = None
    for i, ev in enumerate(evidence):
        chunk = by_id.get(ev.citation.chunk_id)
        asked = terms if held is None else list(dict.fromkeys(
            [*terms, *checked_names(names, question or "", ev.text, chunk, held)]))
        missing = (unit_lacks(asked, ev.text, chunk, ev.citation.doc_id, absent, _nfkc_lower)
                   if asked else [])
        if not missing:
            return [ev, *evidence[:i], *evidence[i + 1 :]], []
        if first_missing is None:
            first_missing = missing
    return list(evidence), first_missing or []


def _nfkc_lower(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def answer_support(
    retrieval: Retrieval,
    evidence: Sequence[Evidence],
    tokenizer: Any,
    collection: str,
    vocabulary: DocumentVocabulary | None,
    model: SupportModel | None,
) -> tuple[dict[str, float], float | None]:
    """The best evidence unit's support features (``corpus.answer_support``) and, with a
    model, their probability of holding what was asked; ``({}, 0.0)`` without evidence (with a
    model), ``({}, None)`` without either.

    :param tokenizer: the retriever's tokenizer (``normalize``, ``key_terms``; ``terms`` and
        ``name_terms`` when it has them).
    :param vocabulary: asks the keyword index which key terms the unit's document holds
        (blocking: one query per term not yet known); ``None``: no document-level features.
    """
    if not evidence:
        return {}, (0.0 if model is not None else None)
    best = evidence[0]
    chunk = next((c for c in retrieval.chunks if c.chunk_id == best.citation.chunk_id), None)
    names = getattr(tokenizer, "name_terms", None)
    analyse = getattr(tokenizer, "terms", None)
    doc_id = chunk.doc_id if chunk is not None else best.citation.doc_id
    feats = support_features(
        retrieval.question, retrieval.key_terms, best.text,
        (chunk.title, " ".join(chunk.section_path), chunk.path, chunk.table_header())
        if chunk else (),
        chunk.text if chunk else "",
        name_terms=names(retrieval.question) if callable(names) else (),
        normalize=tokenizer.normalize, path=best.citation.path,
        retrieval=retrieval.confidence.value,
        analyse=analyse if callable(analyse) else None,
        document=(partial(vocabulary.held, collection, doc_id)
                  if vocabulary is not None and doc_id else None))
    return feats, (round(model.score(feats), 4) if model is not None else None)
