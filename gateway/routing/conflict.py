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
   gives a different value of the same unit. Values equal (a restatement) or another thing
   measured (the question's terms missing) are no conflict.
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
from datetime import date
from typing import Any

from corpus.citations import make_citation
from corpus.injection import in_injection
from corpus.types import Chunk, Citation, SearchHit
from gateway.routing.types import AnswerDraft

__all__ = ["Conflict", "Statement", "apply_conflict", "check_draft", "doc_date", "find_conflict",
           "find_rival", "judge", "statements"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENT = re.compile(r"(?<=[。；;！？!?])|(?<=\.)\s+|\n+")
_NUM = r"\d+(?:[.,]\d+)*"
_UNIT = (r"\s*(%|％|percent|per\s*cent|days?|working\s+days|weeks?|months?|years?|hours?|"
         r"minutes?|km|kg|g|m|cm|mm|eur|euros?|usd|dollars?|rmb|cny|yuan|gbp|€|\$|£|"
         r"个工作日|工作日|天|日|周|个月|月|年|小时|分钟|元|万元|亿元|公里|千米|米|公斤|千克|克|次|人|件|倍|分)?")
_VALUE = re.compile(rf"(?<![0-9A-Za-z.])(€|\$|£)?\s*({_NUM}){_UNIT}", re.I)
# a product or part code (FX-1001, ESP32-PICO-D4, CH583): its digits are a name, not a value
_CODE = re.compile(r"(?<![0-9A-Za-z])[A-Za-z]{1,8}-?\d[0-9A-Za-z]*(?:-[0-9A-Za-z]+)*")
_CHANGE = re.compile(r"\b(?:from\s+\S+\s+)?to\b|\bnow\b|改为|调整为|变更为|"
                     r"提高到|提高至|降低到|降低至|上调至|下调至|调至|增至|减至|变为", re.I)
_DATE_PATTERNS = [
    re.compile(r"(?<!\d)(20\d{2}|19\d{2})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"),
    re.compile(r"(20\d{2}|19\d{2})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日"),
]
_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"], 1)}
_DMY = re.compile(r"(?<!\d)(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\s+(\d{4})", re.I)
_MDY = re.compile(r"(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(\d{4})", re.I)
_DATE_CUE = re.compile(r"effective|in force|issued|dated|version|revised|updated|valid from|"
                       r"生效|施行|实施|发布|印发|修订|版本|起执行|起施行", re.I)
_SPECIFIC = re.compile(r"notice|amendment|addendum|supplement|update|circular|memo|"
                       r"通知|公告|补充|修订|修正|调整|更正", re.I)
_STOP = frozenset(
    "the a an of for in on at to is are was were be by with and or as from per this that these "
    "what which how many much does do did shall must may can will its it their our your each "
    "any all new old now".split())
_DATEWORDS = frozenset(_MONTHS) | {"effective", "from", "since", "until", "version", "dated"}


@dataclass(frozen=True, slots=True)
class Statement:
    """A sentence of one chunk that gives a value: ``value`` (number text), ``unit``
    (normalised, ``""`` when none), ``sentence`` as written, ``chunk`` it came from."""

    value: str
    unit: str
    sentence: str
    chunk: Chunk

    @property
    def number(self) -> float:
        """The value as a float (thousands separators dropped)."""
        return float(self.value.replace(",", ""))


@dataclass(frozen=True, slots=True)
class Conflict:
    """Two statements of different documents that disagree: ``statements`` (the answer's
    first), their documents' ``dates`` (ISO strings or ``None``), ``preferred`` (index into
    ``statements`` or ``None``: no preference found) and ``why`` (one line)."""

    statements: tuple[Statement, Statement]
    dates: tuple[str | None, str | None]
    preferred: int | None
    why: str


def _terms(text: str) -> set[str]:
    """Content terms: lower-case words (3+ letters, not stop words) and CJK character pairs."""
    words = {w for w in re.findall(r"[a-z][a-z'-]{2,}", text.lower()) if w not in _STOP}
    cjk = "".join(ch if _CJK.match(ch) else " " for ch in text)
    pairs = {run[i:i + 2] for run in cjk.split() for i in range(len(run) - 1)}
    return words | pairs


def _value_of(sentence: str) -> tuple[str, str] | None:
    """The value a sentence gives: after a change marker (``to 60``, ``调整为60``) the value
    after it, else the first value that is not part of a date."""
    undated = sentence
    for pat in (*_DATE_PATTERNS, _DMY, _MDY, _CODE):
        undated = pat.sub(lambda m: " " * len(m.group(0)), undated)
    values = [m for m in _VALUE.finditer(undated)]
    values = [m for m in values if m.group(2).strip(".,")]
    if not values:
        return None
    change = None
    for c in _CHANGE.finditer(undated):
        change = c
    if change is not None:
        after = [m for m in values if m.start() >= change.start()]
        if after:
            values = after
    m = values[0]
    unit = (m.group(3) or m.group(1) or "").lower().replace("％", "%").strip()
    unit = {"percent": "%", "per cent": "%", "€": "eur", "euro": "eur", "euros": "eur",
            "$": "usd", "dollars": "usd", "dollar": "usd", "£": "gbp", "day": "days",
            "日": "天", "个工作日": "工作日"}.get(unit, unit)
    return m.group(2).strip(".,"), unit


def statements(question: str, hits: Sequence[SearchHit], *, top: int = 8) -> list[Statement]:
    """Value-giving sentences of the first ``top`` hits that share the question's terms; a
    sentence on a line that speaks to a model (``corpus.injection``) is never one: a rival
    value is quoted to the user (issue 20 item 5)."""
    q_terms = _terms(question) - _DATEWORDS
    out: list[Statement] = []
    for hit in hits[:top]:
        for sentence in _SENT.split(hit.chunk.text):
            s = sentence.strip(" \t-*#|>")
            if len(s) < 6 or not (q_terms & _terms(s)) or in_injection(hit.chunk.text, s):
                continue
            v = _value_of(s)
            if v is not None:
                out.append(Statement(v[0], v[1], s, hit.chunk))
    return out


def doc_date(chunks: Sequence[Chunk]) -> date | None:
    """A document's date from its chunks (title, headings, text): a date next to an
    effective / issue / version word first, else the latest date written."""
    cued: list[date] = []
    seen: list[date] = []
    for c in chunks:
        texts = [c.title, " ".join(c.section_path), c.path, c.text]
        for text in texts:
            for d, pos in _dates(text):
                seen.append(d)
                # the cue before the date ("effective from …") or just after it ("…起施行")
                if _DATE_CUE.search(text[max(0, pos - 40):pos + 18]):
                    cued.append(d)
    pool = cued or seen
    return max(pool) if pool else None


def _dates(text: str) -> list[tuple[date, int]]:
    found: list[tuple[date, int]] = []
    for pat in _DATE_PATTERNS:
        for m in pat.finditer(text):
            found.extend(_date(int(m[1]), int(m[2]), int(m[3]), m.start()))
    for m in _DMY.finditer(text):
        found.extend(_date(int(m[3]), _MONTHS[m[2].lower()], int(m[1]), m.start()))
    for m in _MDY.finditer(text):
        found.extend(_date(int(m[3]), _MONTHS[m[1].lower()], int(m[2]), m.start()))
    return found


def _date(y: int, mo: int, d: int, pos: int) -> list[tuple[date, int]]:
    try:
        return [(date(y, mo, d), pos)]
    except ValueError:
        return []


def _doc_terms(chunk: Chunk) -> set[str]:
    return _terms(f"{chunk.title} {chunk.path} {' '.join(chunk.section_path)}")


def _covers(terms: set[str], chunk: Chunk) -> bool:
    """Two thirds of ``terms`` are in the chunk's title, headings, path or text."""
    return len(terms & (_doc_terms(chunk) | _terms(chunk.text))) >= 2 / 3 * len(terms)


def _names(key: set[str], a: Statement, b: Statement) -> bool:
    """``b``'s document names what the question names about ``a``'s document (the question's
    terms in ``a``'s title or headings but not in its sentence: an organisation, a product) —
    two thirds of them, in ``b``'s title, headings or text."""
    anchor = (key & _doc_terms(a.chunk)) - _terms(a.sentence)
    if not anchor:
        return True
    return _covers(anchor, b.chunk)


def _same_thing(a: Statement, b: Statement, key: set[str]) -> bool:
    """``b`` speaks of what ``a`` does: most of ``a``'s key terms, half of its other words, and
    no product code of its own when ``a`` names others."""
    ca, cb = ({c.upper() for c in _CODE.findall(x.sentence)} for x in (a, b))
    if ca and cb and not ca & cb:
        return False  # two products (FX-1001, FX-1005): their values never conflict
    ta, tb = _terms(a.sentence) - _DATEWORDS, _terms(b.sentence) - _DATEWORDS
    ka = key & ta
    if not ka or len(ka & tb) < 0.8 * len(ka):
        return False
    return len(ta & tb) >= 0.5 * min(len(ta), len(tb))


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
    first = cited[0]
    key = _terms(question) - _DATEWORDS
    mine = [s for s in found if s.chunk.chunk_id == first.chunk_id]
    if not mine:
        return None
    quote_terms = _terms(first.quote)

    def rank(s: Statement) -> tuple[int, int, int]:
        inside = s.sentence in first.quote or first.quote in s.sentence
        terms = _terms(s.sentence)
        return (-inside, -len(terms & quote_terms), -len(terms & key))

    mine.sort(key=rank)
    answer = mine[0]
    # what the question names that only titles and headings hold (an organisation, a product):
    # both documents must name it, else one of them is about something else
    named = key & set().union(*(_doc_terms(h.chunk) for h in hits[:top]))
    named -= set().union(*(_terms(s.sentence) for s in found))
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
    if zh:
        head = first["sentence"] if c.preferred is not None else answer
        note = (f"注意：文档之间有冲突。{_src_zh(first)}为 {first['value']}{first['unit']}；"
                f"{_src_zh(second)}为 {second['value']}{second['unit']}。"
                + ("采用前者（" + _why_zh(c) + "）。" if c.preferred is not None
                   else "无法判断哪一个更新或更具体。"))
    else:
        head = first["sentence"] if c.preferred is not None else answer
        note = (f"Note: the documents disagree. {_src(first)} gives {first['value']} "
                f"{first['unit']}; {_src(second)} gives {second['value']} {second['unit']}. "
                + (f"The first is preferred ({c.why})." if c.preferred is not None
                   else "Neither is newer or more specific."))
    out = {"preferred": 0 if c.preferred is not None else None, "values": values, "why": c.why}
    return f"{head}\n\n{note}", cites, out


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
