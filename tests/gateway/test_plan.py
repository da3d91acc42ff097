"""Plan-and-execute (issue 16 item 3): the pure decomposition of multi-part and comparison
questions, and the router running the parts concurrently on real documents (case 12) in a real
embedded Qdrant: every part cited, a part not found said so, a slow part cut at the deadline."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from _apphelp import CASE12, ask, make_settings, running, sse_events, upload

from gateway.routing import decompose


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("CH583和ESP32-PICO-D4的供电电压分别是多少？",
         ["CH583的供电电压是多少？", "ESP32-PICO-D4的供电电压是多少？"]),
        ("迈迪科为员工绩效中KPI指标和能力态度指标的权重各是多少？",
         ["迈迪科为员工绩效中KPI指标的权重是多少？",
          "迈迪科为员工绩效中能力态度指标的权重是多少？"]),
        ("比较绩效考核制度中A级和S级的考核系数。",
         ["绩效考核制度中A级的考核系数是多少？", "绩效考核制度中S级的考核系数是多少？"]),
        ("对比TH2817B的RS232C最大传输距离与CH583在6dBm发送功率时的无线通讯距离。",
         ["TH2817B的RS232C最大传输距离是多少？", "CH583在6dBm发送功率时的无线通讯距离是多少？"]),
        ("TH2817B的基本测量精度和RS232C接口的最大传输距离分别是多少？",
         ["TH2817B的基本测量精度是多少？", "TH2817B的RS232C接口的最大传输距离是多少？"]),
        ("CH583的BLE接收灵敏度是多少？暂停模式的电流是多少？",
         ["CH583的BLE接收灵敏度是多少？", "CH583 暂停模式的电流是多少？"]),
        ("合同的经费总额是多少，开发失败的风险由双方各承担多少？",
         ["合同的经费总额是多少？", "开发失败的风险由双方各承担多少？"]),
        ("In the MEDDPPICC framework, what does the 'I' stand for, and which letter stands for "
         "the economic buyer?",
         ["In the MEDDPPICC framework, what does the 'I' stand for?",
          "In the MEDDPPICC framework, which letter stands for the economic buyer?"]),
        ("Which is higher: the yearly refresh allowance or the VPN reimbursement?",
         ["What is yearly refresh allowance?", "What is VPN reimbursement?"]),
        ("Compare the channel prefix of feature channels and group channels.",
         ["What is the channel prefix of feature channels?",
          "What is the channel prefix of group channels?"]),
    ],
)
def test_decompose_splits(question: str, parts: list[str]) -> None:
    plan = decompose(question)
    assert plan is not None and list(plan.parts) == parts, plan


@pytest.mark.parametrize(
    "question",
    [
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
    ],
)
def test_decompose_leaves_single_questions_whole(question: str) -> None:
    assert decompose(question) is None


def test_decompose_max_parts() -> None:
    """Parts beyond ``max_parts`` are not run but kept, and the merged answer lists them as
    not answered (a break-it trial's five questions in one message got a bare "Not found")."""
    from gateway.routing.plan import merge_parts
    from gateway.routing.types import QueryResult

    q = "甲的数值是多少？乙的数值是多少？丙的数值是多少？丁的数值是多少？戊的数值是多少？"
    plan = decompose(q, max_parts=4)
    assert plan is not None and len(plan.parts) == 4 and plan.parts[0] == "甲的数值是多少？"
    assert plan.left == ("戊的数值是多少？",)
    two = decompose("甲的数值是多少？乙的数值是多少？", max_parts=4)
    assert two is not None and two.left == ()
    answered = [QueryResult(f"{p} 1", [], True, {}, cached=False) for p in plan.parts]
    result, parts = merge_parts(q, plan, answered)
    assert [p["question"] for p in parts] == [*plan.parts, "戊的数值是多少？"]
    assert parts[-1]["found"] is False and "未回答" in parts[-1]["answer"]
    assert result.found and "5. 戊的数值是多少？" in result.answer


@pytest.fixture
def v1(cases_dir: Path) -> list[Path]:
    return sorted((cases_dir / CASE12 / "v1").iterdir())


@pytest.mark.integration
async def test_parts_answered_concurrently_each_cited(tmp_path, embed_model_path, v1) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, v1)
        body = await ask(client, "退货期限是几天？标准配送要几天？", mode="rag")
        route = body["route"]
        assert route["final_path"] == "plan" and route["decision"]["route"] == "plan"
        parts = body["parts"]
        assert [p["question"] for p in parts] == ["退货期限是几天？", "标准配送要几天？"]
        assert all(p["found"] and p["citations"] for p in parts), parts
        paths = [[body["citations"][i]["path"] for i in p["citations"]] for p in parts]
        assert paths[0][0] == "policy.md" and paths[1][0] == "shipping.md"
        assert "7 天" in parts[0]["answer"] and "3 个工作日" in parts[1]["answer"]
        assert body["answer"].startswith("1. 退货期限是几天？")
        assert "\n\n2. 标准配送要几天？" in body["answer"]
        assert [p["final_path"] for p in route["plan"]["parts"]] == ["rag", "rag"]
        assert route["candidates"] and route["latency_ms"]["plan"] > 0
        process = route["process"]
        assert process["sub_questions"] == 2 and process["rewrites"] == 0
        assert 0 < process["sufficiency"] <= 1 and route["sufficiency"] == process["sufficiency"]
        metrics = (await client.get("/metrics")).text
        assert "loopgate_sub_questions_count 1.0" in metrics
        assert "loopgate_sufficiency_count 1.0" in metrics
        async with client.stream("POST", "/v1/query/stream", json={
                "question": "退货期限是几天？标准配送要几天？", "mode": "rag",
                "use_cache": False}) as resp:
            events = await sse_events(resp)
        assert events[0][0] == "route"
        assert events[0][1]["parts"] == ["退货期限是几天？", "标准配送要几天？"]
        assert events[-1][0] == "answer" and len(events[-1][1]["parts"]) == 2
        off = make_settings(tmp_path / "off", embed_model_path, decompose=False)
    async with running(off) as (app, client):
        await upload(app, client, v1)
        whole = await ask(client, "退货期限是几天？标准配送要几天？", mode="rag")
        assert whole["route"]["final_path"] == "rag" and whole.get("parts") is None


@pytest.mark.integration
async def test_slow_part_is_cut_at_the_deadline(tmp_path, embed_model_path, v1) -> None:
    settings = make_settings(tmp_path, embed_model_path, request_deadline_s=3.0,
                             timeout_retrieve_s=30.0)
    async with running(settings) as (app, client):
        await upload(app, client, v1)
        rag = app.state.components.router.rag
        real = rag.retrieve

        async def slow_for_shipping(collection, query, **kw):  # a store that stalls on one part
            if "配送" in query:
                await asyncio.sleep(30)
            return await real(collection, query, **kw)

        rag.retrieve = slow_for_shipping
        t0 = time.perf_counter()
        body = await ask(client, "退货期限是几天？标准配送要几天？", mode="rag")
        assert time.perf_counter() - t0 < 6.0
        first, second = body["parts"]
        assert first["found"] and first["citations"] and "7 天" in first["answer"]
        assert not second["found"] and not second["citations"]
        route = body["route"]
        assert route["degraded"] and "partial_answer" in route["flags"]
        assert any(t["stage"].startswith("part2") for t in route["timeouts"])


def test_sufficiency_and_process_metrics() -> None:
    from corpus.types import Citation
    from gateway.routing.sufficiency import process_metrics, sufficiency

    cite = Citation("c1", "policy.md", ("退货政策", "期限"), 1, (4, 4),
                    "购买后 7 天内可无理由退货。")
    # key pairs 退货 货期 期限 (是几 几天 hold question characters): 退货 and 期限 are cited
    assert sufficiency("退货期限是几天？", True, [cite]) == 0.667
    assert sufficiency("How many days for returns?", True, [cite]) == 0.0
    assert sufficiency("退货期限是几天？", False, [cite]) == 0.0
    parts = [{"question": "退货期限是几天？", "found": True, "citations": [0]},
             {"question": "仓库周日开门吗？", "found": False, "citations": []}]
    assert sufficiency("…", True, [cite], parts) == 0.333
    route = {"steps": [{"kind": "tool", "tool": "search"}, {"kind": "llm"}],
             "plan": {"parts": [{"steps": 2, "tool_calls": {"read": 1, "search": 1}}]},
             "rewritten_question": "x", "session": {"memory_hits": ["a.md"]}, "tokens": 7,
             "sufficiency": 0.5}
    assert process_metrics(route) == {
        "steps": 4, "tool_calls": {"search": 2, "read": 1}, "rewrites": 1, "sub_questions": 1,
        "memory_hits": 1, "tokens": 7, "sufficiency": 0.5}
