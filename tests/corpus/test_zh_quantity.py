"""A quantity written in Chinese numerals with its measure word (三个月, 三十日, 二倍) is a
figure (``corpus.tokenizer.ZH_QUANTITY``): "试用期多久" is answered by the article stating the
durations, not by the penalty article naming 试用期 four times (a break-it trial got 第八十三条
of the Labour Contract Law)."""

from __future__ import annotations

import pytest

from corpus.tokenizer import ZH_QUANTITY, holds_figure


@pytest.mark.parametrize(("text", "found"), [
    ("劳动合同期限三个月以上不满一年的，试用期不得超过一个月", ["三个月"]),
    ("应当提前三十日以书面形式通知用人单位", ["三十日"]),
    ("向劳动者每月支付二倍的工资", ["二倍"]),
    ("员工每年享有十五天带薪年假", ["十五天"]),
    # ordinals and words holding a numeral are none
    ("第十九条 劳动合同", []),
    ("第一条 为了完善劳动合同制度", []),
    ("统一规定，一般情况下同一用人单位", []),
])
def test_chinese_quantities(text: str, found: list[str]) -> None:
    assert [m.group(0) for m in ZH_QUANTITY.finditer(text)] == found
    assert holds_figure(text, []) is bool(found)


def test_a_unit_stating_a_duration_holds_a_figure() -> None:
    from corpus.evidence.recognise import holds_figure_unit

    duration = "第十九条 劳动合同期限三个月以上不满一年的，试用期不得超过一个月"
    penalty = "第八十三条 用人单位违反本法规定与劳动者约定试用期的，由劳动行政部门责令改正"
    assert holds_figure_unit(duration, duration, ["试用期"])
    assert not holds_figure_unit(penalty, penalty, ["试用期"])
