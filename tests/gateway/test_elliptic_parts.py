"""A two-part question whose second part is elliptic (issue 16): "…of the ESP32-PICO-D4, and
the minimum?", "ESP32-PICO-D4的工作电压是多少，CH583呢？", "What was 3M's revenue in 2018 and in
2019?" — the second part was dropped (the whole asked as one question, only the first part
answered); now it is filled from the first (gateway.routing.elliptic, decompose rule
``elliptic``) and both parts are answered, each with its own citations. The split itself
(which questions are an elliptic pair, which are not) is in ``test_decompose``'s tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.routing import RouteTrace
from gateway.routing.plan import PlanStages
from gateway.routing.types import QueryInput
from tests.gateway._apphelp import ask, make_settings, running, upload

ESP = "ESP32-PICO-D4"


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
