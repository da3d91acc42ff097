"""Rule-based rewriting of follow-ups (gateway.conversation.rewrite) over the item lists of a
real parsed and chunked Markdown page."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.chunker import chunk_document
from corpus.parsers import parse_bytes
from gateway.conversation import is_followup, item_lists, resolve_dates, rewrite_rules
from tests.gateway._conversation_doc import CHAT_PAGE


@pytest.fixture(scope="module")
def lists():
    doc = parse_bytes(Path("chat.md"), CHAT_PAGE.encode())
    return item_lists(chunk_document(doc, rel_path="chat.md"))


@pytest.mark.parametrize(("previous", "question", "expected"), [
    ("What is the prefix for Group Channels in Slack?", "And for the next one?",
     "What is the prefix for Location Channels in Slack?"),
    ("What is the prefix for Group Channels in Slack?", "What about the previous category?",
     "What is the prefix for Feature Channels in Slack?"),
    ("What is the prefix for Feature Channels in Slack?", "And the last one?",
     "What is the prefix for Project Channels in Slack?"),
    ("What is the scope of impact for the Director level?", "What about the level above that?",
     "What is the scope of impact for the Executive level?"),
    ("What is the scope of impact for the Director level?", "And for the one below it?",
     "What is the scope of impact for the Manager level?"),
    ("Where do Accounts Payable inquiries go?", "And the one after that?",
     "Where do Billing Operations inquiries go?"),
    ("What is the prefix for Location Channels in Slack?",
     "For the next one, when are they archived?", "For Project Channels, when are they archived?"),
])
def test_ordinal_follow_ups_move_along_the_documents_lists(lists, previous, question, expected):
    rw = rewrite_rules(question, previous, lists)
    assert rw.question == expected
    assert rw.rules == ("ordinal",) and rw.by == "rules" and rw.changed


def test_a_step_past_the_end_is_not_invented(lists):
    rw = rewrite_rules("And the next one?", "What is the prefix for Project Channels in Slack?",
                       lists)
    assert "ordinal" not in rw.rules
    assert rw.rules == ("previous_question",)  # falls back to the previous question + follow-up
    assert rw.question.startswith("What is the prefix for Project Channels in Slack?")


def test_substitution_by_list_and_by_shape(lists):
    rw = rewrite_rules("And for the Manager?", "What is the expected behaviour of the Director?",
                       lists)
    assert rw.question == "What is the expected behaviour of the Manager?"
    assert rw.rules == ("substitute",)
    rw = rewrite_rules("What about 2019?", "What was the revenue of Acme in 2021?")
    assert rw.question == "What was the revenue of Acme in 2019?"
    rw = rewrite_rules("And for the CFO?", "What is the Slack channel for the CEO?")
    assert rw.question == "What is the Slack channel for the CFO?"
    rw = rewrite_rules("那2019年呢？", "2021年的营业收入是多少？")
    assert rw.question == "2019年的营业收入是多少？"


def test_pronoun_takes_the_previous_topic(lists):
    rw = rewrite_rules("When is it archived?", "What is the prefix for Feature Channels?", lists)
    assert rw.question == "When is Feature Channels archived?"
    assert rw.rules == ("pronoun",)
    rw = rewrite_rules("Who approves its changes?", "What is the purpose of the travel policy?")
    assert rw.question == "Who approves the travel policy's changes?"


def test_a_follow_ups_topic_is_its_subject_not_the_whole_question():
    # new-user trial: the third turn was read "How often should I descale And what does the
    # K-200 not cover?" and answered not found
    second = rewrite_rules("And what does it not cover?", "What is the warranty period of the K-200?")
    assert second.question == "And what does the K-200 not cover?"
    third = rewrite_rules("How often should I descale it?", second.question)
    assert third.question == "How often should I descale the K-200?"
    assert third.rules == ("pronoun",)
    # a short rest is the topic; a long one without one code is none: rule 7 puts the
    # previous question before the follow-up instead of pasting it into it
    assert rewrite_rules("How long is it?", "What is the warranty period?").question == (
        "How long is the warranty period?")
    rw = rewrite_rules("Who signed it?", "When was the contract between Acme and Beta signed?")
    assert rw.rules == ("previous_question",)


def test_a_period_is_no_topic_and_one_name_is():
    # new-user trial: "And what were its total net sales that year?" after "How many employees
    # did Amazon have at the end of 2019?" was read "… were 2019's total net sales …"
    rw = rewrite_rules("And what were its total net sales that year?",
                       "How many employees did Amazon have at the end of 2019?")
    assert rw.question.startswith("And what were Amazon's total net sales"), rw.question
    assert rw.rules[0] == "pronoun"
    # a topic phrase loses its period, keeps the rest; a period inside a name stays
    assert rewrite_rules("Who audits it?", "What was the revenue of Acme in 2019?").question == (
        "Who audits Acme?")
    assert rewrite_rules("How many votes were cast for it?",
                         "What did PepsiCo shareholders vote on at the 2023 annual meeting?"
                         ).question == "How many votes were cast for the 2023 annual meeting?"
    # two names: neither is the topic (the previous question is put before instead)
    rw = rewrite_rules("Who signed it?", "When was the contract between Acme and Beta signed?")
    assert rw.rules == ("previous_question",)


def test_relative_dates_need_current_date():
    assert resolve_dates("What changed last year?", None) == ("What changed last year?", False)
    assert resolve_dates("What changed last year?", "2025-11-11")[0] == "What changed 2024?"
    assert resolve_dates("去年的利润是多少？", "2025-01-05")[0] == "2024年的利润是多少？"
    assert resolve_dates("上个月有几天假？", "2025-01-05")[0] == "2024年12月有几天假？"
    rw = rewrite_rules("What happened this month?", None, current_date="2025-11-11")
    assert rw.question == "What happened November 2025?" and rw.rules == ("relative_date",)
    with pytest.raises(ValueError):
        resolve_dates("last year", "2025-13-01")


def test_standalone_questions_are_left_alone(lists):
    q = "What is the prefix for Location Channels in Slack?"
    assert not is_followup(q)
    rw = rewrite_rules(q, "What is the prefix for Group Channels in Slack?", lists)
    assert rw.question == q and not rw.changed and rw.by == "none"
    assert is_followup("And for the next one?") and is_followup("它的保修期呢？")


@pytest.mark.parametrize(("previous", "question", "expected", "rule"), [
    # a follow-up asking its own question keeps the subject, not the previous ask (new-user
    # trial: glued to '…不少于多久？' it was answered with the log-retention clause again)
    ("网络运营者应当留存相关的网络日志不少于多久？", "违反的话怎么处罚？",
     "网络运营者违反的话怎么处罚？", "own_question"),
    ("劳动合同法规定的试用期最长是多久？", "那么违反规定的试用期怎么赔偿？",
     "劳动合同法规定违反规定的试用期怎么赔偿？", "own_question"),
    # 它 is the previous question's subject, not the whole previous question
    ("TH2817B 的基本准确度是多少？", "它的测试信号电平呢？", "TH2817B的测试信号电平呢？",
     "pronoun"),
    # "vote on at the meeting": the topic is the noun phrase, not "at the …"
    ("What did PepsiCo shareholders vote on at the 2023 annual meeting?",
     "How many votes were cast for it?",
     "How many votes were cast for the 2023 annual meeting?", "pronoun"),
])
def test_follow_ups_are_read_with_the_previous_subject(previous, question, expected, rule):
    rw = rewrite_rules(question, previous)
    assert (rw.question, rw.rules) == (expected, (rule,))


def test_a_follow_up_without_its_own_ask_is_still_read_with_the_previous_question():
    previous = "射阳大米特级碎米总量不超过多少？"
    for follow_up in ("那碎米率呢？", "为什么呢？"):
        rw = rewrite_rules(follow_up, previous)
        assert rw.rules == ("previous_question",) and rw.question.startswith(previous)


def test_a_year_step_moves_the_previous_question_s_one_year() -> None:
    """A new-user trial asked "what was nike's net income in fy2019", then "and the year
    before?", and got the FY2019 figure again (the follow-up was appended to the previous
    question, which still named FY2019)."""
    r = rewrite_rules("and the year before?", "what was nike's net income in fy2019")
    assert (r.question, r.rules) == ("What was nike's net income in fy2018", ("year_step",))
    r = rewrite_rules("What about the following year?", "What was Costco's revenue in FY 2020?")
    assert r.question == "What was Costco's revenue in FY 2021?"
    assert rewrite_rules("那上一年呢？", "2019年营业收入是多少？").question == "2018年营业收入是多少？"
    # no year, or two: nothing to step from
    for previous in ("What is GitLab's mission?", "Compare revenue in 2018 and 2019"):
        assert rewrite_rules("and the year before?", previous).rules == ("previous_question",)


def test_a_clause_with_its_own_subject_is_no_topic():
    # new-user trial: "How fast are they answered?" after "How do I make a claim?" was read
    # "How fast are I make a claim answered?"
    rw = rewrite_rules("How fast are they answered?", "How do I make a claim?")
    assert rw.question == "How do I make a claim? How fast are they answered?"
    assert rw.rules == ("previous_question",)
    # a short noun phrase still is one
    assert rewrite_rules("How much is it?", "What is the warranty period?").question == (
        "How much is the warranty period?")


def test_a_word_holding_qi_is_no_pronoun():
    # a trial: "那其他城市呢？" was read "那城市住宿费他城市呢？" (其 of 其他 taken for "its")
    rw = rewrite_rules("那其他城市呢？", "一线城市住宿费上限是多少？")
    assert "他城市呢" not in rw.question.replace("其他城市", ""), rw.question
    assert rw.rules != ("pronoun",)
    # 其 alone still is one
    assert rewrite_rules("其价格是多少？", "K-200 水壶的保修期是多久？").rules == ("pronoun",)


@pytest.mark.parametrize(("previous", "question", "expected"), [
    # a trial: "And Lisbon?" was glued to the Berlin question and answered Berlin's 42 again
    ("How many employees does the Berlin office have?", "And Lisbon?",
     "How many employees does the Lisbon office have?"),
    ("What is the hotel limit in Paris?", "And New York?", "What is the hotel limit in New York?"),
    # a code or a period is no name: Nike is the one name of the question
    ("What was Nike revenue in FY2019?", "And for Amazon?", "What was Amazon revenue in FY2019?"),
])
def test_a_name_replaces_the_one_name_of_the_previous_question(previous, question, expected):
    rw = rewrite_rules(question, previous)
    assert rw.question == expected and rw.rules == ("substitute",), rw


def test_a_name_is_not_put_in_place_of_one_of_two():
    rw = rewrite_rules("And Beta?", "When was the contract between Acme and Beta signed?")
    assert rw.rules == ("previous_question",)
