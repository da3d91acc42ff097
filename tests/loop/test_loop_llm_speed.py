"""Budgets sized from the model's measured speed and server threads from the free cores (issue
14 item 4), without a model: the probe runs through the real client against a scripted
OpenAI-compatible server on loopback whose replies take known times."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from scripted_server import ScriptedChatServer

from loop import LLMConfig
from loop.llm_client import AsyncLLMClient
from loop.llm_speed import LLMSpeed, fit_budgets, probe_speed

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from local_llm_server import free_cores  # noqa: E402


def _probe(script: list[dict[str, object]]) -> LLMSpeed:
    with ScriptedChatServer(script) as srv:
        async def go() -> LLMSpeed:
            client = AsyncLLMClient(LLMConfig(base_url=srv.base_url, protocol="json",
                                              max_retries=0, timeout_s=10))
            try:
                return await probe_speed(client)
            finally:
                await client.aclose()
        return asyncio.run(go())


def test_the_probe_measures_prompt_and_generation_speed() -> None:
    # 120 prompt tokens in 0.6 s = 200 tok/s; then 10 prompt tokens (0.05 s) + 16 generated
    # in 0.45 s more = ~36 tok/s
    speed = _probe([
        {"content": "OK", "delay": 0.6,
         "usage": {"prompt_tokens": 120, "completion_tokens": 1}},
        {"content": "1 2 3", "delay": 0.5,
         "usage": {"prompt_tokens": 10, "completion_tokens": 16}}])
    assert 120 <= speed.prompt_tps <= 200, speed
    assert 20 <= speed.gen_tps <= 40, speed


def test_budgets_grow_with_a_slower_model_within_floor_and_cap() -> None:
    fast, slow = LLMSpeed(500.0, 60.0, 0.0), LLMSpeed(8.0, 3.0, 0.0)
    f, s = fit_budgets(fast), fit_budgets(slow)
    assert f.call_timeout_s == 10.0 and f.deadline_s == 25.0  # the floors
    # 450 / 8 + 30 / 3 = 66.25 s per call, x2 = 132.5 s; deadline 5 + 2 x 132.5
    assert s.call_timeout_s == 132.5 and s.deadline_s == 270.0
    assert fit_budgets(LLMSpeed(1.0, 0.5, 0.0)).deadline_s == 600.0  # the cap
    assert s.deadline_s > s.call_timeout_s  # a call always fits in the loop's time


@pytest.mark.parametrize("ncpu,load,want", [(2, 0.0, 1), (2, 7.5, 1), (8, 0.2, 7), (8, 3.4, 5),
                                            (8, 20.0, 1), (1, 0.0, 1)])
def test_server_threads_are_the_free_cores_minus_one_for_the_gateway(
        ncpu: int, load: float, want: int) -> None:
    assert free_cores(ncpu, load) == want


def test_each_probe_sends_a_fresh_prompt_no_cache_can_serve() -> None:
    prompts: list[str] = []

    def reply(body: dict[str, object]) -> dict[str, object]:
        msgs = body["messages"]
        assert isinstance(msgs, list)
        prompts.append(str(msgs[0]["content"]))
        return {"content": "OK", "usage": {"prompt_tokens": 120, "completion_tokens": 1}}
    _probe([reply])
    _probe([reply])
    assert len(prompts) == 4 and prompts[0] != prompts[2] and prompts[1] != prompts[3]
    assert prompts[0][:20] != prompts[2][:20]  # differs from the start: no shared prefix


def test_the_local_server_script_prints_settings_that_exist_and_fit_the_probe() -> None:
    from local_llm_server import suggested_settings

    from gateway.settings import Settings

    script = [{"content": "OK", "delay": 0.6,
               "usage": {"prompt_tokens": 120, "completion_tokens": 1}},
              {"content": "1 2 3", "delay": 0.5,
               "usage": {"prompt_tokens": 10, "completion_tokens": 16}}]
    with ScriptedChatServer(script) as srv:
        text = suggested_settings(srv.base_url)
    assigned = dict(kv.split("=", 1) for kv in text.splitlines()[-1].split())
    assert assigned["LOOPGATE_LLM_PROTOCOL"] == "pick"
    fields = {f"LOOPGATE_{n.upper()}" for n in Settings.model_fields}
    assert set(assigned) <= fields  # every suggested name is a real setting
    loop_s, request_s = (float(assigned[k]) for k in ("LOOPGATE_LOOP_DEADLINE_S",
                                                      "LOOPGATE_REQUEST_DEADLINE_S"))
    assert float(assigned["LOOPGATE_LLM_TIMEOUT_S"]) < loop_s < request_s


def test_a_server_that_reports_no_token_counts_is_not_measured() -> None:
    """A reply without usage counted as 1 token: a server taking 1 s per call measured
    ~1 tok/s, and the gateway sized every budget to the 600 s cap (request deadline 610 s).
    Now the probe fails and the fixed budgets stay."""
    from loop.errors import LLMProtocolError

    no_prompt = {"content": "OK", "usage": {"prompt_tokens": 0, "completion_tokens": 1}}
    ok = {"content": "OK", "usage": {"prompt_tokens": 120, "completion_tokens": 1}}
    no_completion = {"content": "1 2", "usage": {"prompt_tokens": 10, "completion_tokens": 0}}
    for script in ([no_prompt, ok], [ok, no_completion]):
        with pytest.raises(LLMProtocolError, match="no token counts"):
            _probe(script)
