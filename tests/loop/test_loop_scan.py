"""The directory scan (issue 14 item 1): the ``scan`` tool over a real embedded store, and the
offline policy's scan → jump → refine (the section the directory picks is read after the RAG
and search candidates)."""

from __future__ import annotations

import asyncio

from conftest import KB, text_kb_fixture

from corpus.tokenizer import Tokenizer
from loop import LoopAgent, LoopConfig, StepEvent
from loop.tools import TOOLS, ToolContext, run_tool

# The overview holds every word of the question, one or two per sentence, so a one-result
# search shows it while none of its sentences answers; the answer sits in section 4, whose title
# names it.
HANDBOOK = """# 员工手册

## 1 差旅报销概述

差旅费用由财务部统一管理。报销单据应当齐全。申请材料应当真实。提交方式为线上。时限要求另行规定。

## 2 住宿标准

一线城市住宿每晚不超过六百元，其他城市每晚不超过四百元。

## 3 交通工具

出差优先乘坐高铁二等座，六小时以上航程可乘坐经济舱。

## 4 提交时限

出差结束后应在三十日内提交报销申请，逾期不予受理。

## 5 审批流程

部门经理审批后交财务部复核，复核通过后五个工作日内付款。
"""
QUESTION = "差旅报销申请的提交时限是几天？"


hb = text_kb_fixture("hb", {"handbook.md": HANDBOOK})


def _section(kb: KB, title: str) -> str:
    return next(c.chunk_id for c in kb.chunks if c.section_path[-1] == title)


def test_scan_lists_the_best_entries_of_the_candidate_documents(hb: KB) -> None:
    ctx = ToolContext(hb.store, hb.search, hb.collection, LoopConfig(scan_entries=2))
    empty = asyncio.run(run_tool(TOOLS["scan"], ctx, {"query": "提交时限"}))
    assert empty.status == "empty" and "search first" in empty.hint
    overview = next(c for c in hb.chunks if c.section_path[-1] == "1 差旅报销概述")
    ctx.seen[overview.chunk_id] = overview  # a candidate from the RAG path
    res = asyncio.run(run_tool(TOOLS["scan"], ctx, {"query": "报销 提交 时限"}))
    assert res.status == "ok"
    lines = res.content.splitlines()
    assert lines[0].startswith("handbook.md (5 entries; 2 shown)") and len(lines) == 3
    assert _section(hb, "4 提交时限") in res.content and "4 提交时限" in res.content
    assert "三十日内" in res.content  # the lead sentence is the summary
    assert {c.chunk_id for c in res.data} == set(res.chunk_ids) and len(res.data) == 2
    assert set(ctx.read) == set() and len(ctx.seen) == 1  # scanning reads nothing
    other = asyncio.run(run_tool(TOOLS["scan"], ctx, {"query": "报销", "docs": ["nope.md"]}))
    assert other.status == "empty"
    named = asyncio.run(run_tool(TOOLS["scan"], ctx, {"query": "报销", "docs": "handbook.md"}))
    assert named.status == "ok" and named.content.startswith("handbook.md")
    none = asyncio.run(run_tool(TOOLS["scan"], ctx, {"query": "火星 登陆"}))
    assert none.status == "empty" and "matches" in none.hint


def test_offline_policy_reads_the_section_the_directory_picks(hb: KB, tokenizer: Tokenizer
                                                              ) -> None:
    answer = _section(hb, "4 提交时限")
    runs = {}
    for scan in (False, True):
        events: list[StepEvent] = []
        agent = LoopAgent(hb.store, hb.search, key_terms=tokenizer, documents=hb,
                          config=LoopConfig(search_top_k=1, directory_scan=scan))
        res = agent.run(QUESTION, hb.collection, on_event=events.append)
        runs[scan] = (res, [e.tool for e in events if e.kind == "tool"])
    plain, plain_tools = runs[False]
    assert "scan" not in plain_tools and answer not in plain.read_chunk_ids
    res, tools = runs[True]
    # scan after the first searches, the candidates read first, then the jump
    assert tools[:3] == ["search", "search", "scan"]
    assert res.read_chunk_ids.index(answer) > 0
    assert res.found and answer in [c.chunk_id for c in (*res.citations, *res.related)]
