"""Figures in questions and text: whether a question asks for one (a number, amount, range,
date or duration: :func:`asks_quantity`) and whether a text holds one (digits outside the
question's own codes, amounts in Chinese financial numerals, quantities in Chinese numerals
with their measure word: :func:`holds_figure`). The extractive and offline answers prefer a unit
holding a figure when the question asks one. Pure regular expressions, no I/O; re-exported by
:mod:`corpus.tokenizer`."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["FINANCIAL_NUMERAL", "ZH_QUANTITY", "asks_quantity", "holds_figure", "numeral_figure"]

# a question asking for a figure: by its question word, or by the unit or rounding it wants the
# figure in ("Answer in USD millions", "round to two decimal places", "in units of percents")
_QUANTITY = re.compile(r"多少|几|多久|多长|多大|多高|多重|哪天|哪年|范围|何时|什么时[候间]|哪一天|"
                       r"how (many|much|long|old)|\bwhen\s+(?:was|were|did)\b|"
                       r"\bwhen\b.{0,80}\b(?:take|took|takes)\s+effect\b|"
                       r"what (percentage|number|amount|year|date|range)|\b(rate|ratio|percent)|"
                       r"\bamounts?\b|"
                       r"\bin (?:usd |us\$ ?|\$ ?|eur |gbp |rmb |cny )?(?:millions|billions|"
                       r"thousands)\b|\bdecimal places?\b|\bin units of\b|"
                       r"(?:单位|保留).{0,6}(?:元|位)",
                       re.I)


def asks_quantity(question: str) -> bool:
    """True when the question asks for a number, amount, range, date or duration (its answer
    is a figure: evidence holding digits is preferred by the extractive and offline answers).
    A date is asked by 何时 / 什么时候 / "when was … / when did …" / "when does … take effect"
    (a new-user trial: "劳动合同法什么时候开始施行？" was answered by 第九十七条's
    "自本法施行后续订…", not 第九十八条's "本法自2008年1月1日起施行"); "when must …" asks a
    condition, not a figure."""
    return bool(_QUANTITY.search(question))


_DIGIT = re.compile(r"\d")


# an amount in Chinese financial (uppercase, 大写) numerals, "贰佰伍拾 万元", "壹佰玖拾元":
# contracts and invoices write sums so: one of these digits followed by another numeral
# character or a money unit (a lone 伍 may be a surname, 拾 a verb)
FINANCIAL_NUMERAL = re.compile(
    "[壹贰貳叁參肆伍陆陸柒捌玖拾](?:[壹贰貳叁參肆伍陆陸柒捌玖拾佰仟零万萬亿億]|\\s*[元圆圓万萬角])")


# a quantity in Chinese numerals with its measure word: 三个月, 十五日, 两年, 五十万元, 一倍 — laws
# and contracts write durations and sums so ("试用期不得超过一个月"); not an ordinal (第十九条)
ZH_QUANTITY = re.compile(
    "(?<![第\u4e00-\u9fff])[零〇一二两三四五六七八九十百千万半]+(?:个)?"
    "(?:月|年|日|天|周|星期|小时|分钟|倍|元|万元|次|工作日|公里|岁)"
    "|(?<=[\u4e00-\u9fff])[二两三四五六七八九十百千半][零〇一二两三四五六七八九十百千万]*(?:个)?"
    "(?:月|年|日|天|周|星期|小时|分钟|倍|元|万元|工作日|公里|岁)")


def numeral_figure(text: str) -> bool:
    """True when ``text`` writes a figure in Chinese numerals, no digit needed: an amount in
    financial numerals (:data:`FINANCIAL_NUMERAL`) or a quantity with its measure word
    (:data:`ZH_QUANTITY`)."""
    return FINANCIAL_NUMERAL.search(text) is not None or ZH_QUANTITY.search(text) is not None


def holds_figure(text: str, terms: Iterable[str]) -> bool:
    """True when ``text`` (normalised like the key terms) holds a digit outside the key
    ``terms`` that hold digits: the question's own codes are no figure (a row naming
    ESP32-PICO-D4 does not answer "ESP32-PICO-D4 的工作电压是多少" by its 32 and 4); or an
    amount in Chinese financial numerals (:data:`FINANCIAL_NUMERAL`: "本项目研究开发经费和报酬
    （大写） 贰佰伍拾 万元" answers "…一共多少万元？", a new-user trial got a run of schedule
    dates for it); or a quantity in Chinese numerals with its measure word (:data:`ZH_QUANTITY`:
    "试用期不得超过一个月" answers "试用期多久"; a break-it trial got the penalty clause
    第八十三条, which names 试用期 four times and no duration)."""
    if numeral_figure(text):
        return True
    if not _DIGIT.search(text):
        return False
    for t in terms:
        if _DIGIT.search(t):
            text = text.replace(t, " ")
    return bool(_DIGIT.search(text))
