"""Budgets from the LLM's measured speed at start-up (``gateway.wiring.llm_budgets``, issue 14
item 4), against real chat-completions servers on loopback (``scripted_server``): a slow one
sizes the LLM call timeout, the loop deadline and the request deadline that every component
uses and ``/readyz`` reports; a hung one costs start-up at most the probe's own timeout and the
fixed budgets stay, flagged; a budget the operator set stays as set."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from _apphelp import make_settings, running

from gateway.wiring.llm_budgets import REQUEST_MARGIN_S, describe, fit_llm_budgets
from loop.llm_speed import LLMSpeed, fit_budgets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "loop"))
from scripted_server import ScriptedChatServer  # noqa: E402

DEFAULTS = {"llm_timeout_s": 60.0, "loop_deadline_s": 20.0, "request_deadline_s": 30.0}


def slow(body: dict[str, Any]) -> dict[str, Any]:
    """A slow model: 12 prompt tokens in 1.2 s (~10 tok/s), 2 generated in 1.0 s (~2 tok/s)."""
    if body.get("max_tokens") == 1:  # the prompt-speed call
        return {"content": "OK", "delay": 1.2,
                "usage": {"prompt_tokens": 12, "completion_tokens": 1}}
    return {"content": "1\n2", "delay": 1.0,
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}}


def _settings(tmp_path: Path, srv: ScriptedChatServer, **kw: Any) -> Any:
    return make_settings(tmp_path, None, llm_base_url=srv.base_url, llm_model="fake",
                         llm_protocol="pick", **{"llm_budgets": "probe", **kw})


async def test_slow_server_sizes_every_budget(tmp_path: Path) -> None:
    with ScriptedChatServer([slow]) as srv:
        async with running(_settings(tmp_path, srv)) as (app, client):
            body = (await client.get("/readyz")).json()
            c = app.state.components
    rep = body["llm_budgets"]
    assert rep["status"] == "fitted" and rep["mode"] == "probe"
    assert 8.0 <= rep["prompt_tps"] <= 10.0 and 1.6 <= rep["gen_tps"] <= 2.0
    assert len(srv.requests) == 2 and rep["measured_at"]
    fit = fit_budgets(LLMSpeed(rep["prompt_tps"], rep["gen_tps"], 0.0))
    want = {"llm_timeout_s": fit.call_timeout_s, "loop_deadline_s": fit.deadline_s,
            "request_deadline_s": round(fit.deadline_s + REQUEST_MARGIN_S, 1)}
    assert rep["budgets"] == want and rep["source"] == dict.fromkeys(want, "probe")
    assert all(want[k] > DEFAULTS[k] for k in want)  # ~120 s per call, ~250 s per loop
    assert f"loop_deadline_s {want['loop_deadline_s']:g} s (probe)" in describe(rep)
    # what the components use, not only what is reported
    assert c.settings.request_deadline_s == want["request_deadline_s"]
    assert c.llm.config.timeout_s == want["llm_timeout_s"]
    assert c.agent.config.deadline_s == want["loop_deadline_s"]
    assert c.router.loop.deadline_s == want["loop_deadline_s"]


async def test_hung_server_keeps_fixed_budgets_flagged(tmp_path: Path) -> None:
    with ScriptedChatServer([{"hang": True}]) as srv:
        settings = _settings(tmp_path, srv, llm_probe_timeout_s=1.0)
        t0 = time.monotonic()
        same, rep = fit_llm_budgets(settings)
        assert time.monotonic() - t0 < 2.5 and same is settings
        assert rep["status"] == "failed" and "probe timeout" in rep["detail"]
        assert rep["budgets"] == DEFAULTS and "prompt_tps" not in rep
        async with running(settings) as (app, client):
            body = (await client.get("/readyz")).json()
            c = app.state.components
    assert body["llm_budgets"]["status"] == "failed"
    assert body["status"] == "ready"  # start-up completed
    assert c.llm.config.timeout_s == 60.0 and c.agent.config.deadline_s == 20.0


async def test_fast_server_never_tightens_and_operator_values_stay(tmp_path: Path) -> None:
    fast = {"content": "OK", "usage": {"prompt_tokens": 120, "completion_tokens": 16}}
    with ScriptedChatServer([fast]) as srv:
        _, rep = fit_llm_budgets(_settings(tmp_path, srv))
        # a fast server: the fit's 10 s call floor is below the 60 s default, which stays
        # (never tightened); its loop of two such calls (25 s) is above the 20 s default
        assert rep["budgets"]["llm_timeout_s"] == 60.0 and rep["fit"]["llm_timeout_s"] == 10.0
        assert rep["source"]["llm_timeout_s"] == "default"
        assert rep["budgets"]["loop_deadline_s"] == 25.0
        with ScriptedChatServer([slow]) as slow_srv:
            s, rep = fit_llm_budgets(_settings(tmp_path, slow_srv, loop_deadline_s=42.0))
        assert rep["source"]["loop_deadline_s"] == "set" and s.loop_deadline_s == 42.0
        assert rep["source"]["llm_timeout_s"] == "probe" and s.llm_timeout_s > 60.0
        n = len(srv.requests)
        for kw in ({"llm_budgets": "fixed"}, {"llm_scope": "conversation"},
                   {"llm_timeout_s": 5.0, "loop_deadline_s": 9.0, "request_deadline_s": 12.0}):
            s, rep = fit_llm_budgets(_settings(tmp_path, srv, **kw))
            assert rep["status"] == "fixed" and rep["detail"]
        assert len(srv.requests) == n  # none of them probed


async def test_scope_loop_gives_the_llm_to_the_loopagent_only(tmp_path: Path) -> None:
    """``LOOPGATE_LLM_SCOPE=loop`` (a small local model): the LoopAgent reads with the model,
    RAG answers stay extractive (a new-user trial waited 30-118 s for RAG answers the
    citation check then refused); ``all`` gives it to both, ``conversation`` to neither; the
    start-up probe sizes budgets for ``loop`` as for ``all``."""
    with ScriptedChatServer([slow]) as srv:
        for scope, rag_has, loop_has in (("loop", False, True), ("all", True, True),
                                         ("conversation", False, False)):
            settings = _settings(tmp_path / scope, srv, llm_scope=scope, llm_budgets="fixed")
            async with running(settings) as (app, _client):
                c = app.state.components
                assert (c.router.rag.llm is not None) is rag_has, scope
                assert (c.agent.client is not None) is loop_has, scope
        _, rep = fit_llm_budgets(_settings(tmp_path / "probe", srv, llm_scope="loop"))
        assert rep["status"] == "fitted", rep
