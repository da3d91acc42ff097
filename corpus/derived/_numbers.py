"""The numbers of a derived figure (``corpus.derived``): the years and the rounding a question
asks for, a number as shown, and a cell shown in the scale the question asks."""

from __future__ import annotations

import re

from corpus.statement_rows import UNITS

__all__ = ["AVERAGE", "YEAR", "converted", "decimals_of", "fmt", "years_in"]

YEAR = re.compile(r"(?<!\d)(?:fy|fiscal(?: year)?\s*)?((?:19|20)\d{2})(?!\d)", re.I)
AVERAGE = re.compile(r"\baverage\b", re.I)
_DECIMALS = re.compile(r"\b(one|two|three|four|zero|\d)\s+decimal", re.I)
_WORD_NUM = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4}


def decimals_of(question: str, default: int) -> int:
    """The decimals the question asks its figure rounded to ("two decimal places"), else
    ``default``."""
    m = _DECIMALS.search(question)
    if not m:
        return default
    w = m.group(1).lower()
    return _WORD_NUM.get(w, int(w) if w.isdigit() else default)


def years_in(text: str) -> list[str]:
    """The four-digit years (1900-2099, "FY2017" read as 2017) ``text`` names, in order, once."""
    return list(dict.fromkeys(m.group(1) for m in YEAR.finditer(text)))


def converted(value: float, scale: str | None, asked: str | None) -> str:
    """``" (in thousands) ≈ 382 in millions"``: a cell written in ``scale`` shown in the scale
    the question asks (``corpus.statement_rows.UNITS``), rounded to a whole number from 100 up,
    else to two decimals; ``""`` when either scale is unknown or they are the same."""
    if not scale or not asked or scale == asked or scale not in UNITS or asked not in UNITS:
        return ""
    v = value * UNITS[scale] / UNITS[asked]
    return f" (in {scale}) ≈ {v:,.0f} in {asked}" if abs(v) >= 100 else \
        f" (in {scale}) ≈ {v:,.2f} in {asked}"


def fmt(v: float) -> str:
    """``v`` as the answer shows it: a whole number from 1,000 up with separators, else two
    decimals with trailing zeros dropped."""
    return f"{v:,.0f}" if abs(v) >= 1000 and float(v).is_integer() else f"{v:,.2f}".rstrip(
        "0").rstrip(".")
