"""What document resolution (``rag.resolve``) reads of organisation names and years: an
issuer's grouping key (:func:`issuer_key`), the years a question names (:func:`question_years`),
those it names as fiscal years (:func:`fiscal_years`) and the organisations it asks about
(:func:`asked_organisations`). Pure functions, no I/O.
"""

from __future__ import annotations

import re

__all__ = ["asked_organisations", "fiscal_years", "issuer_key", "question_years"]

_YEAR_Q = re.compile(r"(?:fy\s*'?|(?<![\d.]))((?:19[5-9]|20\d)\d)(?!\d)", re.IGNORECASE)
_LEGAL = re.compile(
    r"\b(?:the|inc|incorporated|co|corp|corporation|company|companies|plc|ltd|limited|llc|"
    r"lp|l\.p|n\.v|s\.a|ag|se|group|holdings?)\b\.?"
)


def issuer_key(organisation: str) -> str:
    """An organisation's name for grouping its documents: lower case, without a bracketed
    ticker, legal suffixes (Inc., Co., plc, Corporation, …) and punctuation; ``""`` when
    nothing is left."""
    s = re.sub(r"\([^)]*\)", " ", organisation.lower())
    s = _LEGAL.sub(" ", s)
    return " ".join(re.findall(r"[0-9a-z\u3400-\u9fff]+", s))


_FISCAL_Q = re.compile(
    r"\bFY\s*'?((?:19|20)?\d\d)(?!\d)"  # FY2023, FY 2023, FY23, FY2023Q1
    r"|\bfiscal\s+(?:year\s+)?((?:19|20)\d\d)(?!\d)"  # fiscal 2023, fiscal year 2023
    # fiscal year ending / ended January 28, 2023
    r"|\bfiscal\s+year\s+end(?:ing|ed)\s+(?:on\s+)?[A-Za-z]+\.?\s+\d{1,2},?\s+((?:19|20)\d\d)\b",
    re.IGNORECASE)


def fiscal_years(question: str) -> set[int]:
    """Years the question writes as fiscal years (``FY2023``, ``FY23``, ``FY2023Q1``, ``fiscal
    2023``, ``fiscal year ending January 28, 2023``): a company's fiscal year is named by the
    year it ends in, which a calendar-dated quarter of the next fiscal year may share."""
    out: set[int] = set()
    for m in _FISCAL_Q.finditer(question):
        y = next(g for g in m.groups() if g)
        out.add(int(y) if len(y) == 4 else 2000 + int(y))
    return out


def question_years(question: str) -> tuple[int, ...]:
    """Four-digit years a question names (``FY2018``, ``FY 2023``, ``2023年``, ``2019``)."""
    return tuple(dict.fromkeys(int(y) for y in _YEAR_Q.findall(question)))


# an organisation a question asks about: "Walmart's", "Johnson & Johnson's", or "for Boeing" /
# "of Boeing" before the period, the end or a comma (capitalised words; not a sentence's first)
_NAME = r"[A-Z][\w&.-]*(?:\s+(?:&\s+)?[A-Z][\w&.-]*){0,3}"
_SUBJECT = re.compile(
    rf"(?<=\s)(?P<p>{_NAME})['’]s\b"
    rf"|\b(?:does|did|do|will)\s+(?P<d>{_NAME})\s+(?=(?:have|employ|own|operate|pay|report|"
    r"make|sell|earn|spend|hold|generate|plan|expect)\b)"
    rf"|\b(?:for|of)\s+(?P<f>{_NAME})(?=\s*(?:\?|$|,|\s+(?:in|for|during|as\s+of)\s+"
    r"(?:FY|fiscal|the\s+(?:fiscal|year|quarter)|Q[1-4]|(?:19|20)\d\d)))")
# capitalised words that open no organisation's name
_NOT_SUBJECT = frozenset({"The", "This", "That", "Its", "Their", "What", "Which", "Who", "Fiscal",
                          "FY", "Q1", "Q2", "Q3", "Q4"})


def asked_organisations(question: str) -> list[str]:
    """The organisations ``question`` asks about, as written: a capitalised name of up to four
    words in the possessive ("Walmart's revenue", not a sentence's first word), the subject of
    "does … have / employ / report …" ("How many employees does Tesla have in Berlin?") or
    after "for" / "of" ending the asked phrase ("revenue for Boeing in 2022"); a name opening
    with a question or period word (The, What, FY, Q2 …) or holding a digit ("of FY2021") is
    left out. ``[]`` when there is none."""
    out: list[str] = []
    for m in _SUBJECT.finditer(question):
        name = (m.group("p") or m.group("d") or m.group("f") or "").strip()
        if not name or name.split()[0] in _NOT_SUBJECT or any(c.isdigit() for c in name):
            continue  # "of FY2021", "for Q2": a period, not an organisation
        out.append(name)
    return out
