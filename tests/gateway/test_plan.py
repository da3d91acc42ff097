"""Plan-and-execute (issue 16 item 3): the parts beyond ``max_parts``, and the router running the
parts concurrently on real documents (case 12) in a real embedded Qdrant: every part cited, a
part not found said so, a slow part cut at the deadline. Which questions are split into which
parts is in ``test_decompose``'s tables."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from _apphelp import CASE12, ask, make_settings, running, sse_events, upload

from gateway.routing import decompose


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
async def test_parts_over_the_limit_are_listed_not_a_500(tmp_path, embed_model_path, v1) -> None:
    # a break-it trial: a question of more parts than LOOPGATE_DECOMPOSE_MAX_PARTS was a 500
    # on every endpoint (the route record zipped the parts run with every part)
    q = "退货期限是几天？标准配送要几天？加急配送要几天？"
    async with running(make_settings(tmp_path, embed_model_path, decompose_max_parts=2)) \
            as (app, client):
        await upload(app, client, v1)
        body = await ask(client, q, mode="rag")
        parts = body["route"]["plan"]["parts"]
        assert len(body["parts"]) == len(parts) == 3
        assert parts[2] == {"question": "加急配送要几天？", "found": False,
                            "final_path": "over_limit", "citations": [], "steps": 0,
                            "tool_calls": {}}
        assert "parts_over_limit" in body["route"]["flags"]
        assert parts[0]["final_path"] == "rag" and body["parts"][0]["found"]


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
