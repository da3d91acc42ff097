"""corpus.quantity_kind: the kind of count a question asks (days, a multiple) and whether a
quote writes a number of that kind; through corpus.question_scope.content_misses.

Shapes of the zh PDF dev questions: "多少天带薪年休假" answered by a date, "多少倍" by a wage
article that states no multiple (both unanswerable), "提前几天通知" answered by "提前三日"
(answerable), and of questions that ask no such kind ("多少日元", "how many times can …").
"""

from __future__ import annotations

import pytest

from corpus.quantity_kind import asked_kind, states_kind
from corpus.question_scope import asks_content, content_misses


@pytest.mark.parametrize(("question", "kind"), [
    ("根据劳动合同法，工作满十年的员工每年可以享受多少天带薪年休假？", "days"),
    ("劳动者在试用期内想辞职，需要提前几天通知用人单位？", "days"),
    ("申请需要多少个工作日？", "days"),
    ("How many business days does the refund take?", "days"),
    ("迈迪科为绩效考核管理制度规定的工作日加班费按基本工资的多少倍计算？", "multiple"),
    ("女性於企圖自殺數量大約是男性的多少倍?", "multiple"),
    ("How many times higher is the 2021 figure than the 2019 one?", "multiple"),
    ("多少日元為長崎縣2014年的工業品生產金額?", None),  # yen, not days
    ("How many times can a beverage be brewed with one button press?", None),  # occurrences
    ("试用期最长多少个月？", None),
    ("What is the supply voltage?", None),
])
def test_asked_kind(question: str, kind: str | None) -> None:
    assert asked_kind(question) == kind


@pytest.mark.parametrize(("text", "days", "multiple"), [
    ("劳动者在试用期内提前三日通知用人单位，可以解除劳动合同。", True, False),
    ("用人单位应当提前三十日以书面形式通知劳动者本人", True, False),
    ("The refund is issued within 5 business days.", True, False),
    ("up to five days of forecasts", True, False),
    ("本法自2008年1月1日起施行。", False, False),  # a date, not a number of days
    ("2007 年 6 月 29 日第十届全国人民代表大会常务委员会", False, False),  # as PDF text has it
    ("工资于每月15日前发放", False, False),
    ("十月十一日召开", False, False),
    ("按不低于工资的百分之一百五十支付工资报酬", False, True),
    ("加班工资按基本工资的1.5倍计算", False, True),
    ("paid at 150% of the base wage", False, True),
    ("休息日安排工作的，支付双倍工资", False, True),
    ("基本工资为3000元，绩效工资另计。", False, False),
    ("试用期不得超过六个月", False, False),
])
def test_states_kind(text: str, days: bool, multiple: bool) -> None:
    assert states_kind("days", text) is days
    assert states_kind("multiple", text) is multiple


def test_content_misses_flags_the_kind_asked() -> None:
    q = "根据劳动合同法，工作满十年的员工每年可以享受多少天带薪年休假？"
    assert asks_content(q)
    assert content_misses(q, "本法自2008年1月1日起施行。") == ["no_value_in:days"]
    assert content_misses(q, "职工累计工作已满10年不满20年的，年休假10天") == []
    m = "迈迪科为绩效考核管理制度规定的工作日加班费按基本工资的多少倍计算？"
    assert content_misses(m, "绩效工资按月考核发放。") == ["no_value_in:multiple"]
    assert content_misses(m, "工作日加班按基本工资的150%计发") == []
    assert not asks_content("How many times can a beverage be brewed?")


def test_a_count_is_looked_for_under_a_quoted_heading() -> None:
    from corpus.question_scope import count_unit

    heads = ("员工手册", "4 提交时限")
    # a quoted heading answers by its section: the chunk is searched
    assert count_unit("4 提交时限", heads) is None
    # a quoted sentence answers by itself
    line = "出差结束后应在三十日内提交报销申请"
    assert count_unit(line, heads) == line
    q = "差旅报销申请的提交时限是几天？"
    chunk = "4 提交时限\n出差结束后应在三十日内提交报销申请，逾期不予受理。"
    assert content_misses(q, "4 提交时限\n" + chunk, count_unit("4 提交时限", heads)) == []
