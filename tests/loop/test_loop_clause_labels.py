"""The offline LoopAgent answers a question naming a numbered article (第21条 / 第二十一条) with
that article's own text, not with another article citing it, and says "not found" for an
article the text lacks (a new-user trial: on a regulation whose articles are numbered in
running text, both forms were "not found": the dense re-rank put 第二十五条's sentence citing
第二十一条 first, the "21" of 第21条 was weighed as a year, and the answer check refused it as
another article's). Real ingest into an embedded store, the offline policy, no LLM."""

from __future__ import annotations

import pytest
from conftest import KB, run_agent, text_kb_fixture

REGULATION = (
    "# 某公司安全生产管理办法\n\n"
    "第二十条 危险化学品的储存应当符合国家标准，仓库应当设置明显的安全警示标志。\n"
    "第二十一条 特种设备应当每年进行一次定期检验，检验合格证书应当张贴在设备显著位置。\n"
    "第二十二条 发生生产安全事故后，现场人员应当在十五分钟内报告本单位负责人。\n"
    "第二十五条 违反本办法第二十一条规定，未按期检验特种设备的，对责任部门处以五千元罚款。\n"
)


kb = text_kb_fixture("reg", {"reg.md": REGULATION})


@pytest.mark.parametrize("question", ["第21条规定了什么？", "第二十一条规定了什么？"])
def test_the_article_named_answers_in_either_numeral_form(kb: KB, question: str) -> None:
    res = run_agent(kb, None, question)
    assert res.found, (res.out_of_scope, res.answer)
    assert res.citations[0].quote.startswith("第二十一条"), res.citations[0].quote


def test_an_article_citing_the_one_asked_answers_only_for_itself(kb: KB) -> None:
    res = run_agent(kb, None, "第25条规定了什么？")
    assert res.found and res.citations[0].quote.startswith("第二十五条"), res.answer
    for absent in ("第26条规定了什么？", "第0条规定了什么？"):  # no such article: none answers
        missing = run_agent(kb, None, absent)
        assert not missing.found and not missing.citations, (absent, missing.answer)


CONTRACT = (
    "# Master Services Agreement\n\n"
    "## Clause 3 Fees\nThe Customer shall pay a monthly fee of GBP 21,000.\n\n"
    "## Clause 4 Service Levels\nThe Supplier shall ensure the platform is available 99.5% of "
    "each calendar month.\n\n"
    "## Clause 5 Confidentiality\nEach party shall keep the other party's information secret.\n"
)


contract_kb = text_kb_fixture("contract", {"contract.md": CONTRACT})


def test_a_heading_is_answered_by_the_text_under_it(contract_kb: KB) -> None:
    # a trial: "What does Clause 4 say?" was answered "Clause 4 Service Levels"
    res = run_agent(contract_kb, None, "What does Clause 4 say?")
    assert res.found, res.answer
    quote = " ".join(res.citations[0].quote.split())
    assert quote.endswith("Clause 4 Service Levels The Supplier shall ensure the platform is "
                          "available 99.5% of each calendar month."), quote  # heading + text
