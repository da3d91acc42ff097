"""What document resolution (``rag.resolve``) reads of organisation names and years: an
issuer's grouping key (:func:`issuer_key`), the years a question names (:func:`question_years`)
and those it names as fiscal years (:func:`fiscal_years`). Pure functions, no I/O.
"""

from __future__ import annotations

import re

__all__ = ["fiscal_years", "issuer_key", "question_years"]

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
