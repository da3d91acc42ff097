"""How a question names, and a text writes, the specific terms ``corpus.presence`` checks:
four-digit years, dates with an English month name, numbered figures and tables, dotted
identifiers (:func:`corpus.presence.specific_terms`).

- the question side: :func:`asked_dates` (``as of March 31, 2017`` → ``march 31, 2017``),
  :func:`asked_labels` (``Fig. 7`` → ``figure 7``), :func:`asked_dotted` (``contact.meet``);
- the text side: :func:`holds_specific` (a term in a text, written any of the ways a document
  writes it), :func:`written_dates` and :func:`written_labels` (every date / label a text
  writes, as terms), :func:`written_marks` (the years, labels, dates and dotted identifiers of a
  whole document, for the terms the keyword index cannot find alone: :func:`index_blind`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from corpus.term_match import holds_term

__all__ = ["ANY_YEAR", "YEAR", "asked_dates", "asked_dotted", "asked_labels", "holds_specific",
           "index_blind", "written_dates", "written_labels", "written_marks"]

#: a four-digit year 1900–2099 (``fullmatch`` a term)
YEAR = re.compile(r"(?:19|20)\d\d")
#: a four-digit year 1900–2099 standing alone in a text, not inside a longer number
#: (``search`` / ``findall`` / ``sub`` a text)
ANY_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# a numbered figure or table the question names: "Figure 7", "Fig. 3", "Table 2", "图7", "表3"
# ("代表3种" is no table: a count word follows the number)
_LABEL_ASKED = re.compile(
    r"\b(?P<en>figure|fig\.|table)\s*(?P<n>\d{1,3})(?!\d|,\d)"
    r"|(?P<zh>[图圖表])\s*(?P<m>\d{1,3})(?!,\d)(?![\d个種种名位项項条條年月日天次件人元])")
# the term a label becomes, and how a document may write it (any case after normalising)
_LABEL_TERM = re.compile(r"^(figure|table|图|表) (\d{1,3})$")
_ROMAN = ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii",
          "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx")
_LABEL_WRITTEN = {"figure": r"\b(?:figure|fig\.?)", "table": r"\b(?:table|tab\.)",
                  "图": "[图圖]", "表": "表"}
# a date the question pins its fact to: "as of March 31, 2017", "revised on May 2018",
# "Oct. 24, 2016", "31st March, 2007" (English month names, full or abbreviated)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")
_MONTH_WORD = (r"(?:january|february|march|april|may|june|july|august|september|october"
               r"|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YR = r"(?:19|20)\d\d(?!\d)"
_DATE_ASKED = re.compile(
    rf"\b(?P<mon>{_MONTH_WORD})\b\.?\s*(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*)?,?\s+"
    rf"(?P<y>{_YR})"
    rf"|\b(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon2>{_MONTH_WORD})\b\.?\s*,?\s*"
    rf"(?P<y2>{_YR})", re.I)
# how a document writes a date: a month name and the year, whatever spaces, commas, dots and
# table rules stand between ("May 2016", "March 31,\n \n2017", "May 31, 2019, 2018 and
# 2017"); a month and a day (or a range of days: "October 24-26, 2016"), the day first or not
# ("31st March, 2007", "31-Dec-2019"), with every year written in the next _DATE_REACH
# characters (a table's header row of dates above its row of years: "| December 31, |
# December 31, |" then "| 2018 | 2017 |"); or in digits (03/31/2017, 31.03.2017, 2017-03-31)
_SEP = r"[^\w]{0,12}"
_DATE_REACH = 160
_DATE_WRITTEN = re.compile(
    rf"\b(?P<mon>{_MONTH_WORD})\b\.?(?:{_SEP}(?P<d>\d{{1,2}})(?:st|nd|rd|th)?(?!\d)"
    rf"(?:\s*[-–—]\s*(?P<d_end>\d{{1,2}})(?!\d))?)?"
    rf"|(?<![\d.])(?P<d0>\d{{1,2}})(?:st|nd|rd|th)?[\s,.-]{{1,3}}(?:of\s+)?(?P<mon0>{_MONTH_WORD})\b"
    rf"|(?<![\d.])(?P<a>\d{{1,2}})[./-](?P<b>\d{{1,2}})[./-](?P<y2>{_YR})"
    rf"|(?<!\d)(?P<y3>(?:19|20)\d\d)[./-](?P<m3>\d{{1,2}})(?!\d)(?:[./-](?P<d3>\d{{1,2}})(?!\d))?",
    re.I)
# the year (and the years listed after it) right after a month written without a day
_YEAR_NEXT = re.compile(rf"{_SEP}(?P<y>{_YR})(?P<more>(?:\s*(?:,|and|&|or)\s*{_YR})*)")
# the term of a date: "march 2017" (month and year), "march 31, 2017" (with the day)
_DATE_TERM = re.compile(r"^(" + "|".join(_MONTHS) + r")(?: (\d{1,2}),)? ((?:19|20)\d\d)$")
# a dotted identifier the question names: a label or an API path ("Contact.Meet",
# "mmdet.models.dense_heads"); parts of two characters or more (no initials "G.W.Bush", no
# "e.g."), not a web domain or a file name ("GitLab.com", "report.pdf")
_DOTTED = re.compile(r"(?<![\w.@/])[a-z][a-z0-9_]+(?:\.[a-z_][a-z0-9_]+)+(?![\w@/]|\.\w)")
_NOT_DOTTED = re.compile(r"\.(?:com|org|net|io|gov|edu|co|uk|cn|de|ai|app|dev|info|biz|us|jp"
                         r"|md|pdf|txt|html?|docx?|xlsx?|csv|json|ya?ml|py|js|png|jpe?g)$")


def asked_labels(question: str) -> list[str]:
    """The numbered figures and tables ``question`` names, as terms (``figure 7``, ``表 3``)."""
    out = []
    for m in _LABEL_ASKED.finditer(question):
        if m.group("en"):
            kind = "figure" if m.group("en").startswith("fig") else "table"
            out.append(f"{kind} {int(m.group('n'))}")
        else:
            out.append(f"{'表' if m.group('zh') == '表' else '图'} {int(m.group('m'))}")
    return [t for t in out if not t.endswith(" 0")]


def _month(word: str) -> str:
    """The full month name of a month word (``sept.`` → ``september``)."""
    return _MONTHS[[m[:3] for m in _MONTHS].index(word.lower()[:3])]


# "may" is a month where a date preposition or a day stands by it, not the verb ("which
# companies may 2019 rules affect")
_MAY_DATE = re.compile(r"(?:\b(?:on|in|of|since|by|from|until|till|to|before|after|through|"
                       r"during|dated|ended|ending|end|early|late|mid|as\s+at)\s+)$", re.I)


def asked_dates(question: str) -> list[str]:
    """The date terms ``question`` pins its fact to: ``as of March 31, 2017`` → ``march 31,
    2017``; ``revised on May 2018`` → ``may 2018``; ``July 18-September 30, 2013`` →
    ``september 30, 2013``."""
    out = []
    for m in _DATE_ASKED.finditer(question):
        mon, year = m.group("mon") or m.group("mon2"), m.group("y") or m.group("y2")
        day = m.group("day") or m.group("day2")
        if (m.group("mon") and mon.lower() == "may" and not day
                and not _MAY_DATE.search(question[: m.start()])):
            continue
        out.append(_date_term(_month(mon), int(day) if day else 0, year))
    return out


def _date_term(month: str, day: int, year: str) -> str:
    return f"{month} {day}, {year}" if 1 <= day <= 31 else f"{month} {year}"


def written_dates(text: str) -> set[str]:
    """The date terms a ``text`` writes, in words or digits, each with and without its day
    (``march 31, 2017`` and ``march 2017``; a digit date whose month and day could be either
    way round gives both)."""
    out: set[str] = set()

    def add(month: int, days: Iterable[int], years: Iterable[str]) -> None:
        if 1 <= month <= 12:
            for y in years:
                out.add(_date_term(_MONTHS[month - 1], 0, y))
                out.update(_date_term(_MONTHS[month - 1], d, y) for d in days)

    for m in _DATE_WRITTEN.finditer(text):
        if m.group("mon0") or (m.group("mon") and m.group("d")):
            # a month and a day: every year written close after it
            mon, d = (m.group("mon0"), m.group("d0")) if m.group("mon0") else (
                m.group("mon"), m.group("d"))
            first = int(d)
            days = range(first, max(first, int(m.group("d_end") or 0)) + 1)
            years = ANY_YEAR.findall(text, m.end(), m.end() + _DATE_REACH)
            add(_MONTHS.index(_month(mon)) + 1, days, years)
        elif m.group("mon"):
            nxt = _YEAR_NEXT.match(text, m.end())
            if nxt:
                add(_MONTHS.index(_month(m.group("mon"))) + 1, [],
                    [nxt.group("y"), *ANY_YEAR.findall(nxt.group("more"))])
        elif m.group("y2"):
            a, b = int(m.group("a")), int(m.group("b"))
            add(a, [b], [m.group("y2")])
            add(b, [a], [m.group("y2")])
        else:
            add(int(m.group("m3")), [int(m.group("d3") or 0)], [m.group("y3")])
    return out


def asked_dotted(question: str) -> list[str]:
    """The dotted identifiers ``question`` (normalised) names (``contact.meet``)."""
    return [m.group() for m in _DOTTED.finditer(question) if not _NOT_DOTTED.search(m.group())]


def holds_specific(term: str, text: str) -> bool:
    """``holds_term``, except that a year may follow a date's dot or comma (``31.03.2001``,
    ``March 31,2003``) where a number may not (``1.2001`` is another number for
    ``holds_term``)."""
    if YEAR.fullmatch(term):
        return re.search(rf"(?<!\d){term}(?!\d)", text) is not None
    date = _DATE_TERM.match(term)
    if date:
        return date.group(3) in text and term in written_dates(text)
    label = _LABEL_TERM.match(term)
    if label:
        kind, n = label.group(1), int(label.group(2))
        roman = n < len(_ROMAN) and kind in ("figure", "table")
        num = rf"(?:{n}|{_ROMAN[n]}\b)" if roman else str(n)
        return re.search(rf"{_LABEL_WRITTEN[kind]}\s*{num}(?!\d)", text) is not None
    return holds_term(term, text)


_LABEL_IN_TEXT = re.compile(
    r"\b(figure|fig\.?|table|tab\.)\s*(\d{1,3}(?!\d)|[ivx]{1,5}\b)|([图圖表])\s*(\d{1,3})(?!\d)")


def written_labels(text: str) -> set[str]:
    """The figure / table labels a normalised ``text`` writes, as
    :func:`corpus.presence.specific_terms` terms (``Fig. 7`` and ``FIGURE VII`` → ``figure 7``;
    ``图 3`` → ``图 3``)."""
    out = set()
    for m in _LABEL_IN_TEXT.finditer(text):
        if m.group(1):
            kind = "figure" if m.group(1).startswith("fig") else "table"
            num = m.group(2)
            n = int(num) if num.isdigit() else (_ROMAN.index(num) if num in _ROMAN else 0)
            out.add(f"{kind} {n}")
        else:
            out.add(f"{'表' if m.group(3) == '表' else '图'} {int(m.group(4))}")
    return out


def index_blind(term: str) -> bool:
    """True for a term the keyword index cannot find on its own: a year (inside one index
    token such as ``31.03.2001`` or ``fy2001`` it is no BM25 term), a figure / table label (its
    number is in too many chunks for the top hits to hold the caption), a date or a dotted
    identifier (several index terms)."""
    return bool(YEAR.fullmatch(term) or _LABEL_TERM.match(term) or _DATE_TERM.match(term)
                or _DOTTED.fullmatch(term))


def written_marks(texts: Sequence[str], normalize: Callable[[str], str]) -> set[str]:
    """Every four-digit year (1900–2099) of ``texts``, and every figure / table label, date and
    dotted identifier they write once normalised, as terms (:func:`index_blind` terms)."""
    marks = {m.group() for t in texts for m in ANY_YEAR.finditer(t)}
    whole = normalize("\n".join(texts))
    marks.update(written_labels(whole))
    marks.update(written_dates(whole))
    marks.update(m.group() for m in _DOTTED.finditer(whole))
    return marks


def other_day(question: str, text: str) -> str | None:
    """The date ``question`` pins its fact to (with its day: ``october 24, 2016``) when
    ``text`` writes another day of that month and year and not that date (``October 21,
    2016``): the text tells of another event than the one asked about ("who was interviewed …
    on Oct. 24, 2016?" quoted by "… a proof of loss … dated October 21, 2016"); else ``None``.
    A question pinning no day, and a text writing no day of that month, give ``None``."""
    asked = [d for d in asked_dates(question) if "," in d]
    if not asked:
        return None
    written = written_dates(text)
    if any(d in written for d in asked):
        return None
    for d in asked:
        month, year = d.split()[0], d.split()[-1]
        if any("," in w and w.split()[0] == month and w.split()[-1] == year for w in written):
            return d
    return None

