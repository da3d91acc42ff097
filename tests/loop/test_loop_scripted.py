"""The loop driven by a real chat-completions server on loopback with scripted replies, over a
real embedded Qdrant store holding case 22's knowledge base."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

from conftest import run_agent
from scripted_server import ScriptedChatServer, json_action, tool_call

from corpus.citations import make_citation
from loop import NOT_FOUND, LLMConfig, LoopAgent, LoopConfig, LoopResult, StepEvent
from loop.policies.base import SYSTEM_PROMPT
from loop.policies.read_pick import PICK_SYSTEM

Q = "电池保修多久？"


def _cfg(srv: ScriptedChatServer, protocol: str = "json_actions", **kw: Any) -> LLMConfig:
    base = {"timeout_s": 5.0, "max_retries": 2, "backoff_s": 0.01}
    return LLMConfig(base_url=srv.base_url, model="scripted", protocol=protocol,  # type: ignore[arg-type]
                     **{**base, **kw})


def _last_ids(body: dict[str, Any]) -> list[str]:
    """Chunk ids the model was last shown (parsed from the newest message that has any)."""
    for m in reversed(body["messages"]):
        ids = re.findall(r"id=([0-9a-f]{16}-\d{5})", str(m.get("content") or ""))
        if ids:
            return ids
    return []


def _warranty_id(body: dict[str, Any]) -> str:
    for m in reversed(body["messages"]):
        for line in str(m.get("content") or "").splitlines():
            if "warranty.md" in line and (ids := re.findall(r"id=([0-9a-f]{16}-\d{5})", line)):
                return ids[0]
    raise AssertionError("warranty chunk never shown")


def assert_all_verified(res: LoopResult, kb: Any) -> None:
    """Zero unverifiable citations reach the output: each quote is verbatim in a chunk read."""
    chunks = {c.chunk_id: c for c in kb.chunks}
    for c in res.citations:
        assert c.chunk_id in res.read_chunk_ids, c
        assert make_citation(chunks[c.chunk_id], c.quote) is not None, c


def _run(kb: Any, cfg: LLMConfig | None, loop_cfg: LoopConfig | None = None, **kw: Any
         ) -> LoopResult:
    return run_agent(kb, cfg, kw.pop("question", Q), loop_cfg, **kw)


def _answer_warranty(quote: str = "电池保修一年") -> Any:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        return json_action("answer", {"response": "一年", "found": True, "citations": [
            {"chunk_id": _warranty_id(body), "quote": quote}]})
    return reply


def _read_warranty(body: dict[str, Any]) -> dict[str, Any]:
    return json_action("read", {"chunk_id": _warranty_id(body)})


def test_json_actions_search_read_answer(kb):
    script = [json_action("search", {"query": "电池 保修"}), _read_warranty, _answer_warranty()]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv))
    assert res.stop_reason == "answer" and res.found and res.answer == "一年"
    (cit,) = res.citations
    assert cit.path == "warranty.md" and cit.section_path[-1] == "期限" and cit.lines[0] == 4
    assert res.llm_calls == 3 and res.prompt_tokens > 0 and res.completion_tokens > 0
    assert res.brain == "llm:scripted:json"
    fmt = srv.requests[0]["response_format"]
    assert fmt["type"] == "json_schema" and "anyOf" in fmt["json_schema"]["schema"]
    assert_all_verified(res, kb)


def test_native_tool_calls(kb):
    def read(body: dict[str, Any]) -> dict[str, Any]:
        tool_msgs = [m for m in body["messages"] if m["role"] == "tool"]
        assert tool_msgs and tool_msgs[-1]["tool_call_id"] == "call_0"
        return tool_call("read", {"chunk_id": _warranty_id(body)})

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return tool_call("answer", {"response": "一年", "found": True, "citations": [
            {"chunk_id": _warranty_id(body), "quote": "电池保修一年。"}]})
    with ScriptedChatServer([tool_call("search", {"query": "电池保修"}), read, answer]) as srv:
        res = _run(kb, _cfg(srv, "tools"))
    assert res.found and res.citations[0].lines[0] == 4 and res.brain.endswith(":tools")
    assert srv.requests[0]["tools"][0]["function"]["name"] == "search"
    assert_all_verified(res, kb)


def test_auto_probe_picks_the_line_reading_protocol_and_remembers(kb):
    probe_text = {"content": "<tools>ping</tools>"}  # what llama.cpp's jinja template did

    def copy_value(body: dict) -> dict:  # the pick step: copy a value from the line holding it
        user = body["messages"][-1]["content"]
        for value in ("电池保修一年", "15 天"):
            for ln in user.splitlines():
                if value in ln and "| " in ln:
                    k = int(ln.split("|", 1)[0])
                    return {"content": json.dumps({"value": value, "line": k},
                                                  ensure_ascii=False)}
        return {"content": '{"value": "", "line": 0}'}
    with ScriptedChatServer([probe_text, copy_value]) as srv:
        async def go() -> tuple[LoopResult, LoopResult]:
            agent = LoopAgent(kb.store, kb.search, llm=_cfg(srv, "auto"), documents=kb)
            r1 = await agent.run_async("电池保修多久，退货期限多久？", kb.collection)
            r2 = await agent.run_async("退货期限？", kb.collection)
            await agent.aclose()
            return r1, r2
        r1, r2 = asyncio.run(go())
    # auto without native tools = the line-reading protocol with the pick step first
    assert r1.brain.endswith(":pick") and r1.found and "电池保修一年" in r1.answer, r1.guard
    assert r2.stop_reason == "answer" and r2.found
    assert sum("tools" in r for r in srv.requests) == 1  # probed once, remembered
    assert all("tools" in r or r["messages"][0]["content"] == PICK_SYSTEM
               for r in srv.requests)


def test_malformed_json_is_repaired_or_reasked(kb):
    fenced = '```json\n{"tool": "search", "arguments": {"query": "电池",},}\n```'
    script = [{"content": fenced},
              {"content": "I think I should read it now"},  # not JSON: re-asked once
              _read_warranty, _answer_warranty()]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv))
    assert res.found and res.llm_calls == 4
    assert any(e.note == "re-asked once" for e in res.steps)


def test_invented_ids_and_unverifiable_quotes_never_reach_output(kb):
    script = [json_action("search", {"query": "电池"}),
              json_action("read", {"chunk_id": "deadbeefdeadbeef-00042"}),  # invented id
              _answer_warranty(quote="电池保修两年"),  # chunk shown but never read
              _read_warranty,
              _answer_warranty(quote="电池保修两年")]  # read, but the quote is not in it
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv))
    bad = [e for e in res.steps if e.tool == "read" and e.status == "error"]
    assert bad and "unknown chunk id" in bad[0].note
    assert res.citations == [] and not res.found and res.answer == NOT_FOUND
    assert res.dropped_citations == 2


def test_case22_endless_repeated_search_hard_stop(kb, case22_dir):
    script_file = json.loads((case22_dir / "fake_llm_script.json").read_text(encoding="utf-8"))
    turns = [tool_call(t["name"], t["arguments"]) for t in script_file["turns"]]
    expected = json.loads((case22_dir / "expected.json").read_text(encoding="utf-8"))
    t0 = time.monotonic()
    with ScriptedChatServer(turns) as srv:
        res = _run(kb, _cfg(srv, "tools"), question=script_file["question"])
    assert time.monotonic() - t0 < 10
    assert res.stop_reason == "repeated_calls"
    # executed once, refused twice (cached result + hint), hard stop at the third repeat
    assert res.tool_calls == 1 and len(srv.requests) == 4
    refused = [e for e in res.steps if e.status == "refused"]
    assert len(refused) == 2 and "already ran" in refused[0].note
    assert res.found and "一年" in res.answer and res.evidence_answer
    (cit,) = res.citations
    assert cit.path == expected["cite"]["file"] and cit.lines[0] == expected["cite"]["line"]
    assert cit.section_path[-1] == expected["cite"]["section"]
    assert res.steps[-1].kind == "stop" and res.steps[-1].status == "repeated_calls"
    assert_all_verified(res, kb)


def test_normalised_duplicates_are_refused(kb):
    turns = [tool_call("search", {"query": "电池保修期"}),
             tool_call("search", {"query": " 电池保修期 ", "top_k": 5}),
             tool_call("search", {"top_k": 5, "query": "电池保修期"})]
    with ScriptedChatServer(turns) as srv:
        res = _run(kb, _cfg(srv, "tools"))
    assert res.tool_calls == 1 and res.stop_reason == "repeated_calls"


def test_slow_replies_past_timeout_end_the_loop_without_hanging(kb):
    script = [json_action("search", {"query": "电池"}),
              {**json_action("read", {"chunk_id": "x"}), "delay": 1.5}]
    t0 = time.monotonic()
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv, timeout_s=0.3, max_retries=1))
    assert time.monotonic() - t0 < 6
    assert res.stop_reason == "llm_error" and len(srv.requests) == 3  # 1 + 2 attempts
    assert res.found and res.citations[0].path == "warranty.md"  # evidence shown so far


def test_429_and_500_are_retried(kb):
    script = [{"status": 429, "body": "slow down"}, {"status": 503, "body": "busy"},
              json_action("search", {"query": "电池"}), _read_warranty, _answer_warranty()]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv))
    assert res.found and len(srv.requests) == 5


def test_500s_exhaust_retries_then_stop(kb):
    with ScriptedChatServer([{"status": 500, "body": "boom"}]) as srv:
        res = _run(kb, _cfg(srv, max_retries=2))
    assert res.stop_reason == "llm_error" and len(srv.requests) == 3
    assert res.citations == [] and not res.found


def test_fallback_to_rag(kb):
    script = [json_action("fallback_to_rag", {"reason": "broad overview question"})]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv), question="总结一下这些文件")
    assert res.fallback and res.fallback_reason == "broad overview question"
    assert res.citations == []


def test_max_loops_budget_and_last_step_notice(kb):
    script = [json_action("search", {"query": f"q{i}"}) for i in range(20)]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv), LoopConfig(max_loops=3))
    assert res.stop_reason == "max_loops" and res.llm_calls == 3
    assert "last step" in srv.requests[-1]["messages"][-1]["content"]


def test_token_budget(kb):
    script = [{**json_action("search", {"query": f"q{i}"}),
               "usage": {"prompt_tokens": 900, "completion_tokens": 200}} for i in range(9)]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv), LoopConfig(token_budget=2000))
    assert res.stop_reason == "token_budget" and res.llm_calls == 2 and res.tokens == 2200


def test_wall_clock_deadline(kb):
    script = [{**json_action("search", {"query": f"q{i}"}), "delay": 0.4} for i in range(9)]
    t0 = time.monotonic()
    with ScriptedChatServer(script) as srv:
        res = _run(kb, _cfg(srv), LoopConfig(deadline_s=1.0))
    assert res.stop_reason == "deadline" and time.monotonic() - t0 < 2.5


def test_slow_tool_times_out_with_hint(kb):
    class SlowSearch:
        def search(self, query, collection, top_k, flt=None):
            time.sleep(0.5)
            return kb.search.search(query, collection, top_k, flt)

    script = [json_action("search", {"query": "电池"}),
              json_action("answer", {"response": "?", "found": False, "citations": []})]
    with ScriptedChatServer(script) as srv:
        async def go() -> LoopResult:
            agent = LoopAgent(kb.store, SlowSearch(), llm=_cfg(srv),
                              config=LoopConfig(tool_timeout_s=0.1))
            try:
                return await agent.run_async(Q, kb.collection)
            finally:
                await agent.aclose()
        res = asyncio.run(go())
    (ev,) = [e for e in res.steps if e.tool == "search"]
    assert ev.status == "timeout" and "timed out" in ev.note
    assert "timed out" in srv.requests[1]["messages"][-1]["content"]


def test_events_prompt_and_stable_system_prompt(kb):
    events: list[StepEvent] = []

    async def sink(ev: StepEvent) -> None:
        events.append(ev)

    script = [json_action("search", {"query": "电池"}), _read_warranty, _answer_warranty(),
              json_action("answer", {"response": "n", "found": False, "citations": []})]
    with ScriptedChatServer(script) as srv:
        async def go() -> None:
            agent = LoopAgent(kb.store, kb.search, llm=_cfg(srv), documents=kb)
            hits = kb.search.search("电池", kb.collection, 3)
            await agent.run_async(Q, kb.collection, on_event=sink, candidates=hits,
                                  history=[{"role": "user", "content": "我买了一台机器"}],
                                  current_date="2025-11-11")
            await agent.run_async("退货期限多久？", kb.collection)
            await agent.aclose()
        asyncio.run(go())
    tools = [e for e in events if e.kind == "tool"]
    assert [e.tool for e in tools] == ["search", "read", "answer"]
    assert all(e.elapsed_ms >= 0 and e.result_chars >= 0 for e in tools)
    assert tools[0].result_chars > 0 and tools[0].arguments == {"query": "电池"}
    first = srv.requests[0]["messages"]
    assert first[0]["content"].startswith(SYSTEM_PROMPT)
    assert srv.requests[3]["messages"][0] == first[0]  # byte-stable across questions
    user = first[1]["content"]
    assert "Current date: 2025-11-11" in user and "我买了一台机器" in user
    assert "Documents in this collection:\n- " in user and "warranty.md" in user
    assert "Candidates from the fast search path" in user


def test_unreachable_llm_falls_back_to_offline_policy(kb):
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    events: list[StepEvent] = []
    cfg = LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", protocol="auto", max_retries=0)

    async def go() -> LoopResult:
        agent = LoopAgent(kb.store, kb.search, llm=cfg, documents=kb)
        try:
            return await agent.run_async(Q, kb.collection, on_event=events.append)
        finally:
            await agent.aclose()
    res = asyncio.run(go())
    assert res.brain == "offline" and res.found and "电池保修一年" in res.answer
    assert events[0].kind == "llm" and "LLM unavailable, offline policy" in events[0].note
