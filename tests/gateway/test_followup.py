"""The one follow-up test of the gateway (gateway.routing.followup): follow-ups are found, and a
standalone question — one that names its own subject, even with "its", "their", "the first" or
其 in it — is not (it used to be merged with an unrelated earlier question)."""

from __future__ import annotations

import pytest

from gateway.conversation import rewrite_rules
from gateway.routing import retrieval_query
from gateway.routing.followup import followup_reason, is_followup


@pytest.mark.parametrize(("question", "cue"), [
    # standalone: names its own subject, even with "its", "their", "the first" or 其
    ("Has Microsoft increased its debt on balance sheet between FY2023 and the FY2022 period?",
     None),
    ("What is the minimum time a team member must be in their current role before a transfer?",
     None),
    ("What are the key categories that Nike focuses on for their brand product offerings?", None),
    ("What is the first item listed under 'Furniture' on the equipment list?", None),
    ("What are the last 4 chapters listed in the table of contents?", None),
    ("Which of the following is one of GitLab's values?", None),
    ("What is the first step to request access to a system?", None),
    ("Is it possible to expense a standing desk?", None),
    ("What is the name of the matrix that evaluates performance and potential?", None),
    ("Prior to joining, which forms must a new hire sign?", None),
    ("What is GDPR?", None),
    ("How many chunks can one node index?", None),
    ("卡特在其任内受到哪些人的阻挡？", None),
    ("TH2817B的电源电压及其允许范围是多少？", None),
    ("该技术开发合同中，开发失败的风险责任甲乙双方各承担多少比例？", None),
    ("心理學包含兩個領域，其中一個是應用心理學，另一個領域是?", None),
    ("网络运营者应当留存相关的网络日志不少于多久？", None),
    ("什么是静电感应？", None),
    ("繼光餅是誰發明的？", None),
    ("贵族等级是什么？", None),
    # follow-ups, by the cue found
    ("And its price?", "lead"),
    ("What about 2019?", "lead"),
    ("那要几天？", "lead"),
    ("For the next item, are family plans covered?", "ordinal"),
    ("What is the next step?", "ordinal"),
    ("And the last?", "lead"),
    ("下一个是什么？", "ordinal"),
    ("Who approves its changes?", "pronoun"),
    ("When is it archived?", "pronoun"),
    ("How much does it cost?", "pronoun"),
    ("When must team members submit it?", "pronoun"),
    ("What is the difference between them?", "pronoun"),
    ("Is that true?", "pronoun"),
    ("Who owns that?", "pronoun"),
    ("其注册资本是多少？", "pronoun"),
    ("该公司的注册资本是多少？", "pronoun"),
    ("它支持哪些接口？", "pronoun"),
    ("那个呢？", "pronoun"),
    ("CH583的呢？", "ellipsis"),
    ("Why?", "ellipsis"),
    ("Tell me more.", "ellipsis"),
    ("Which one is newer?", "ellipsis"),
    ("多少钱？", "ellipsis"),
    ("具体怎么操作？", "ellipsis"),
    ("需要多久？", "ellipsis"),
])
def test_followup_cue(question: str, cue: str | None) -> None:
    assert followup_reason(question) == cue
    assert is_followup(question) == (cue is not None)


def test_a_standalone_question_is_never_merged_with_the_previous_one() -> None:
    previous = "How long does standard shipping take?"
    question = "Does the warranty period start from the acceptance of its delivery?"
    rw = rewrite_rules(question, previous)
    assert rw.question == question and not rw.changed and rw.rules == ()
    history = [{"role": "user", "content": previous}, {"role": "assistant", "content": "5 days"}]
    assert retrieval_query(question, history) == question
    # a real follow-up still is rewritten / prefixed
    assert rewrite_rules("Does it cost extra?", previous).changed
    assert retrieval_query("Does it cost extra?", history).startswith(previous)
