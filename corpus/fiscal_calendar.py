"""Dates of fiscal periods asked relative to today, read from the fiscal calendar a document
defines (issue 16, item 2: "relative dates with ``current_date``").

"What was the end date of the fiscal quarter that preceded the current one?" asked on
2025-11-11 of a handbook that writes its calendar as

    Q1: February 1 through April 30        Q3: August 1 through October 31
    Q2: May 1 through July 31              Q4: November 1 through January 31

is answered by neither retrieval path on its own: both quote the calendar (or a page about
fiscal-year naming) and leave the date arithmetic to the reader. Here the arithmetic is done
and cited: :func:`asked_date` reads which period the question means (current / previous / next
fiscal quarter or year, "the second fiscal quarter of this fiscal year", "the final fiscal
quarter of the previous fiscal year", "the current calendar year's first fiscal quarter") and
whether it asks the start or the end; :func:`calendar_quarters` reads a calendar of four
contiguous quarters (``Q1``–``Q4`` or "first" … "fourth quarter", English month names, any
of through / to / – between the dates; 第一季度 … with 月/日); :func:`dated_answer` finds
a calendar in the chunks given (the retrieved ones first, then a keyword search's) and answers
with the date in ISO form, citing the quarter's line verbatim
(``corpus.citations.make_citation``).

A question that does not say "fiscal" (财年 / 财季 / 财政) is about calendar quarters, which
need no document: nothing is answered here. A question asking another fact *of* a period ("the
latest date an expense incurred during the previous fiscal quarter should have been
submitted") names no start or end of the period itself and is left to the paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from corpus.citations import make_citation
from corpus.types import Chunk, ChunkStore, Citation, SearchFilter, SparseVector

__all__ = ["AskedDate", "Quarter", "asked_date", "asked_on", "calendar_quarters",
           "calendar_search", "dated_answer", "period_dates"]

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
         r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_ORD_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "final": 4, "last": 4,
              "一": 1, "二": 2, "三": 3, "四": 4, "1": 1, "2": 2, "3": 3, "4": 4}
_EN_QUARTER = re.compile(
    rf"(?:\bQ([1-4])\b|\b(first|second|third|fourth)\s+(?:fiscal\s+)?quarter\b)[^\n]{{0,24}}?"
    rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\s*(?:,\s*\d{{4}}\s*)?"
    rf"(?:through|thru|to|until|[-–—~|])\s*{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b",
    re.IGNORECASE)
_CALENDAR_HITS = 10  # keyword hits looked through for a calendar none of the chunks given holds
_ZH_QUARTER = re.compile(
    r"(?:第([一二三四1-4])(?:财政|财务)?季度|Q([1-4]))[^\n]{0,12}?(\d{1,2})月(\d{1,2})日"
    r"\s*(?:至|到|[-–—~|])\s*(\d{1,2})月(\d{1,2})日")


@dataclass(frozen=True, slots=True)
class Quarter:
    """One fiscal quarter of a calendar: its number (1–4), first and last day as
    ``(month, day)``, and the text that defines it (verbatim from the chunk)."""

    number: int
    start: tuple[int, int]
    end: tuple[int, int]
    text: str


@dataclass(frozen=True, slots=True)
class AskedDate:
    """The date a question asks: ``endpoint`` ``"start"`` or ``"end"`` of a fiscal ``kind``
    (``"quarter"`` or ``"year"``); ``offset`` periods from the one holding today (−1 the
    previous, 0 the current, +1 the next) — or, with ``ordinal`` (1–4), that quarter of the
    fiscal year ``offset`` years from the current one, or (``calendar_year``) of the fiscal
    year whose quarter of that number starts in the calendar year ``offset`` from today's."""

    endpoint: str
    kind: str
    offset: int
    ordinal: int | None = None
    calendar_year: bool = False


def _month(word: str) -> int:
    return next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(word.lower()[:3]))


def calendar_quarters(text: str) -> tuple[Quarter, ...] | None:
    """The fiscal calendar ``text`` defines: four quarters numbered 1–4, each starting the day
    after the one before ends (Q4 ends the day before Q1 starts), else ``None``."""
    found: dict[int, Quarter] = {}
    for m in _EN_QUARTER.finditer(text):
        n = int(m.group(1)) if m.group(1) else _ORD_WORDS[m.group(2).lower()]
        q = Quarter(n, (_month(m.group(3)), int(m.group(4))), (_month(m.group(5)),
                    int(m.group(6))), m.group(0))
        found.setdefault(n, q)
    for m in _ZH_QUARTER.finditer(text):
        n = _ORD_WORDS[m.group(1) or m.group(2)]
        found.setdefault(n, Quarter(n, (int(m.group(3)), int(m.group(4))),
                                    (int(m.group(5)), int(m.group(6))), m.group(0)))
    if sorted(found) != [1, 2, 3, 4]:
        return None
    qs = tuple(found[n] for n in (1, 2, 3, 4))
    try:
        for a, b in zip(qs, (*qs[1:], qs[0]), strict=True):
            nxt = date(2001, *a.end) + timedelta(days=1)  # 2001: not a leap year
            if (nxt.month, nxt.day) != b.start:
                return None
    except ValueError:  # a day the month does not have
        return None
    return qs


def period_dates(quarters: tuple[Quarter, ...], fiscal_start_year: int) -> list[tuple[date, date]]:
    """The first and last day of each quarter of the fiscal year that starts in the calendar
    year ``fiscal_start_year`` (a quarter starting before Q1's month-day lies in the next
    calendar year); a quarter ends the day before the next one starts (a quarter written to end
    on February 28 ends on the 29th in a leap year).

    :raises ValueError: a year outside 1..9998."""
    q1 = quarters[0].start

    def on(md: tuple[int, int], year: int) -> date:
        return date(year + (1 if md < q1 else 0), md[0], min(md[1], 28) if md == (2, 29)
                    else md[1])

    starts = [on(q.start, fiscal_start_year) for q in quarters]
    starts.append(on(q1, fiscal_start_year + 1))
    return [(starts[i], starts[i + 1] - timedelta(days=1)) for i in range(len(quarters))]


_FISCAL = re.compile(r"\bfiscal\b|财年|财季|财政年|财务年", re.IGNORECASE)
# the question asks a start or end of the period itself: "the end date of …", "the first day
# of …", "When did <the … quarter / year> conclude?", "…结束日期" — not another fact dated in it
_ASK_OF = re.compile(r"\b(start(?:ing)?|begin(?:ning)?|end(?:ing)?|clos(?:e|ing)|first|last|"
                     r"final)\s+(?:date|day)\s+of\b", re.IGNORECASE)
_ASK_WHEN = re.compile(r"\bwhen\s+(?:did|does|do|will|is|was)\s+((?:[\w'-]+\s+){1,10}?"
                       r"(?:quarter|period|year))\s+(?:\w+\s+)?(start|begin|end|conclude|close|"
                       r"finish)", re.IGNORECASE)
_ASK_ZH = re.compile(r"(开始|起始|结束|截止)(?:的)?(?:日期|时间|日|于|是)|"
                     r"(?:何时|什么时候|哪[一]?天)(开始|结束)")
_STARTS = ("start", "begin", "first", "开始", "起始")
_PREVIOUS = re.compile(r"\b(?:previous|prior|preceding|preceded|last|past)\b|上一?个?(?=季度|财)",
                       re.IGNORECASE)
_NEXT = re.compile(r"\b(?:next|following|upcoming|coming|after the current)\b|"
                   r"下一?个?(?=季度|财)", re.IGNORECASE)
_CURRENT = re.compile(r"\b(?:current(?:ly)?|this|present|now)\b|本(?=季度|财)|当前|目前",
                      re.IGNORECASE)
_ORDINAL_Q = re.compile(r"\b(first|second|third|fourth|final|last)\s+(?:fiscal\s+)?quarter\b|"
                        r"\bQ([1-4])\b|第([一二三四])(?:个)?(?:财政|财务)?季度", re.IGNORECASE)
_OF_YEAR = re.compile(r"(?:\bof|\bin)\s+(?:the\s+)?(\w+)\s+(fiscal|calendar)\s+year|"
                      r"\b(\w+)\s+(fiscal|calendar)\s+year'?s?|(上|下|本)(财年|财政年度|年度)",
                      re.IGNORECASE)
_QUARTER_WORD = re.compile(r"\bquarter\b|\bperiod\b|季度|财季", re.IGNORECASE)
_YEAR_WORD = re.compile(r"\bfiscal\s+year\b|财年|财政年度", re.IGNORECASE)


def _offset(words: str) -> int | None:
    if _PREVIOUS.search(words):
        return -1
    if _NEXT.search(words):
        return 1
    if _CURRENT.search(words):
        return 0
    return None


def asked_date(question: str) -> AskedDate | None:
    """Which start or end of a fiscal period ``question`` asks (:class:`AskedDate`), or
    ``None`` when it asks no such date: no "fiscal", no "start / end date of …" or "when did
    … end", no period relative to today ("FY2024's Q3" names its year: the paths answer it)."""
    if not _FISCAL.search(question):
        return None
    if (m := _ASK_OF.search(question)) is not None:
        word, period = m.group(1).lower(), question[m.end():]
    elif (m := _ASK_WHEN.search(question)) is not None:
        word, period = m.group(2).lower(), m.group(1)
    elif (m := _ASK_ZH.search(question)) is not None:
        word, period = m.group(1) or m.group(2), question[: m.start()]
    else:
        return None
    endpoint = "start" if word.startswith(_STARTS) else "end"
    if (o := _ORDINAL_Q.search(period)) is not None:
        n = _ORD_WORDS[(o.group(1) or o.group(2) or o.group(3)).lower()]
        y = _OF_YEAR.search(period)
        if y is None:  # "When does the second fiscal quarter start?": this fiscal year's
            return AskedDate(endpoint, "quarter", 0, n)
        rel, kind = ((y.group(1), y.group(2)) if y.group(1) else (y.group(3), y.group(4))
                     if y.group(3) else (y.group(0), "fiscal"))
        off = _offset(rel)
        if off is None:
            return None
        return AskedDate(endpoint, "quarter", off, n, kind.lower() == "calendar")
    kind = "quarter" if _QUARTER_WORD.search(period) else (
        "year" if _YEAR_WORD.search(period) else None)
    off = _offset(period)
    if kind is None or off is None:
        return None
    return AskedDate(endpoint, kind, off)


def _resolve(asked: AskedDate, quarters: tuple[Quarter, ...],
             today: date) -> tuple[date, Quarter] | None:
    """The asked date and the quarter it is a day of (for a year: its first or last)."""
    q1 = quarters[0].start
    fy = today.year - (1 if (today.month, today.day) < q1 else 0)  # fiscal start year today
    pick = 0 if asked.endpoint == "start" else 1
    if asked.ordinal is not None:
        i = asked.ordinal - 1
        if asked.calendar_year:  # the quarter of that number starting in that calendar year
            cal = today.year + asked.offset
            for y in (cal - 1, cal):
                span = period_dates(quarters, y)[i]
                if span[0].year == cal:
                    return span[pick], quarters[i]
            return None
        return period_dates(quarters, fy + asked.offset)[i][pick], quarters[i]
    if asked.kind == "year":
        spans = period_dates(quarters, fy + asked.offset)
        i = 0 if pick == 0 else 3
        return spans[i][pick], quarters[i]
    flat = [(span, q) for y in (fy - 1, fy, fy + 1)
            for span, q in zip(period_dates(quarters, y), quarters, strict=True)]
    now = next(k for k, (span, _) in enumerate(flat) if span[0] <= today <= span[1])
    span, q = flat[now + asked.offset]
    return span[pick], q


def asked_on(current_date: str | date | None) -> date:
    """The day a question is asked on: ``current_date`` (``YYYY-MM-DD`` or a date), else
    today (local time).

    :raises ValueError: ``current_date`` is not an ISO date."""
    if isinstance(current_date, date):
        return current_date
    return date.fromisoformat(current_date) if current_date else date.today()


def calendar_search(store: ChunkStore, collection: str,
                    sparse_query: Callable[[str], SparseVector],
                    flt: SearchFilter | None = None) -> Callable[[str], list[Chunk]]:
    """The ``search`` :func:`dated_answer` takes: a keyword (BM25) query of ``collection``,
    inside ``flt``, its top 10 hits' chunks (blocking; the store's errors are raised)."""
    def search(text: str) -> list[Chunk]:
        return [h.chunk for h in store.keyword_search(collection, sparse_query(text),
                                                      _CALENDAR_HITS, flt)]
    return search


def _zh(text: str) -> bool:
    return sum("\u4e00" <= ch <= "\u9fff" for ch in text) * 2 > len(text.strip())


def dated_answer(question: str, today: date, chunks: Iterable[Chunk],
                 search: Callable[[str], Iterable[Chunk]] | None = None,
                 ) -> tuple[str, Citation] | None:
    """The date ``question`` asks (:func:`asked_date`), computed from the first fiscal calendar
    (:func:`calendar_quarters`) in ``chunks`` — else in the chunks ``search`` returns for a
    keyword query — with the citation of the quarter line it is a day of.

    :param today: the date the question is asked on (the caller's ``current_date``).
    :param chunks: the retrieved or read chunks, best first.
    :param search: ``query text -> chunks`` (a keyword search of the collection, blocking);
        ``None``: only ``chunks``.
    :returns: ``(answer, citation)``: "2025-10-31 (the end of the fiscal quarter …)" in the
        question's language; ``None`` when no date is asked or no calendar is found.
    """
    asked = asked_date(question)
    if asked is None:
        return None
    seen: set[str] = set()

    def first_calendar(cands: Iterable[Chunk]) -> tuple[Chunk, tuple[Quarter, ...]] | None:
        for c in cands:
            if c.chunk_id not in seen and (qs := calendar_quarters(c.text)) is not None:
                return c, qs
            seen.add(c.chunk_id)
        return None

    found = first_calendar(chunks)
    if found is None and search is not None:
        query = "第一季度 第二季度 第三季度 第四季度 财年" if _zh(question) else \
            "fiscal year quarter Q1 Q2 Q3 Q4 through"
        found = first_calendar(search(query))
    if found is None:
        return None
    chunk, quarters = found
    try:
        got = _resolve(asked, quarters, today)
    except (ValueError, OverflowError):  # a year out of the date range (current_date 9999-12-31)
        got = None
    if got is None or (cit := make_citation(chunk, got[1].text)) is None:
        return None
    day = got[0]
    if _zh(question):
        what = "开始" if asked.endpoint == "start" else "结束"
        return f"{day.isoformat()}（{day.year}年{day.month}月{day.day}日{what}）：{cit.quote}", cit
    what = "starts" if asked.endpoint == "start" else "ends"
    when = f"{_MONTHS[day.month - 1].capitalize()} {day.day}, {day.year}"
    return f"{day.isoformat()} ({when}; the period {what} on that day): {cit.quote}", cit
