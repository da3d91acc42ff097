"""Elliptic follow-ups that put a new phrase in the place of one of the earlier question
("那三年以上的呢？", "What about three years or more?"): rewritten into the standalone question
(gateway.routing.slots, rule ``substitute``), and a follow-up read with the previous
question in front of it never split as a multi-part question (gateway.routing.decompose).

Before: every one of these follow-ups was read as '<earlier question> <follow-up>'
(rule ``previous_question``), and '…多久？ 三年以上的呢？' was split into the earlier question
and '三年以上的呢？', so the answer was the earlier turn's."""

from __future__ import annotations

import pytest

from gateway.conversation import rewrite_rules
from gateway.routing import decompose
from gateway.routing.slots import fill_slot

LABOUR = "劳动合同期限一年以上不满三年的，试用期不得超过多久？"


@pytest.mark.parametrize(("follow_up", "expected"), [
    ("那三年以上的呢？", "劳动合同期限三年以上的，试用期不得超过多久？"),
    ("三年以上的呢？", "劳动合同期限三年以上的，试用期不得超过多久？"),
    ("那么三个月以上不满一年的呢？", "劳动合同期限三个月以上不满一年的，试用期不得超过多久？"),
    ("那无固定期限的呢？", "劳动合同期限无固定期限的，试用期不得超过多久？"),
    ("那对于无固定期限的呢？", "劳动合同期限无固定期限的，试用期不得超过多久？"),
])
def test_a_chinese_case_takes_the_place_of_the_earlier_case(follow_up: str,
                                                            expected: str) -> None:
    rw = rewrite_rules(follow_up, LABOUR)
    assert rw.question == expected
    assert rw.rules == ("substitute",) and rw.by == "rules"
    assert decompose(rw.question) is None


@pytest.mark.parametrize(("previous", "follow_up", "expected"), [
    ("What is the maximum probation period for a labor contract of one to three years?",
     "What about three years or more?",
     "What is the maximum probation period for a labor contract of three years or more?"),
    ("How long must network operators keep network logs?",
     "What about critical infrastructure operators?",
     "How long must critical infrastructure operators keep network logs?"),
    ("How long must network operators keep network logs?", "And for audit logs?",
     "How long must network operators keep audit logs?"),
    ("网络运营者应当留存相关的网络日志不少于多久？", "那关键信息基础设施的运营者呢？",
     "关键信息基础设施的运营者应当留存相关的网络日志不少于多久？"),
    # a modifier swapped before the same noun, inside a compound too (a trial: glued on)
    ("一线城市住宿费上限是多少？", "那其他城市呢？", "其他城市住宿费上限是多少？"),
    ("一线城市的住宿费上限是多少？", "二线城市呢？", "二线城市的住宿费上限是多少？"),
    ("ESP32-PICO-D4的工作电压是多少？", "那CH583呢？", "CH583的工作电压是多少？"),
    ("ESP32-PICO-D4的工作电压是多少？", "那存储温度呢？", "ESP32-PICO-D4的存储温度是多少？"),
    ("CH583的工作电压是多少？", "ESP32-PICO-D4的呢？", "ESP32-PICO-D4的工作电压是多少？"),
    # the shapes the rule had before keep working
    ("What was the revenue of Acme in 2021?", "What about 2019?",
     "What was the revenue of Acme in 2019?"),
    ("2021年的营业收入是多少？", "那2019年呢？", "2019年的营业收入是多少？"),
    # the other end of a word of the earlier question (rule ``opposite``)
    ("What is the maximum operating temperature of the ESP32-PICO-D4?", "And the minimum?",
     "What is the minimum operating temperature of the ESP32-PICO-D4?"),
    ("ESP32-PICO-D4的最高工作温度是多少？", "那最低的呢？", "ESP32-PICO-D4的最低工作温度是多少？"),
    ("What is the upper limit of the supply voltage?", "What about the lower limit?",
     "What is the lower limit of the supply voltage?"),
])
def test_the_new_phrase_fills_the_place_of_its_kind(previous: str, follow_up: str,
                                                    expected: str) -> None:
    rw = rewrite_rules(follow_up, previous)
    assert rw.question == expected, rw
    assert rw.rules == ("substitute",)


def test_no_place_of_the_kind_keeps_the_previous_question_in_front() -> None:
    """Nothing to put the phrase in place of: read with the previous question, as before —
    but that pair is one question to the decomposer, never the earlier one and the rest."""
    for follow_up in ("那劳务派遣呢？", "为什么呢？"):
        rw = rewrite_rules(follow_up, LABOUR)
        assert rw.rules == ("previous_question",)
        assert decompose(rw.question) is None
    glued = "What is the notice period for the employee? What about the employer?"
    assert rewrite_rules("What about the employer?",
                         "What is the notice period for the employee?").question == glued
    assert decompose(glued, elliptic=False) is None


def test_follow_ups_glued_before_are_not_split() -> None:
    """The reading of the new-user trial: '<earlier question> 三年以上的呢？' was split into
    the earlier question and the follow-up (rule ``questions``). The router asks the
    decomposer without its elliptic rule for such a pair (``elliptic=False``,
    ``gateway.routing.plan``; ``test_elliptic_parts.py``): typed as one message by a user,
    the same words are two parts, the second filled from the first."""
    assert decompose(f"{LABOUR} 三年以上的呢？", elliptic=False) is None
    assert decompose("What is the maximum probation period for a labor contract of one to "
                     "three years? What about three years or more?", elliptic=False) is None
    # two questions that each stand alone are still two parts
    plan = decompose("CH583的BLE接收灵敏度是多少？暂停模式的电流是多少？")
    assert plan is not None and len(plan.parts) == 2


def test_fill_slot_says_which_place() -> None:
    assert fill_slot(LABOUR, "三年以上的") == (
        "劳动合同期限三年以上的，试用期不得超过多久？", "shape")
    assert fill_slot(LABOUR, "无固定期限的")[1] == "modifier"  # type: ignore[index]
    assert fill_slot("How long must network operators keep network logs?",
                     "critical infrastructure operators")[1] == "head"  # type: ignore[index]
    # a phrase already in the question, or with no place of its kind: nothing
    assert fill_slot(LABOUR, "试用期") is None
    assert fill_slot(LABOUR, "劳务派遣") is None
    # a code's digits, an article number and a calendar year are no quantity
    assert fill_slot("ESP32-PICO-D4的工作电压是多少？", "三年") is None
    assert fill_slot("第十九条规定的试用期是多久？", "六个月") is None
