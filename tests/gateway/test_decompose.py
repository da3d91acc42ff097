"""The pure decomposition of a question into parts (:func:`gateway.routing.decompose`), one
table for every rule: multi-part and comparison questions (issue 16 item 3), two years or two
codes, three years or more, and an elliptic second part filled from the first
(:func:`gateway.routing.elliptic.split_elliptic`); and one table of the questions every rule
leaves whole. The router running the parts is tested in ``test_plan``, ``test_period_parts``
and ``test_elliptic_parts``."""

from __future__ import annotations

import pytest

from gateway.routing import decompose
from gateway.routing.elliptic import split_elliptic

ESP = "ESP32-PICO-D4"


@pytest.mark.parametrize(("question", "rule", "parts"), [
    # several questions, conjoined clauses, two things of one kind (issue 16 item 3)
    ("CH583和ESP32-PICO-D4的供电电压分别是多少？", "pair",
     ["CH583的供电电压是多少？", "ESP32-PICO-D4的供电电压是多少？"]),
    ("迈迪科为员工绩效中KPI指标和能力态度指标的权重各是多少？", "pair",
     ["迈迪科为员工绩效中KPI指标的权重是多少？", "迈迪科为员工绩效中能力态度指标的权重是多少？"]),
    ("比较绩效考核制度中A级和S级的考核系数。", "pair",
     ["绩效考核制度中A级的考核系数是多少？", "绩效考核制度中S级的考核系数是多少？"]),
    # a conjunction is a word of its own: 合同's 同 joins nothing (new-user trial: unsplit)
    ("比较劳动合同法和网络安全法的施行日期", "pair",
     ["劳动合同法的施行日期是多少？", "网络安全法的施行日期是多少？"]),
    ("对比TH2817B的RS232C最大传输距离与CH583在6dBm发送功率时的无线通讯距离。", "pair",
     ["TH2817B的RS232C最大传输距离是多少？", "CH583在6dBm发送功率时的无线通讯距离是多少？"]),
    ("TH2817B的基本测量精度和RS232C接口的最大传输距离分别是多少？", "pair",
     ["TH2817B的基本测量精度是多少？", "TH2817B的RS232C接口的最大传输距离是多少？"]),
    # a later part's "its" is the first part's organisation (new-user trial)
    ("What was Netflix's revenue in 2017, and what was its net income in 2017?", "clauses",
     ["What was Netflix's revenue in 2017?", "What was Netflix's net income in 2017?"]),
    # short parts naming their own topic (break-it trial: the warranty part was dropped)
    ("What is the warranty period? What is the vision of GitLab?", "questions",
     ["What is the warranty period?", "What is the vision of GitLab?"]),
    ("CH583的BLE接收灵敏度是多少？暂停模式的电流是多少？", "questions",
     ["CH583的BLE接收灵敏度是多少？", "CH583 暂停模式的电流是多少？"]),
    ("合同的经费总额是多少，开发失败的风险由双方各承担多少？", "clauses",
     ["合同的经费总额是多少？", "开发失败的风险由双方各承担多少？"]),
    ("In the MEDDPPICC framework, what does the 'I' stand for, and which letter stands for "
     "the economic buyer?", "clauses",
     ["In the MEDDPPICC framework, what does the 'I' stand for?",
      "In the MEDDPPICC framework, which letter stands for the economic buyer?"]),
    ("Which is higher: the yearly refresh allowance or the VPN reimbursement?", "pair",
     ["What is yearly refresh allowance?", "What is VPN reimbursement?"]),
    # a trial: "of employees" was lost from the second part, and "What is domestic?" asked
    ("Compare the number of employees of the Berlin office and the Tokyo office", "pair",
     ["What is the number of employees of the Berlin office?",
      "What is the number of employees of the Tokyo office?"]),
    ("Which is higher: the domestic or the international hotel limit?", "pair",
     ["What is domestic hotel limit?", "What is international hotel limit?"]),
    ("Compare the channel prefix of feature channels and group channels.", "pair",
     ["What is the channel prefix of feature channels?",
      "What is the channel prefix of group channels?"]),
    # two years or two codes (issue 16 item 3); three years or more (a break-it trial: the
    # first year only)
    ("What was the revenue in 2018 and 2019?", "elliptic",
     ["What was the revenue in 2018?", "What was the revenue in 2019?"]),
    ("What is the price of the K-100 and the K-200?", "elliptic",
     ["What is the price of the K-100?", "What is the price of the K-200?"]),
    ("2018年和2019年的营业收入是多少？", "pair",
     ["2018年的营业收入是多少？", "2019年的营业收入是多少？"]),
    ("北风公司K-100和K-200的售价是多少？", "pair",
     ["北风公司K-100的售价是多少？", "北风公司K-200的售价是多少？"]),
    ("What were revenues for 2018, 2019 and 2020?", "years",
     ["What were revenues for 2018?", "What were revenues for 2019?",
      "What were revenues for 2020?"]),
    ("What was the revenue in FY2018, FY2019, and FY2020?", "years",
     ["What was the revenue in FY2018?", "What was the revenue in FY2019?",
      "What was the revenue in FY2020?"]),
    ("2018年、2019年和2020年的营业收入分别是多少？", "years",
     ["2018年的营业收入是多少？", "2019年的营业收入是多少？", "2020年的营业收入是多少？"]),
    # an elliptic second part, filled from the first (issue 16)
    (f"What is the maximum operating temperature of the {ESP}, and the minimum?", "elliptic",
     [f"What is the maximum operating temperature of the {ESP}?",
      f"What is the minimum operating temperature of the {ESP}?"]),
    (f"What is the maximum operating temperature of the {ESP}, and what is the minimum?",
     "elliptic",
     [f"What is the maximum operating temperature of the {ESP}?",
      f"What is the minimum operating temperature of the {ESP}?"]),
    ("What was 3M's revenue in 2018 and in 2019?", "elliptic",
     ["What was 3M's revenue in 2018?", "What was 3M's revenue in 2019?"]),
    ("What was 3M's revenue in 2018? And in 2019?", "elliptic",
     ["What was 3M's revenue in 2018?", "What was 3M's revenue in 2019?"]),
    (f"What is the operating voltage of the CH583 and of the {ESP}?", "elliptic",
     ["What is the operating voltage of the CH583?",
      f"What is the operating voltage of the {ESP}?"]),
    ("What is the operating voltage of the CH583, and the power consumption?", "elliptic",
     ["What is the operating voltage of the CH583?",
      "What is the power consumption of the CH583?"]),
    ("What is the price of the K-200, what about the K-300?", "elliptic",
     ["What is the price of the K-200?", "What is the price of the K-300?"]),
    ("How long must network operators keep network logs, and audit logs?", "elliptic",
     ["How long must network operators keep network logs?",
      "How long must network operators keep audit logs?"]),
    (f"{ESP}的工作电压是多少，CH583呢？", "elliptic",
     [f"{ESP}的工作电压是多少？", "CH583的工作电压是多少？"]),
    (f"{ESP}的工作电压是多少？CH583呢？", "elliptic",
     [f"{ESP}的工作电压是多少？", "CH583的工作电压是多少？"]),
    (f"{ESP}的最高工作温度是多少，最低呢？", "elliptic",
     [f"{ESP}的最高工作温度是多少？", f"{ESP}的最低工作温度是多少？"]),
    ("CH583的工作电压是多少，功耗呢？", "elliptic",
     ["CH583的工作电压是多少？", "CH583的功耗是多少？"]),
    ("2018年3M的营业收入是多少，2019年呢？", "elliptic",
     ["2018年3M的营业收入是多少？", "2019年3M的营业收入是多少？"]),
    ("劳动合同期限一年以上不满三年的，试用期不得超过多久？那三年以上的呢？", "elliptic",
     ["劳动合同期限一年以上不满三年的，试用期不得超过多久？",
      "劳动合同期限三年以上的，试用期不得超过多久？"]),
])
def test_decompose_splits(question: str, rule: str, parts: list[str]) -> None:
    plan = decompose(question)
    assert plan is not None and list(plan.parts) == parts and plan.rule == rule, plan
    if rule == "elliptic":
        assert split_elliptic(question) == parts


@pytest.mark.parametrize("question", [
    "退货期限是几天？",
    "DB32/T 1580—2019是哪天发布、哪天实施的？",
    "What is the difference between plan A and plan B?",
    "Compare the return period with the shipping time",
    # later parts that lean on the first are not independent
    "How many Wireless retail connections were added in 2021? What is the percentage increase?",
    "What was the operating income for AWS in 2019? How did it change compared to 2018?",
    "Did the segment report a loss? What was the amount?",
    # question marks inside a quotation
    "「殿下先謁陵乎？先即位乎？」這句話是誰說的?",
    # a pair in an earlier clause, or a clause that asks itself
    "用人单位一直不和员工签书面劳动合同：从用工超过一个月起和满一年时，分别会产生什么法律后果？",
    "在韓國哪一方和僱主一樣都需要各自承擔一半的失業保險費？",
    # the second part follows from the first; the difference is the question
    "磁盘使用率超过多少会停止接收新文档？之后会怎样？",
    "比较退货政策和配送政策有什么区别？",
    # a sum, a difference or a change over the years or codes
    "What was the difference between revenue in 2018 and 2019?",
    "What is the revenue in 2019 and 2020 combined?",
    "What are the topics covered on pages 26 and 27?",
    "2018年和2019年的营业收入合计是多少？",
    "2018年和2019年的营业收入相比增长了多少？",
    "K-100和K-200的区别是什么？",
    "How did revenue change in 2018, 2019 and 2020?",
    "What was the total revenue for 2018, 2019 and 2020?",
    "2018年、2019年和2020年的营业收入合计是多少？",
    # not an elliptic pair: one noun phrase, a second part asking on its own, nothing to fill
    "What is the difference between CH583 and CH582?",
    "What are the rights and obligations of employees?",
    "What are the terms and conditions?",
    "What is the sum of 2 and 3?",
    "What happens if the temperature exceeds 85°C and the voltage drops?",
    "What is the policy on travel and expenses?",
    "Is it possible to work remotely and travel?",
    "What is the name of the monthly developer newsletter sent out by the Marketing and "
    "Editorial team?",
    "Did Amazon.com, Inc. experience a net increase or decrease in cash, cash equivalents, and "
    "restricted cash in 2019?",
    "What is the operating voltage of the CH583, and how is it measured?",
    "网络运营者应当留存相关的网络日志不少于多久，违反的话怎么处罚？",
    "退货期限是几天，配送呢？",  # no place in the first part for 配送
    "文中提及，長崎縣於2015年哪方面擁有49,100公頃的土地?",
    "CH583和CH582的区别是什么，功耗呢？",
    "CH583的工作电压是多少，它支持哪些低功耗模式？",
])
def test_decompose_leaves_single_questions_whole(question: str) -> None:
    assert decompose(question) is None and split_elliptic(question) is None
