"""A two-part question whose second part is elliptic (issue 16): "…of the ESP32-PICO-D4, and
the minimum?", "ESP32-PICO-D4的工作电压是多少，CH583呢？", "What was 3M's revenue in 2018 and in
2019?" — the second part was dropped (the whole asked as one question, only the first part
answered); now it is filled from the first (gateway.routing.elliptic, decompose rule
``elliptic``) and both parts are answered, each with its own citations."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.routing import RouteTrace, decompose
from gateway.routing.elliptic import split_elliptic
from gateway.routing.plan import PlanStages
from gateway.routing.types import QueryInput
from tests.gateway._apphelp import ask, make_settings, running, upload

ESP = "ESP32-PICO-D4"


@pytest.mark.parametrize(("question", "parts"), [
    (f"What is the maximum operating temperature of the {ESP}, and the minimum?",
     [f"What is the maximum operating temperature of the {ESP}?",
      f"What is the minimum operating temperature of the {ESP}?"]),
    (f"What is the maximum operating temperature of the {ESP}, and what is the minimum?",
     [f"What is the maximum operating temperature of the {ESP}?",
      f"What is the minimum operating temperature of the {ESP}?"]),
    ("What was 3M's revenue in 2018 and in 2019?",
     ["What was 3M's revenue in 2018?", "What was 3M's revenue in 2019?"]),
    ("What was 3M's revenue in 2018? And in 2019?",
     ["What was 3M's revenue in 2018?", "What was 3M's revenue in 2019?"]),
    (f"What is the operating voltage of the CH583 and of the {ESP}?",
     ["What is the operating voltage of the CH583?",
      f"What is the operating voltage of the {ESP}?"]),
    ("What is the operating voltage of the CH583, and the power consumption?",
     ["What is the operating voltage of the CH583?",
      "What is the power consumption of the CH583?"]),
    ("What is the price of the K-200, what about the K-300?",
     ["What is the price of the K-200?", "What is the price of the K-300?"]),
    ("How long must network operators keep network logs, and audit logs?",
     ["How long must network operators keep network logs?",
      "How long must network operators keep audit logs?"]),
    (f"{ESP}的工作电压是多少，CH583呢？", [f"{ESP}的工作电压是多少？", "CH583的工作电压是多少？"]),
    (f"{ESP}的工作电压是多少？CH583呢？", [f"{ESP}的工作电压是多少？", "CH583的工作电压是多少？"]),
    (f"{ESP}的最高工作温度是多少，最低呢？",
     [f"{ESP}的最高工作温度是多少？", f"{ESP}的最低工作温度是多少？"]),
    ("CH583的工作电压是多少，功耗呢？", ["CH583的工作电压是多少？", "CH583的功耗是多少？"]),
    ("2018年3M的营业收入是多少，2019年呢？",
     ["2018年3M的营业收入是多少？", "2019年3M的营业收入是多少？"]),
    ("劳动合同期限一年以上不满三年的，试用期不得超过多久？那三年以上的呢？",
     ["劳动合同期限一年以上不满三年的，试用期不得超过多久？",
      "劳动合同期限三年以上的，试用期不得超过多久？"]),
])
def test_the_elliptic_part_is_filled_from_the_first(question: str, parts: list[str]) -> None:
    assert split_elliptic(question) == parts
    plan = decompose(question)
    assert plan is not None and list(plan.parts) == parts and plan.rule == "elliptic", plan


@pytest.mark.parametrize("question", [
    "What is the difference between CH583 and CH582?",
    "What are the rights and obligations of employees?",
    "What are the terms and conditions?",
    "What is the sum of 2 and 3?",
    "What is the revenue in 2019 and 2020 combined?",
    "What happens if the temperature exceeds 85°C and the voltage drops?",
    "What is the policy on travel and expenses?",
    "Is it possible to work remotely and travel?",
    "What is the name of the monthly developer newsletter sent out by the Marketing and "
    "Editorial team?",
    "Did Amazon.com, Inc. experience a net increase or decrease in cash, cash equivalents, and "
    "restricted cash in 2019?",
    "What are the topics covered on pages 26 and 27?",
    "What is the operating voltage of the CH583, and how is it measured?",
    "比较退货政策和配送政策有什么区别？",
    "网络运营者应当留存相关的网络日志不少于多久，违反的话怎么处罚？",
    "退货期限是几天，配送呢？",  # no place in the first part for 配送
    "文中提及，長崎縣於2015年哪方面擁有49,100公頃的土地?",
    "CH583和CH582的区别是什么，功耗呢？",
    "CH583的工作电压是多少，它支持哪些低功耗模式？",
])
def test_questions_that_are_not_an_elliptic_pair(question: str) -> None:
    assert split_elliptic(question) is None


def test_a_follow_up_glued_to_its_earlier_question_is_not_split() -> None:
    """The conversation stage reads a follow-up it could not rewrite with the earlier question
    in front (rule ``previous_question``): that pair is one question to the plan stage."""
    stages = PlanStages.__new__(PlanStages)
    stages.settings = make_settings(Path("/nonexistent"))
    glued = "What is the operating voltage of the CH583? And the power consumption?"
    record = RouteTrace.start(glued, "docs", "auto")
    assert stages._plan_for(QueryInput(glued, "docs"), record) is not None
    record.rewrote(glued, "rules", ["previous_question"])
    assert stages._plan_for(QueryInput(glued, "docs"), record) is None


@pytest.mark.integration
async def test_both_parts_answered_with_their_own_citations(
        tmp_path: Path, eval_dir: Path, redis_url: str, prefix: str) -> None:
    """Through the real router (HTTP API, real Redis, real embedded Qdrant, keyword-only) over
    the real ESP32-PICO-D4 datasheet of ../shared/eval."""
    pdf = eval_dir / "zh/docs/pdf/esp32_pico_d4_datasheet_cn.pdf"
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, [pdf])
        body = await ask(client, f"{ESP}的最高工作温度是多少，最低呢？", mode="rag")
        route = body["route"]
        assert route["final_path"] == "plan" and route["plan"]["rule"] == "elliptic"
        parts = body["parts"]
        assert [p["question"] for p in parts] == [f"{ESP}的最高工作温度是多少？",
                                                  f"{ESP}的最低工作温度是多少？"]
        for part in parts:
            assert part["found"] and part["citations"], part
            cited = [body["citations"][i] for i in part["citations"]]
            assert all(c["path"].endswith("esp32_pico_d4_datasheet_cn.pdf") for c in cited)
        assert "85" in parts[0]["answer"] and "40" in parts[1]["answer"], parts
        body = await ask(client, f"{ESP}的工作电压是多少，TH2817B呢？", mode="rag")
        first, second = body["parts"]
        assert second["question"] == "TH2817B的工作电压是多少？"
        assert first["found"] and first["citations"]
        assert not second["found"] and not second["citations"], second
