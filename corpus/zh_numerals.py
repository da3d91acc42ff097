"""Chinese numerals (``三``, ``十五``, ``两千三百``) and English number words read as integers:
what a question asks about a quantity, whatever the script it is written in.

Pure functions, no I/O: :func:`cn_to_int`, :func:`number_values` (the numbers a text states, in
digits, Chinese numerals or English words).
"""

from __future__ import annotations

import re

__all__ = ["CN_NUMBER", "cn_to_int", "number_values"]

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
#: a run of Chinese numeral characters (digits and the units 十 百 千 万 亿)
CN_NUMBER = re.compile("[零〇一二两三四五六七八九十百千万亿]+")
_DIGITS = re.compile(r"\d+(?:\.\d+)?")
_EN_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_EN_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
                  "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
                  "once": 1, "twice": 2, "dozen": 12})
_EN_WORD = re.compile(r"[a-z]+")


def cn_to_int(numeral: str) -> int:
    """A Chinese numeral (``三``, ``十五``, ``两千三百``) as an integer (characters other than
    numeral digits and units are not expected)."""
    total, section, digit = 0, 0, 0
    for ch in numeral:
        if ch in _CN_DIGITS:
            digit = digit * 10 + _CN_DIGITS[ch] if digit and not section else _CN_DIGITS[ch]
        else:
            unit = _CN_UNITS[ch]
            if unit >= 10_000:
                total += (section + digit) * unit
                section, digit = 0, 0
            else:
                section += (digit or 1) * unit
                digit = 0
    return total + section + digit


def number_values(text: str) -> set[float]:
    """The numbers ``text`` states: in digits (``3``, ``2.5``), Chinese numerals (``三年``)
    or English number words (``three years``, ``twenty``)."""
    out = {float(m.group(0)) for m in _DIGITS.finditer(text)}
    out |= {float(cn_to_int(m.group(0))) for m in CN_NUMBER.finditer(text)}
    out |= {float(_EN_WORDS[w]) for w in _EN_WORD.findall(text.lower()) if w in _EN_WORDS}
    return out
