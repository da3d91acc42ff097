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
    # a demonstrative before a noun of its own is a deictic noun phrase, not a pronoun (a
    # new-user trial: "What is this product's price?" was read "What is the refund to arrive
    # product's price?")
    ("What is this product's price?", None),
    ("How much does this kettle cost?", None),
    ("Does this policy cover gift cards?", None),
    ("Is this kettle waterproof?", None),
    ("Is this product in stock?", None),
    ("And what is this product's price?", None),
    ("这个产品的价格是多少？", None),
    ("这款水壶多少钱？", None),
    ("这份合同的期限是多久？", None),
    ("那这个产品的价格是多少？", None),
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
    ("Is this waterproof?", "pronoun"),
    ("Does that include bank transfers?", "pronoun"),
    ("How does this work?", "pronoun"),
    ("And this product's price?", "lead"),
    ("那个多少钱？", "pronoun"),
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
    ("第二十二条是什么？", None),  # an article named: a question of its own (new-user trial)
    ("What is Clause 4?", None),
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


@pytest.mark.parametrize(("previous", "question"), [
    ("How long does it take for the refund to arrive?", "What is this product's price?"),
    ("How long does it take for the refund to arrive?", "How much does this kettle cost?"),
    ("How long does it take for the refund to arrive?", "And what is this product's price?"),
    ("退款多久到账？", "这个产品的价格是多少？"),
    ("退款多久到账？", "那这款水壶多少钱？"),
])
def test_a_question_with_its_own_subject_is_not_glued_to_the_previous_one(previous, question):
    rw = rewrite_rules(question, previous)
    assert rw.question == question and not rw.changed, rw
    history = [{"role": "user", "content": previous}, {"role": "assistant", "content": "5 days"}]
    assert retrieval_query(question, history) == question


@pytest.mark.parametrize(("previous", "question", "expected"), [
    # real follow-ups still are read against the previous question ...
    ("What is the warranty period of the K-200?", "And its price?", "And the K-200's price?"),
    ("K-200的价格是多少？", "它的保修期呢？", "K-200的保修期呢？"),
    ("What was the revenue of Acme in 2021?", "What about 2019?",
     "What was the revenue of Acme in 2019?"),
    # ... and "its" stands for the possessor the previous question named, not "'s" twice or
    # the heading item its noun names
    ("What is the K-200's warranty?", "And its price?", "And the K-200's price?"),
    ("What is this product's price?", "And its warranty?", "And this product's warranty?"),
])
def test_real_follow_ups_are_still_rewritten(previous, question, expected):
    assert rewrite_rules(question, previous).question == expected


@pytest.mark.integration
async def test_a_session_reads_a_new_question_as_asked(tmp_path, redis_url, prefix) -> None:
    """Over the HTTP API with a session (the new-user trial's path): the question with its own
    subject reaches retrieval as asked, no rewrite in the route record; the follow-up after it
    is still rewritten."""
    from tests.gateway._apphelp import ask, make_settings, running, upload

    doc = ("# Acme K-200 Kettle\n\n## Price\nThe K-200 costs 49 dollars.\n\n## Refund timing\n"
           "After an approved return, the refund arrives within 5 business days.\n\n"
           "## Warranty\nThe K-200 has a two-year warranty.\n")
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, [("product.md", doc.encode())])
        await ask(client, "How long does it take for the refund to arrive?", session_id="p",
                  mode="rag")
        body = await ask(client, "What is this product's price?", session_id="p", mode="rag")
        assert body["rewritten_question"] is None, body["route"]
        assert "rewrite" not in body["route"] or not body["route"]["rewrite"]["rules"]
        assert "49 dollars" in body["answer"]
        body = await ask(client, "And its warranty?", session_id="p", mode="rag")
        assert body["rewritten_question"] == "And this product's warranty?"
        assert body["route"]["rewrite"]["rules"] == ["pronoun"]
