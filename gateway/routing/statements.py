"""Statements and dates for the conflict check (:mod:`gateway.routing.conflict`, issue 16
item 4), by rules and without I/O.

- :func:`statements`: sentences of retrieved chunks that hold a value (a number with its unit:
  ``60 EUR``, ``30 天``, ``15%``; in ``from 50 to 60`` / ``由50调整为60`` the new value) and the
  question's key terms (:func:`content_terms`: English words, Chinese character pairs); a date,
  a product code (:func:`codes`) or a clause / section / version number (``6.2.4``) is never a
  value.
- :func:`period_of`: the years a statement gives its value for (``in 2018``, ``2018年``,
  ``fiscal 2019``), not those of a day it is dated by (``自2025年4月1日起``, ``effective
  1 March 2025``: a version's date, :func:`doc_date`'s business).
- :func:`doc_date`: a document's date (an effective / issue / version date in its title,
  headings or text — ``2025-03-01``, ``2025年3月1日``, ``1 March 2025``, ``March 1, 2025`` — else
  the latest such date in its passages).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from corpus.injection import in_injection
from corpus.period_scope import stated_years
from corpus.term_forms import YEAR
from corpus.types import Chunk, SearchHit

__all__ = ["DATE_WORDS", "Statement", "codes", "content_terms", "doc_date", "period_of",
           "statements"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_SENT = re.compile(r"(?<=[。；;！？!?])|(?<=\.)\s+|\n+")
_NUM = r"\d+(?:[.,]\d+)*"
_UNIT = (r"\s*(%|％|percent|per\s*cent|days?|working\s+days|weeks?|months?|years?|hours?|"
         r"minutes?|km|kg|g|m|cm|mm|eur|euros?|usd|dollars?|rmb|cny|yuan|gbp|€|\$|£|"
         r"个工作日|工作日|天|日|周|个月|月|年|小时|分钟|元|万元|亿元|公里|千米|米|公斤|千克|克|次|人|件|倍|分)?")
_VALUE = re.compile(rf"(?<![0-9A-Za-z.])(€|\$|£)?\s*({_NUM}){_UNIT}", re.I)
# a product or part code (FX-1001, ESP32-PICO-D4, CH583): its digits are a name, not a value
_CODE = re.compile(r"(?<![0-9A-Za-z])[A-Za-z]{1,8}-?\d[0-9A-Za-z]*(?:-[0-9A-Za-z]+)*")
# a clause, section or version number (6.2.4, 1.2.0): two dots or more, no value
_DOTTED = re.compile(r"(?<![0-9A-Za-z.])\d+(?:\.\d+){2,}")
# numbers that name or date something rather than measure it (issue 16 item 4; each seen giving
# a false "the documents disagree" on the dev questions): a reference (Section 104, Item 7,
# 第19条), a form or code led by digits (10-K, 8-K), a telephone number, a day and month with no
# year (January 31, 1 February) or written with slashes (31/03/2007)
_REF = re.compile(r"\b(?:sections?|sec\.|items?|notes?|articles?|art\.|clauses?|parts?|pages?|"
                  r"p\.|tables?|figures?|fig\.|exhibits?|chapters?|schedules?|forms?)\s*"
                  r"\d+(?:\.\d+)*[a-z]?\b|第\s*\d+\s*[条款章节项页]", re.I)
_LEAD_CODE = re.compile(r"(?<![0-9A-Za-z])\d+-[A-Za-z]+\b")
_PHONE = re.compile(r"\(?\b\d{3}\)?[ .-]?\d{3}[-.]\d{4}\b")
_SLASH_DATE = re.compile(r"(?<![\d/])\d{1,2}[/.]\d{1,2}[/.](?:19|20)?\d{2}(?![\d/])")
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
_DAY_MONTH = re.compile(r"(?<!\d)\d{1,2}\s+(?:" + "|".join(_MONTHS) + r")\b|\b(?:"
                        + "|".join(_MONTHS) + r")\s+\d{1,2}(?!\d)", re.I)
_DATE_CUE = re.compile(r"effective|in force|issued|dated|version|revised|updated|valid from|"
                       r"生效|施行|实施|发布|印发|修订|版本|起执行|起施行", re.I)
_STOP = frozenset(
    "the a an of for in on at to is are was were be by with and or as from per this that these "
    "what which how many much does do did shall must may can will its it their our your each "
    "any all new old now".split())
#: words of a date or its cue, never a key term of what a statement is about
DATE_WORDS = frozenset(_MONTHS) | {"effective", "from", "since", "until", "version", "dated"}


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


def codes(sentence: str) -> set[str]:
    """The product or part codes a sentence names (FX-1001, ESP32-PICO-D4, CH583), upper case:
    their digits are names, not values."""
    return {c.upper() for c in _CODE.findall(sentence)}


def period_of(sentence: str) -> frozenset[str]:
    """The years ``sentence`` states as periods (``corpus.period_scope.stated_years``) once
    the dates written with their day are blanked (``2025-03-01``, ``2025年4月1日``, ``1 March
    2025``, ``March 1, 2025``): ``"Revenue in 2018 was 3.1 million euros."`` → ``{"2018"}``,
    ``"自2025年4月1日起，员工每周最多可远程办公3天。"`` → ``{}``."""
    for pat in (*_DATE_PATTERNS, _DMY, _MDY, _SLASH_DATE):
        sentence = pat.sub(lambda m: " " * len(m.group(0)), sentence)
    return stated_years(sentence)


def content_terms(text: str) -> set[str]:
    """Content terms: lower-case words (3+ letters, not stop words) and CJK character pairs."""
    words = {w for w in re.findall(r"[a-z][a-z'-]{2,}", text.lower()) if w not in _STOP}
    cjk = "".join(ch if _CJK.match(ch) else " " for ch in text)
    pairs = {run[i:i + 2] for run in cjk.split() for i in range(len(run) - 1)}
    return words | pairs


def _value_of(sentence: str) -> tuple[str, str] | None:
    """The value a sentence gives: after a change marker (``to 60``, ``调整为60``) the value
    after it, else the first value that is not part of a date, a reference, a code or a
    telephone number, nor a year written alone (``fiscal 2024``). A sentence holding two or
    more numbers without a unit and no change marker is a table row of columns (periods,
    segments: ``Gross profit 794 722 2,820``): which cell is "the" value is unknown, so it
    gives none."""
    undated = sentence
    for pat in (*_DATE_PATTERNS, _DMY, _MDY, _SLASH_DATE, _DAY_MONTH, _REF, _PHONE, _LEAD_CODE,
                _CODE, _DOTTED):
        undated = pat.sub(lambda m: " " * len(m.group(0)), undated)
    def has_unit(m: re.Match[str]) -> bool:  # a currency sign before or a unit after
        return bool(m.group(1) or m.group(3))

    values = [m for m in _VALUE.finditer(undated) if m.group(2).strip(".,")]
    values = [m for m in values if has_unit(m) or not YEAR.fullmatch(m.group(2))]
    if not values:
        return None
    change = None
    for c in _CHANGE.finditer(undated):
        change = c
    if change is None and sum(1 for m in values if not has_unit(m)) >= 2:
        return None
    if change is not None:
        after = [m for m in values if m.start() >= change.end()]
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
    q_terms = content_terms(question) - DATE_WORDS
    out: list[Statement] = []
    for hit in hits[:top]:
        for sentence in _SENT.split(hit.chunk.text):
            s = sentence.strip(" \t-*#|>")
            if len(s) < 6 or not (q_terms & content_terms(s)) or in_injection(hit.chunk.text, s):
                continue
            v = _value_of(_asked_clause(s, q_terms)) or _value_of(s)
            if v is not None:
                out.append(Statement(v[0], v[1], s, hit.chunk))
    return out


_CLAUSE = re.compile(r"[，；;]\s*|,\s+")  # not a thousands separator (5,409)


def _asked_clause(sentence: str, q_terms: set[str]) -> str:
    """The clause of ``sentence`` (cut at commas and semicolons) holding a number whose head,
    then whole text, shares the most of ``q_terms``; else the sentence.
    "一线城市住宿费上限调整为800元，其他城市调整为500元" gives 800 for a question on 一线城市 (a
    trial's conflict note read 500, the value after the last change marker)."""
    clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
    if len(clauses) < 2:
        return sentence
    # by the question's terms at the clause's head (its subject: 其他城市 of an elliptic
    # "其他城市调整为500元"), then anywhere in it
    scored = [(len(q_terms & content_terms(c.strip()[:4])), len(q_terms & content_terms(c)),
               -i, c) for i, c in enumerate(clauses) if re.search(r"\d", c)]
    if not scored:
        return sentence
    best = max(scored)
    return best[3] if best[0] or best[1] else sentence


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
