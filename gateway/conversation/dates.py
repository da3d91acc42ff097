"""Dates in follow-ups (rules 1 and 2 of :mod:`gateway.conversation.rewrite`): relative dates
made absolute from the conversation's current date (:func:`resolve_dates`: "last year" → 2024,
上个月 → 2024年12月) and a step of one year from the year the previous question named
(:func:`step_year`: "and the year before?" after "… in FY2019?" → "… in FY2018?"). Pure
functions over text, no I/O.
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["resolve_dates", "step_year"]

_MONTHS = ("January February March April May June July August September October November "
           "December").split()


def resolve_dates(question: str, current_date: str | None) -> tuple[str, bool]:
    """``question`` with relative dates made absolute from ``current_date`` (``YYYY-MM-DD``);
    and whether anything changed. :raises ValueError: a malformed ``current_date``."""
    if not current_date:
        return question, False
    today = dt.date.fromisoformat(current_date)
    y, m = today.year, today.month
    prev_m = (y - 1, 12) if m == 1 else (y, m - 1)
    yday = today - dt.timedelta(days=1)
    subs = [
        (r"\blast year\b", str(y - 1)), (r"\bthis year\b", str(y)), (r"\bnext year\b", str(y + 1)),
        (r"\bthe year before last\b", str(y - 2)),
        (r"\blast month\b", f"{_MONTHS[prev_m[1] - 1]} {prev_m[0]}"),
        (r"\bthis month\b", f"{_MONTHS[m - 1]} {y}"),
        (r"\byesterday\b", (today - dt.timedelta(days=1)).isoformat()),
        (r"\btoday\b", today.isoformat()),
        (r"\btomorrow\b", (today + dt.timedelta(days=1)).isoformat()),
        (r"前年", f"{y - 2}年"), (r"去年", f"{y - 1}年"), (r"今年", f"{y}年"),
        (r"明年", f"{y + 1}年"),
        (r"上个?月", f"{prev_m[0]}年{prev_m[1]}月"), (r"(?:本|这个)月", f"{y}年{m}月"),
        (r"昨天", f"{yday.year}年{yday.month}月{yday.day}日"),
        (r"今天", f"{y}年{m}月{today.day}日"),
    ]
    out = question
    for pat, rep in subs:
        out = re.sub(pat, rep, out, flags=re.IGNORECASE)
    return out, out != question


# a step of one year from the year the previous question named: "and the year before?", "what
# about the previous year?", 上一年呢 (not "last year": that is relative to today, rule 1)
_YEAR_STEP = re.compile(
    r"\b(?P<back>(?:the\s+)?(?:year\s+before|previous\s+year|prior\s+year|preceding\s+year)|"
    r"a\s+year\s+(?:earlier|before))\b"
    r"|\b(?P<fwd>(?:the\s+)?(?:year\s+after|next\s+year|following\s+year)|"
    r"a\s+year\s+later)\b"
    r"|(?P<zback>上一年|前一年|上一个?财年|前一个?财年)|(?P<zfwd>下一年|后一年|下一个?财年)", re.I)
_ONE_YEAR = re.compile(r"(?<![\d.])(?P<fy>FY\s*'?|fiscal\s+(?:year\s+)?)?(?P<y>(?:19|20)\d\d)"
                       r"(?![\d.])", re.I)


def step_year(question: str, previous: str) -> str | None:
    """``previous`` with its one year (``2019``, ``FY2019``, ``fiscal year 2019``, every
    mention of it) moved one back or on when ``question`` asks for the year before or after it
    ("and the year before?", "what about the following year?", 上一年呢); ``None`` when
    ``question`` asks no such step or ``previous`` names no year or more than one."""
    m = _YEAR_STEP.search(question)
    years = list(_ONE_YEAR.finditer(previous))
    if m is None or len({y.group("y") for y in years}) != 1:
        return None
    step = -1 if (m.group("back") or m.group("zback")) else 1
    return _ONE_YEAR.sub(lambda y: (y.group("fy") or "") + str(int(y.group("y")) + step),
                         previous)
