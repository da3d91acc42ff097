"""The line-reading protocol (``loop.policies.llm_read``, issue 14) without a model: a scripted
OpenAI-compatible server on loopback, case 22's knowledge base in a real embedded store.
Near-JSON replies, line id → verified quote, invented line ids dropped, the never-worse guard,
and cancellation at the loop deadline."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from conftest import run_agent, scripted_llm
from scripted_server import ScriptedChatServer
from test_loop_scripted import Q, assert_all_verified

from corpus.types import Citation
from loop import LoopAgent, LoopConfig, LoopResult
from loop.evidence import TermMatcher
from loop.policies.read_blocks import chunk_blocks, render_block
from loop.policies.read_guard import is_question_echo, judge, unsupported_figures
from loop.policies.read_parse import ReplyError, parse_answer, parse_decision
from loop.policies.read_prompts import READ_SYSTEM, renumber

BATTERY = "整机保修三年，电池保修一年。"  # line 2 of warranty.md's block (line 1: its heading)


def _extract(lines: list[Any], then: str = "answer", **extra: Any) -> dict[str, Any]:
    return {"content": json.dumps({"action": "extract", "notes": [
        {"fact": "电池保修一年", "lines": lines}], "then": then}, ensure_ascii=False), **extra}


def _answer(text: str = "电池保修一年[1]。") -> dict[str, Any]:
    return {"content": json.dumps({"answer": text}, ensure_ascii=False)}


def _run(kb: Any, srv: ScriptedChatServer, loop_cfg: LoopConfig | None = None,
         question: str = Q, **kw: Any) -> LoopResult:
    return run_agent(kb, scripted_llm(srv.base_url, "read", **kw), question, loop_cfg)


@pytest.mark.parametrize("reply,expect", [
    ('```json\n{"action": "extract", "notes": [{"fact": "a", "lines": [2,]},],}\n```',
     ("extract", [("a", [2])], "answer")),
    ("Sure! {'action': 'continue', 'to': 'next'} hope that helps", ("continue", [], "next")),
    ('{"action": "extract", "notes": [{"fact": "b", "lines": ["L1-3", 9]}], "then": "other"',
     ("extract", [("b", [1, 2, 3])], "other")),
    ('[{"action": "stop", "reason": "not in this document"}]', ("stop", [], "stop")),
    ('{"tool": "next"}', ("continue", [], "next")),
])
def test_near_json_replies_are_repaired(reply: str, expect: tuple[Any, ...]) -> None:
    d = parse_decision(reply, n_lines=4)
    assert (d.action, d.notes, d.move) == expect


@pytest.mark.parametrize("reply", ["I think I should read it now", "", '{"action": "jump"}',
                                   '{"action": "extract", "notes": [{"fact": "x", "lines": [7]}]}'])
def test_unusable_replies_raise_a_message_for_the_reask(reply: str) -> None:
    with pytest.raises(ReplyError):
        parse_decision(reply, n_lines=4)


def test_answer_replies_and_footnote_renumbering() -> None:
    assert parse_answer('{"answer": "一年[1]"') == "一年[1]"
    assert parse_answer("一年[1]") == "一年[1]"
    with pytest.raises(ReplyError):
        parse_answer('{"answer": ""}')
    # note 1 holds citations 1 and 2, note 2 citation 3; marker [5] names no note
    assert renumber("A [1], B [2] C[5]", [[1, 2], [3]]) == "A[1][2], B[3] C"


def test_blocks_are_verbatim_numbered_lines(kb: Any) -> None:
    (block,) = chunk_blocks(kb.chunk("warranty.md"))
    assert block.line(2) == BATTERY and block.line(0) is None and block.line(9) is None
    text = render_block(block)
    assert f"2| {BATTERY}" in text and "warranty.md" in text and "p.1" in text


def test_line_ids_become_verified_quotes_one_note_is_the_answer(kb: Any) -> None:
    with ScriptedChatServer([_extract([2])]) as srv:
        res = _run(kb, srv)
    assert res.brain == "llm:scripted:read" and res.stop_reason == "answer", res.guard
    assert res.found and res.answer == "电池保修一年[1]" and "kept" in res.guard
    (cit,) = res.citations
    assert cit.quote == BATTERY and cit.path == "warranty.md" and cit.lines == (4, 4)
    assert res.llm_calls == 1 and res.invalid_actions == 0  # one note: no answer call
    assert_all_verified(res, kb)
    (step,) = srv.requests
    fmt = step["response_format"]
    assert fmt["type"] == "json_schema" and len(fmt["json_schema"]["schema"]["anyOf"]) == 3
    assert step["messages"][0]["content"] == READ_SYSTEM
    user = step["messages"][1]["content"]
    assert user.startswith(f"Question: {Q}") and f"2| {BATTERY}" in user
    assert "in Chinese" in user and len(user) < 600  # one short block, not every candidate


def test_the_model_writes_the_answer_from_several_notes(kb: Any) -> None:
    returns = {"content": json.dumps({"action": "extract", "notes": [
        {"fact": "15天内可退货", "lines": [2]}], "then": "answer"}, ensure_ascii=False)}
    script = [_extract([2], then="other"), returns, _answer("电池保修一年[1]，退货15天[2]。")]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, srv, question="电池保修多久，退货期限多久？")
    assert res.llm_calls == 3 and res.brain.endswith(":read"), res.guard
    assert res.answer == "电池保修一年[1]，退货15天[2]。"
    assert [c.path for c in res.citations] == ["warranty.md", "returns.md"]
    answer_req = srv.requests[-1]
    assert answer_req["messages"][0]["content"] == READ_SYSTEM  # one system prompt for all
    assert "[2] 15天内可退货" in answer_req["messages"][1]["content"]
    assert_all_verified(res, kb)


def test_a_kept_llm_answer_carries_the_offline_citations_too(kb: Any) -> None:
    question = "电池保修多久，退货期限多久？"
    offline = asyncio.run(LoopAgent(kb.store, kb.search, documents=kb).run_async(
        question, kb.collection))
    assert offline.found and offline.citations
    with ScriptedChatServer([_extract([2])]) as srv:  # the model notes the warranty only
        res = _run(kb, srv, question=question)
    assert res.brain.endswith(":read") and res.answer == "电池保修一年[1]", res.guard
    assert res.citations[0].quote == BATTERY
    assert all(c in res.citations for c in offline.citations)


def test_an_invented_line_id_is_dropped(kb: Any) -> None:
    script = [_extract([42]),  # no line 42: re-asked with the error
              _extract([2, 42])]  # line 42 dropped, line 2 kept
    with ScriptedChatServer(script) as srv:
        res = _run(kb, srv)
    assert res.invalid_actions == 1 and res.dropped_citations == 1
    assert [c.quote for c in res.citations] == [BATTERY] and res.brain.endswith(":read")
    assert "1 to 3" in srv.requests[1]["messages"][-1]["content"]
    assert_all_verified(res, kb)


def test_unusable_twice_the_offline_rule_takes_the_step(kb: Any) -> None:
    script = [{"content": "let me think"}, {"content": "still thinking"}]
    with ScriptedChatServer(script) as srv:
        res = _run(kb, srv)
    assert res.invalid_actions == 2 and res.found
    assert [c.quote for c in res.citations] == [BATTERY]
    assert_all_verified(res, kb)


def test_guard_keeps_the_offline_answer_when_the_llm_cites_weaker_lines(kb: Any) -> None:
    with ScriptedChatServer([_extract([1])]) as srv:  # cites the heading line
        res = _run(kb, srv)
    assert res.brain == "offline" and res.found and BATTERY in res.answer
    assert res.guard.startswith("offline answer: llm cited lines cover")
    assert res.steps[-1].kind == "stop" and res.steps[-1].note == res.guard
    assert_all_verified(res, kb)


def test_guard_llm_not_found_never_hides_offline_evidence(kb: Any) -> None:
    stop = {"content": '{"action": "stop", "reason": "not_in_document"}'}
    with ScriptedChatServer([stop]) as srv:
        res = _run(kb, srv)
    assert res.brain == "offline" and res.found and "llm found nothing" in res.guard


def test_judge_scores_both_sides_with_one_scorer(kb: Any, tokenizer: Any) -> None:
    chunk = kb.chunk("warranty.md")
    m = TermMatcher(tokenizer.key_terms(Q), tokenizer)

    def cit(quote: str) -> Citation:
        return Citation(chunk.chunk_id, chunk.path, chunk.section_path, 1, (4, 4), quote)
    read = {chunk.chunk_id: chunk}
    strong, weak = cit(BATTERY), cit("The unit has a 3-year warranty")
    assert judge([strong], [strong], True, read, m, 0.4).keep_llm  # a tie keeps the LLM
    v = judge([weak], [strong], True, read, m, 0.4)
    assert not v.keep_llm and v.llm < v.offline
    assert judge([strong], [], False, read, m, 0.4).keep_llm  # offline found nothing
    assert not judge([], [strong], True, read, m, 0.4).keep_llm


def test_a_hung_llm_is_cancelled_at_the_deadline_with_the_offline_answer(kb: Any) -> None:
    t0 = time.monotonic()
    with ScriptedChatServer([{"hang": True}]) as srv:
        res = _run(kb, srv, LoopConfig(deadline_s=2.0), timeout_s=60.0)
    took = time.monotonic() - t0
    assert took < 3.0, took
    assert res.stop_reason == "deadline" and res.evidence_answer and res.brain == "offline"
    assert res.found and BATTERY in res.answer and "deadline" in res.guard
    assert_all_verified(res, kb)


def test_an_llm_fault_or_the_token_budget_gives_the_offline_answer(kb: Any) -> None:
    with ScriptedChatServer([{"status": 500, "body": "boom"}]) as srv:
        res = _run(kb, srv)
    assert res.stop_reason == "llm_error" and res.found and res.brain == "offline"
    costly = {**_extract([2], then="other"),
              "usage": {"prompt_tokens": 3000, "completion_tokens": 10}}
    with ScriptedChatServer([costly]) as srv:
        res = _run(kb, srv, LoopConfig(token_budget=2000), question="电池保修多久，退货期限多久？")
    assert res.stop_reason == "token_budget" and res.found and res.llm_calls == 1
    assert res.brain == "offline" and "token_budget" in res.guard


def test_moves_are_resolved_by_the_loop_and_end_with_the_plan(kb: Any) -> None:
    nxt = {"content": '{"action": "continue", "to": "next"}'}
    with ScriptedChatServer([nxt]) as srv:  # always "next": past the end of each document
        res = _run(kb, srv, LoopConfig(max_loops=10))
    shown = [s for s in res.steps if s.kind == "llm"]
    assert len(shown) == len({s.note.split(":")[0] for s in shown})  # no block twice
    assert res.llm_calls <= 12 and res.brain == "offline" and res.found


def test_a_fact_with_a_figure_its_lines_do_not_hold_is_dropped(kb: Any) -> None:
    invented = {"content": json.dumps({"action": "extract", "notes": [
        {"fact": "电池保修2年", "lines": [2]}], "then": "answer"}, ensure_ascii=False)}
    with ScriptedChatServer([invented]) as srv:
        res = _run(kb, srv)
    assert res.dropped_citations == 1 and res.brain == "offline" and res.found
    assert "2年" not in res.answer and "llm found nothing" in res.guard
    assert unsupported_figures("100 微安[1]", ["RTC 8 KB"]) == ["100"]
    assert unsupported_figures("15m [1]", ["最大传输距离：15m。"]) == []
    assert unsupported_figures("１,000 次", ["1000次"]) == []


def test_digits_of_a_code_the_question_names_are_no_figure() -> None:
    line = "- 集成2.4GHz RF 收发器和基带及链路控制- 接收灵敏度-98dBm，可编程+6dBm 发送功率"
    q = "CH583的BLE接收灵敏度是多少？"
    assert unsupported_figures("CH583的BLE接收灵敏度是-98dBm", [line], q) == []
    assert unsupported_figures("CH583的BLE接收灵敏度是-98dBm", [line]) == ["583"]
    assert unsupported_figures("CH583的BLE接收灵敏度是-97dBm", [line], q) == ["97"]
    assert unsupported_figures("CH592的接收灵敏度是-98dBm", [line], q) == ["592"]
    # a year or a plain number the question holds is still checked against the lines
    assert unsupported_figures("35.92% as of March 31, 2017", ["35.92%", "31st March, 2007"],
                               "What percentage as of March 31, 2017?") == ["2017"]


def test_changed_chinese_numerals_and_echoed_questions_are_no_facts() -> None:
    line = "劳动者在试用期内提前三日通知用人单位，可以解除劳动合同。"
    assert unsupported_figures("试用期内提前三十日通知[1]", [line]) == ["三十"]
    assert unsupported_figures("整机保修三年，电池保修一年", [BATTERY]) == []
    assert is_question_echo("根据劳动合同法，员工每年可以享受多少天带薪年休假？[1]",
                            "每年可以享受多少天带薪年休假？")
    assert is_question_echo("Is it optional?", "Is the GPIB interface included?")
    assert not is_question_echo("电池保修一年", Q)
