"""Conflicting evidence (issue 16 item 4): passages of different documents that give different
values for the same thing — two versions of a policy, a notice overriding a rule — found among
the answer's citations and the passages retrieved for it, by rules and without I/O.

How (:func:`find_conflict`):

1. **Statements**: sentences of the retrieved chunks that hold a value (a number with its unit:
   ``60 EUR``, ``30 天``, ``15%``; in ``from 50 to 60`` / ``由50调整为60`` the new value) and the
   question's key terms (English words, Chinese character pairs).
2. **The answer's statement** is the best such sentence inside the answer's first citation.
3. **A rival** is a statement of *another* document — one that names what the question names
   about the answer's document (its title's terms in the question: an organisation, a product)
   and the reverse, two thirds of those terms; when the question names something only titles
   of the retrieved documents hold, both documents must name it — that holds at least 80 % of
   the key terms the answer's statement holds, shares at least half of its other words, and
   gives a different value of the same unit for the same period. Values equal (a
   restatement), another thing measured (the question's terms missing) or another period (the
   revenue of 2019 beside that of 2018, ``corpus.period_scope``) are no conflict.
4. **Which one wins**: each document's date (an effective / issue / version date in its title,
   headings or text — ``2025-03-01``, ``2025年3月1日``, ``1 March 2025``, ``March 1, 2025`` — else
   the latest such date in its passages); the newer wins; on equal or unknown dates a notice,
   amendment or supplement (``notice``, ``amendment``, ``通知``, ``补充``, ``修订`` …) wins as
   the more specific; otherwise the answer's stands and ``why`` says no preference was found.

:func:`apply_conflict` rewrites the answer: the preferred statement first (cited), then both
values with source, section and date, and why one was preferred; the result carries
``conflict`` and the route record the flag ``conflict``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from corpus.citations import make_citation
from corpus.period_scope import pinned_years
from corpus.types import Chunk, Citation, SearchHit
from gateway.routing.statements import (
    DATE_WORDS,
    Statement,
    codes,
    content_terms,
    doc_date,
    period_of,
    statements,
)
from gateway.routing.types import AnswerDraft

__all__ = ["Conflict", "apply_conflict", "check_draft", "find_conflict", "find_rival", "judge"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_SPECIFIC = re.compile(r"notice|amendment|addendum|supplement|update|circular|memo|"
                       r"通知|公告|补充|修订|修正|调整|更正", re.I)


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two statements of different documents that disagree: ``statements`` (the answer's
    first), their documents' ``dates`` (ISO strings or ``None``), ``preferred`` (index into
    ``statements`` or ``None``: no preference found) and ``why`` (one line)."""

    statements: tuple[Statement, Statement]
    dates: tuple[str | None, str | None]
    preferred: int | None
    why: str


def _doc_terms(chunk: Chunk) -> set[str]:
    return content_terms(f"{chunk.title} {chunk.path} {' '.join(chunk.section_path)}")


def _covers(terms: set[str], chunk: Chunk) -> bool:
    """Two thirds of ``terms`` are in the chunk's title, headings, path or text."""
    return len(terms & (_doc_terms(chunk) | content_terms(chunk.text))) >= 2 / 3 * len(terms)


def _names(key: set[str], a: Statement, b: Statement) -> bool:
    """``b``'s document names what the question names about ``a``'s document (the question's
    terms in ``a``'s title or headings but not in its sentence: an organisation, a product) —
    two thirds of them, in ``b``'s title, headings or text."""
    anchor = (key & _doc_terms(a.chunk)) - content_terms(a.sentence)
    if not anchor:
        return True
    return _covers(anchor, b.chunk)


def _same_thing(a: Statement, b: Statement, key: set[str]) -> bool:
    """``b`` speaks of what ``a`` does: most of ``a``'s key terms, half of its other words, and
    no product code of its own when ``a`` names others."""
    ca, cb = codes(a.sentence), codes(b.sentence)
    if ca and cb and not ca & cb:
        return False  # two products (FX-1001, FX-1005): their values never conflict
    ta, tb = content_terms(a.sentence) - DATE_WORDS, content_terms(b.sentence) - DATE_WORDS
    ka = key & ta
    if not ka or len(ka & tb) < 0.8 * len(ka):
        return False
    if _sisters(ta, tb, key):
        return False
    return len(ta & tb) >= 0.5 * min(len(ta), len(tb))


def _sisters(ta: set[str], tb: set[str], key: set[str]) -> bool:
    """Two sentences of one shape naming different things: each holds a word the other lacks,
    at the same place ("… hotel rate for international travel is 260 USD" / "… for domestic
    travel is 150 USD": a trial's question on neither was answered with a conflict between
    them). A version or a notice restating a rule keeps its words or adds some, it does not
    swap one; a swapped word the question names is the question's own choice, not a rival."""
    only_a, only_b = ta - tb - key, tb - ta - key
    # a swapped word: one English word, or a Chinese word's two or three character pairs
    return 1 <= len(only_a) <= 3 and 1 <= len(only_b) <= 3 and len(ta & tb) >= 3


def _same_period(a: Statement, b: Statement, asked: frozenset[str]) -> bool:
    """``b`` gives its value for the period ``a`` does: not for other years (revenue in 2018
    and in 2019 are two facts, not two versions of one), nor, when the question pins years
    (``asked``), for no year or another year than those asked while ``a`` states one asked.
    A day a statement is dated by (effective 1 March 2025) is no period
    (:func:`gateway.routing.statements.period_of`)."""
    pa, pb = period_of(a.sentence), period_of(b.sentence)
    if pa and pb and not pa & pb:
        return False
    if asked and pb and not pb & asked:
        return False
    return not (asked and pa & asked and not pb)


def _answer_statement(found: Sequence[Statement], first: Citation, key: set[str]
                      ) -> Statement | None:
    """The statement of ``found`` the answer's ``first`` citation makes: in its chunk, inside
    its quote (or holding it) first, then by the quote's and the question's ``key`` terms."""
    mine = [s for s in found if s.chunk.chunk_id == first.chunk_id]
    if not mine:
        return None
    quote_terms = content_terms(first.quote)

    def rank(s: Statement) -> tuple[int, int, int]:
        inside = s.sentence in first.quote or first.quote in s.sentence
        terms = content_terms(s.sentence)
        return (-inside, -len(terms & quote_terms), -len(terms & key))

    return min(mine, key=rank)


def find_rival(question: str, cited: Sequence[Citation], hits: Sequence[SearchHit],
               *, top: int = 8) -> tuple[Statement, Statement] | None:
    """The answer's statement and the first statement of another document that disagrees.

    :param cited: the answer's citations (the first one's chunk holds the answer's statement).
    :param hits: the passages retrieved for the question, best first.
    :returns: ``(answer's, rival)``, or ``None`` (no citation, no value, or every rival agrees).
    """
    if not cited:
        return None
    found = statements(question, hits, top=top)
    key = content_terms(question) - DATE_WORDS
    asked = pinned_years(question)
    answer = _answer_statement(found, cited[0], key)
    if answer is None:
        return None
    # what the question names that only titles and headings hold (an organisation, a product):
    # both documents must name it, else one of them is about something else
    named = key & set().union(*(_doc_terms(h.chunk) for h in hits[:top]))
    named -= set().union(*(content_terms(s.sentence) for s in found))
    if named and not _covers(named, answer.chunk):
        return None
    for rival in found:
        if rival.chunk.doc_id == answer.chunk.doc_id or rival.unit != answer.unit:
            continue
        if not (_names(key, answer, rival) and _names(key, rival, answer)):
            continue
        if named and not _covers(named, rival.chunk):
            continue
        if rival.number == answer.number or not _same_thing(answer, rival, key):
            continue
        if not _same_period(answer, rival, asked):
            continue
        return answer, rival
    return None


def find_conflict(question: str, cited: Sequence[Citation], hits: Sequence[SearchHit],
                  heads: dict[str, list[Chunk]] | None = None, *, top: int = 8
                  ) -> Conflict | None:
    """:func:`find_rival`, judged by :func:`judge` on each document's passages among ``hits``
    and its first chunks in ``heads`` (``doc_id -> chunks``; where titles and dates are)."""
    pair = find_rival(question, cited, hits, top=top)
    if pair is None:
        return None
    a, b = pair

    def chunks_of(doc_id: str) -> list[Chunk]:
        own = [h.chunk for h in hits if h.chunk.doc_id == doc_id]
        return [*(heads or {}).get(doc_id, []), *own]

    return judge(a, b, chunks_of(a.chunk.doc_id), chunks_of(b.chunk.doc_id))


def judge(a: Statement, b: Statement, chunks_a: Sequence[Chunk], chunks_b: Sequence[Chunk]
          ) -> Conflict:
    """Dates of both documents (from their chunks) and which statement is preferred, and why."""
    da, db = doc_date(chunks_a), doc_date(chunks_b)
    dates = (da.isoformat() if da else None, db.isoformat() if db else None)
    if da and db and da != db:
        i = 0 if da > db else 1
        return Conflict((a, b), dates, i, f"newer: {dates[i]} against {dates[1 - i]}")
    sa = bool(_SPECIFIC.search(f"{a.chunk.title} {a.chunk.path}"))
    sb = bool(_SPECIFIC.search(f"{b.chunk.title} {b.chunk.path}"))
    if sa != sb:
        i = 0 if sa else 1
        return Conflict((a, b), dates, i, "more specific: a notice / amendment overrides the "
                        "general rule" + ("" if da or db else " (no dates found)"))
    return Conflict((a, b), dates, None, "no date or specificity tells them apart")


def _cite(s: Statement) -> Citation | None:
    return make_citation(s.chunk, s.sentence)


def apply_conflict(question: str, answer: str, citations: list[Citation], c: Conflict
                   ) -> tuple[str, list[Citation], dict[str, Any]]:
    """The answer rewritten around the conflict (module docstring).

    :returns: ``(answer, citations, conflict dict)``; the citations start with the preferred
        statement's and hold both statements'; the dict has ``preferred`` (index into
        ``values``), ``values`` (``value``, ``unit``, ``path``, ``section``, ``page``, ``date``,
        ``citation`` index) and ``why``.
    """
    zh = bool(_CJK.search(question))
    order = [c.preferred, 1 - c.preferred] if c.preferred is not None else [0, 1]
    cites = list(citations)
    values: list[dict[str, Any]] = []
    for i in order:
        s = c.statements[i]
        cite = _cite(s)
        idx = next((k for k, x in enumerate(cites) if x.chunk_id == s.chunk.chunk_id), None)
        if cite is not None:
            if idx is not None and s.sentence not in cites[idx].quote:
                cites.insert(0 if i == order[0] else len(cites), cite)
                idx = cites.index(cite)
            elif idx is None:
                cites.insert(0 if i == order[0] else len(cites), cite)
                idx = cites.index(cite)
        if i == order[0] and idx is not None and idx != 0:
            cites.insert(0, cites.pop(idx))
            idx = 0
        values.append({"value": s.value, "unit": s.unit, "path": s.chunk.path,
                       "section": " > ".join(s.chunk.section_path), "page": s.chunk.page_start,
                       "date": c.dates[i], "sentence": s.sentence})
    for v in values:  # citation indices after all insertions
        v["citation"] = next((k for k, x in enumerate(cites) if x.path == v["path"]
                              and v["sentence"] in x.quote), None)
    first, second = values
    head = first["sentence"] if c.preferred is not None else answer
    out = {"preferred": 0 if c.preferred is not None else None, "values": values, "why": c.why}
    return f"{head}\n\n{_note(c, first, second, zh)}", cites, out


def _note(c: Conflict, first: dict[str, Any], second: dict[str, Any], zh: bool) -> str:
    """The note under the answer: both values with source and date, and which one is used."""
    if zh:
        return (f"注意：文档之间有冲突。{_src_zh(first)}为 {first['value']}{first['unit']}；"
                f"{_src_zh(second)}为 {second['value']}{second['unit']}。"
                + ("采用前者（" + _why_zh(c) + "）。" if c.preferred is not None
                   else "无法判断哪一个更新或更具体。"))
    return (f"Note: the documents disagree. {_src(first)} gives {first['value']} "
            f"{first['unit']}; {_src(second)} gives {second['value']} {second['unit']}. "
            + (f"The first is preferred ({c.why})." if c.preferred is not None
               else "Neither is newer or more specific."))


def _src(v: dict[str, Any]) -> str:
    where = str(v["path"]) + (f" ({v['section']})" if v["section"] else "")
    return where + (f", dated {v['date']}," if v["date"] else ", undated,")


def _src_zh(v: dict[str, Any]) -> str:
    where = str(v["path"]) + (f"（{v['section']}）" if v["section"] else "")
    return where + (f"（{v['date']}）" if v["date"] else "（无日期）")


def _why_zh(c: Conflict) -> str:
    return "日期较新" if c.why.startswith("newer") else "通知/修订比一般规定更具体"


def check_draft(question: str, draft: AnswerDraft, hits: Sequence[SearchHit],
                heads: dict[str, list[Chunk]] | None = None) -> AnswerDraft:
    """``draft`` rewritten around a conflict among its citations and ``hits`` (its
    ``conflict`` set), or ``draft`` itself when there is none or it is a "not found";
    ``heads``: the first chunks of the documents involved (:func:`find_conflict`)."""
    if not draft.found or not draft.citations:
        return draft
    c = find_conflict(question, draft.citations, hits, heads)
    if c is None:
        return draft
    answer, cites, info = apply_conflict(question, draft.answer, list(draft.citations), c)
    return dataclasses.replace(draft, answer=answer, citations=cites, conflict=info,
                               flags=[*draft.flags, "conflict"])
