"""The period a question pins its fact to, and whether a unit of evidence speaks of another
(issue 16 item 3): "What was the revenue in 2018?" over a report that says "Revenue in 2018 was
3.1 million euros." and "Revenue in 2019 was 4.2 million euros." must be answered by the first
sentence, never by the second — a sentence stating another year of the same quantity answers
another question. Both readers (the RAG answer decision, the LoopAgent's answer checks) and the
gateway's conflict check (two values of one quantity for two years are no conflict) ask here.

- :func:`pinned_years` — the years a question names as a period (``2018``, ``2018年``,
  ``FY2019``, ``fiscal 2019``, ``2017-2019``), not a count (``2000 units``, ``2019 人``), an
  amount (``$2,019``, ``2018.5``) or a standard's edition (``ISO 9001:2015``);
- :func:`stated_years` — the years a text states as periods, read the same way; a range
  (``2017-2019``, ``2017 to 2019``, ``2017至2019年``, ``2018/19``) states every year in it;
- :func:`other_period` — the asked years, when a unit states a year and none of them: the unit
  speaks of another period. A unit stating no year at all is not judged here (its table header
  or section may give the period).

Pure functions over text, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from corpus.citations import find_quote
from corpus.statement_rows import parse_row

__all__ = ["block_year", "other_period", "pinned_years", "row_other_period", "stated_years"]

# a year standing as a period: not inside a longer number or an amount ($2019, 2,019, 2018.5),
# not a standard's edition or a time (9001:2015, 20:19), not a code's digits (K-2019, X2019 —
# but FY2019 is a fiscal year), not a count (2000 units, 2019 人)
# (a comma or dot before it is a separator only after a digit: NFKC makes the Chinese
# "，2020年" ",2020年", and "2019年…1.2亿元，2020年…" stated 2019 alone: a trial's "2020年营业收入"
# was refused as another period)
_YEAR = (r"(?<![\d$€£¥:/])(?<!\d[.,])(?<![A-Za-z]-)(?<![A-EG-XZa-eg-xz])(?P<y>(?:19|20)\d\d)"
         r"(?![\d]|[.,:]\d)")
_COUNT = re.compile(
    r"\s*(?:%|％|percent|per\s*cent|units?|pieces?|pcs|items?|people|persons?|employees?|"
    r"staff|workers?|customers?|users?|members?|times|hours?|minutes?|seconds?|days?|"
    r"km|kg|mm|cm|mg|ml|m\b|euros?|eur\b|usd|dollars?|yuan|rmb|元|人|件|个|台|次|名|位|家|"
    r"万|亿|千|米|吨|公里|小时|分钟|天|页|条|项)", re.I)
_RANGE_SEP = r"\s*(?:-|–|—|~|～|/|to|through|至|到)\s*"
# the end year in full or by its last two digits (2018-19, 2018/19)
_RANGE = re.compile(rf"{_YEAR}{_RANGE_SEP}(?P<z>(?:19|20)\d\d|\d\d)(?![\d.,:])")
_ONE = re.compile(_YEAR)
#: the widest range read as every year in it (a longer one restricts nothing a unit could state)
_MAX_SPAN = 30


@lru_cache(maxsize=8192)
def stated_years(text: str) -> frozenset[str]:
    """The four-digit years ``text`` states as periods (module docstring), a range as every
    year in it: ``"Revenue in 2019 was 4.2 million euros."`` → ``{"2019"}``; ``"FY2017-2019"``
    → ``{"2017", "2018", "2019"}``; ``"sold 2000 units"`` → ``{}``."""
    norm = unicodedata.normalize("NFKC", text)
    out: set[str] = set()
    taken: list[tuple[int, int]] = []
    for m in _RANGE.finditer(norm):
        a = int(m["y"])
        z = int(m["z"]) if len(m["z"]) == 4 else a // 100 * 100 + int(m["z"])
        if a < z <= a + _MAX_SPAN:
            out.update(str(y) for y in range(a, z + 1))
            taken.append(m.span())
    for m in _ONE.finditer(norm):
        if any(s <= m.start() < e for s, e in taken) or _COUNT.match(norm, m.end()):
            continue
        out.add(m["y"])
    return frozenset(out)


def pinned_years(question: str) -> frozenset[str]:
    """The years ``question`` pins its fact to (:func:`stated_years` of the question):
    ``"What was the revenue in 2018?"`` → ``{"2018"}``, ``"2018年的营业收入是多少？"`` →
    ``{"2018"}``, ``"How many of the 2000 units failed?"`` → ``{}``."""
    return stated_years(question)


def other_period(question: str, unit: str) -> str | None:
    """The years ``question`` pins (sorted, ``"2018"`` or ``"2018,2019"``) when ``unit`` (the
    quoted sentence or row itself, not its chunk) states a year and none of them: it speaks of
    another period than the one asked; ``None`` when the question pins no year, the unit states
    none, or it states one asked."""
    asked = pinned_years(question)
    if not asked:
        return None
    stated = stated_years(unit)
    if not stated or stated & asked:
        return None
    return ",".join(sorted(asked))


# a table row, or a line, holding years alone: the label of the block of rows under it
# ("| 2020 |  |  |": Costco's segment table, one block of rows per fiscal year) or the period
# header of the columns below it ("2017 2016 2015": Best Buy's dividend table, text-extracted)
_YEAR_CELL = r"(?:fiscal\s+(?:year\s+)?|fy\s*)?(?:19|20)\d{2}"
_YEAR_LINE = re.compile(rf"^[\s|]*{_YEAR_CELL}(?:[\s|]+{_YEAR_CELL})*[\s|]*$", re.I)
_BLOCK_LINES = 30  # lines above a row searched for its block's year


def block_year(text_above: str) -> str | None:
    """The period line of the block a row sits in: the nearest of the 30 lines above it that
    holds years and nothing else, as written (``| 2020 |  |  |``, ``Fiscal 2020``, ``2017 2016
    2015``), else ``None``; :func:`stated_years` reads its years. A segment table of one block
    of rows per year has no period column header: "What was Costco's operating income in
    2023?" was answered by the 2020 block's "Operating income" row (helper probe); a table
    whose column header is a line of years alone, read as text, had no reading either: "How
    much higher was the dividend paid in 2003 compared to 2002?" was answered by Best Buy's
    fiscal 2017 / 2016 / 2015 dividend row (MMLongBench-Doc dev, unanswerable)."""
    for line in reversed(text_above.splitlines()[-_BLOCK_LINES:]):
        if _YEAR_LINE.match(line):
            return line.strip(" |")
    return None


def row_other_period(question: str, unit: str, chunk_text: str) -> str | None:
    """:func:`other_period` of a statement row ``unit`` of ``chunk_text`` (found in it by
    ``corpus.citations.find_quote``; the unit may run on past its row's line, into a footnote)
    read by the years of its block or column header line above it (:func:`block_year`);
    ``None`` when the unit is no row (its first line), no such line is above it, or that line
    states an asked year."""
    span = find_quote(chunk_text, unit)
    if span is None or span[0] == 0:
        return None
    line_end = chunk_text.find("\n", span[0])
    if parse_row(chunk_text[span[0]: line_end if line_end > 0 else None]) is None:
        return None
    years = block_year(chunk_text[: span[0]])
    return other_period(question, years) if years else None
