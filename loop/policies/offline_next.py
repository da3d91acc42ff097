"""What the offline reading policy (``loop.policies.offline.OfflinePolicy``) searches and
pages next, as pure functions of the loop state: the first searches (the question, its key
terms), the refined second-turn search (relevance feedback on the candidates shown), and the
read chunk whose next chunk holds the table its caption announces (or the rest of a statement
table).
"""

from __future__ import annotations

import re

from corpus.statement_rows import parse_row
from corpus.tuning import OfflineTuning
from loop.controller import LoopState
from loop.evidence import asks_quantity

__all__ = ["caption_chunk", "first_searches", "refine_query"]

# the last line of a chunk cut from the table or figure it announces
_CAPTION = re.compile(
    r"^(?:表|图|table|figure|fig\.)\s*[0-9一二三四五六七八九十]+(?:[.\-–][0-9]+)*(?:\s*[:：.]|\s|$)"
    r"|(?:如下表|见下表|下表|如下图|如下|as follows|the following table)[^。.]{0,20}[:：]?$",
    re.I,
)
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)"
                   r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b",
                   re.I)


def _runs_on(last: str) -> bool:
    """True when ``last`` (a chunk's last line) is a statement row (label + period cells,
    ``corpus.statement_rows.parse_row``) or a short line holding a year or a month and day (a
    period header: ``2021``, ``August 30,``): the statement table goes on past the chunk."""
    return parse_row(last) is not None or (len(last) <= 40 and bool(_YEAR.search(last)))


def first_searches(state: LoopState, tuning: OfflineTuning) -> list[str]:
    """The question (as the caller searched it, :attr:`LoopState.query`, when given), and
    (``term_search``) its key terms alone when that differs."""
    out = [state.query or state.question]
    alt = " ".join(state.matcher.terms)
    if tuning.term_search and alt.replace(" ", "") != state.question.replace(" ", ""):
        out.append(alt)
    return out

def refine_query(state: LoopState, tuning: OfflineTuning) -> str:
    """The second-turn search (relevance feedback on the candidates shown so far), ``""``
    for none.

    When a code of the question (:attr:`loop.evidence.TermMatcher.codes`) is held by at
    least ``subject_share`` of five or more candidates, it names their document rather than
    the place to read, and the search index splits it into several terms
    (``esp32-pico-d4`` → ``esp32``, ``pico``, ``d4``) that outweigh the words that do
    locate the answer: search the other key terms alone (zhpdf:10, the storage
    temperature row of a table whose chunk does not name the product: rank 17 → 1).
    Otherwise search without the key terms no candidate holds (a paraphrase's own words:
    这颗, 过炉), so the corpus's words are not outweighed."""
    m, ctx = state.matcher, state.ctx
    held = [set(m.matched(c.context_text())) for c in ctx.seen.values()]
    seen_terms = set().union(*held)
    subject = {t for t in m.codes if len(held) >= 5
               and sum(t in h for h in held) >= tuning.subject_share * len(held)}
    focused = [t for t in m.terms if t not in subject]
    if subject and len(focused) >= 2:
        return " ".join(focused)
    kept = [t for t in m.terms if t in seen_terms]
    return " ".join(kept) if 2 <= len(kept) < len(m.terms) else ""

def caption_chunk(state: LoopState, floor: float) -> str | None:
    """The read chunk (best key-term coverage first, at least ``floor``) whose
    text ends with a table or figure caption (``表 1: … 产品规格``, ``Table 3.``) or a
    lead-in to one (``如下表所示：``, ``as follows:``) while the next chunk is unread: the
    chunker cut the table from its caption (zhpdf:08, the specification table on p.6); for
    a question asking for a figure, also one ending inside a statement table (a statement
    row or a period header line, :func:`_runs_on`: the rows go on in the next chunk);
    ``None`` when there is none."""
    m, ctx = state.matcher, state.ctx
    figure = asks_quantity(state.question)
    best: tuple[float, str] | None = None
    for cid, c in ctx.read.items():
        if not c.next_id or c.next_id in ctx.read:
            continue
        last = c.text.rstrip().rsplit("\n", 1)[-1].strip()
        caption = len(last) <= 80 and not last.endswith("。") and bool(_CAPTION.search(last))
        if not (caption or (figure and _runs_on(last))):
            continue
        cov = m.coverage(c.context_text())
        if cov >= floor and (best is None or cov > best[0]):
            best = (cov, cid)
    return None if best is None else best[1]
