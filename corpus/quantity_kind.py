"""The kind of count a question asks (issue 15 item 4): a **number of days** or a **multiple**.

"工作满十年的员工每年可以享受多少天带薪年休假？" asks a number of days; a quote stating
"2008年1月1日" (a date) or "三个月" answers something else. "加班费按基本工资的多少倍计算？" asks a
multiple; a quote stating "200元" does not give one. :mod:`corpus.question_scope` asks this module
beside the physical units (``asked_dimension``): the evidence must write a number of the kind
asked, else the answer is "not found" (flag ``no_value_in:<kind>``).

- ``days``: asked by ``多少天`` / ``几天`` / ``多少(个)工作日`` / ``多少日`` (not ``多少日元``) /
  "how many (calendar|business|working) days"; stated by a number — Arabic digits, Chinese
  numerals (``三``, ``十五``, ``两``) or English number words — followed by ``天`` / ``日`` /
  ``工作日`` / ``周`` / ``星期`` / "day(s)" / "week(s)". A day of a month is no number of days:
  ``1月1日``, ``每月15日`` do not count (the number follows ``月``).
- ``multiple``: asked by ``多少倍`` / ``几倍`` / "how many times (higher|more|larger|greater|
  bigger|as)"; stated by a number followed by ``倍`` / "times" / ``×``/``x``, by ``双倍`` /
  ``翻倍``, or by a percentage (``150%``, ``百分之一百五十``: a multiple written as a share).

"how many times …" alone counts occurrences ("how many times can a beverage be brewed"), not a
multiple: it asks no kind here. Pure functions, no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["QUANTITY_KINDS", "asked_kind", "states_kind"]

_ZH_NUM = r"[零〇一二两三四五六七八九十百千万半]+"
_EN_NUM = (r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
           r"|thirty|forty|fifty|sixty|ninety|hundred|several|a\s+few)")
# a number as evidence writes it: digits (1,000 / 1.5), Chinese numerals, English number words
_NUMBER = rf"(?:\d[\d,]*(?:\.\d+)?|{_ZH_NUM}|\b{_EN_NUM}(?:[\s-]+{_EN_NUM})*)"

# each kind once: (how a question asks it, how evidence states it); asked in this order
_KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "days": (
        re.compile(r"(?:多少|几)\s*(?:个)?\s*(?:工作日|自然日|天|日(?![元本语語文圆圓币幣]))"
                   r"|\bhow\s+many\s+(?:calendar\s+|business\s+|working\s+)?days\b", re.I),
        # a number not following 月 (a day of the month is a date: "6月29日", "6 月 29 日" as
        # PDF text has it) before a day/week unit
        re.compile(rf"(?<![月\d.,零〇一二两三四五六七八九十百千万半])(?<!月\s)(?<!月\s\s){_NUMBER}\s*(?:个)?\s*(?:工作日|自然日|天|日|周|星期"
                   r"|(?:calendar\s+|business\s+|working\s+)?days?\b|weeks?\b)", re.I),
    ),
    "multiple": (
        re.compile(r"(?:多少|几)\s*倍"
                   r"|\bhow\s+many\s+times\s+(?:higher|more|larger|greater|bigger|as)\b", re.I),
        re.compile(rf"{_NUMBER}\s*(?:倍|times\b|[×x](?![a-z]))|[双翻加]倍|(?:\d[\d,]*(?:\.\d+)?\s*%)"
                   rf"|百分之{_ZH_NUM}|{_NUMBER}\s*(?:percent|per\s+cent)\b", re.I),
    ),
}
#: the kinds of count :func:`asked_kind` reads
QUANTITY_KINDS = tuple(_KINDS)


@lru_cache(maxsize=4096)
def asked_kind(question: str) -> str | None:
    """The kind of count ``question`` asks (``days``, ``multiple``), or ``None``:
    ``"…每年可以享受多少天带薪年休假？"`` → ``days``; ``"加班费按基本工资的多少倍计算？"`` →
    ``multiple``; ``"多少日元…"`` → ``None`` (yen); ``"How many times can it be brewed?"`` →
    ``None`` (a count of occurrences)."""
    text = unicodedata.normalize("NFKC", question)
    for kind, (asks, _) in _KINDS.items():
        if asks.search(text):
            return kind
    return None


def states_kind(kind: str, text: str) -> bool:
    """True when ``text`` writes a number of ``kind`` (module docstring): ``"提前三日"``,
    ``"30 days"`` are days, ``"2008年1月1日"`` is not; ``"1.5倍"``, ``"150%"``, ``"双倍"`` are
    multiples.

    :raises KeyError: ``kind`` is not one of :data:`QUANTITY_KINDS`.
    """
    return _KINDS[kind][1].search(unicodedata.normalize("NFKC", text)) is not None
