"""Exclusion and contrast clauses are taken out of the question retrieval reads
(gateway.routing.focus); questions without them are left alone."""

from __future__ import annotations

import pytest

from gateway.routing import QueryInput, RouteTrace
from gateway.routing.focus import apply_focus, focus_question


@pytest.mark.parametrize(("question", "focused", "rules"), [
    ("Excluding the Sales and Support teams, what is the name of the team that owns the "
     "handbook?", "What is the name of the team that owns the handbook?", ("lead_clause",)),
    ("Which department, not part of the Finance team, signs vendor contracts?",
     "Which department signs vendor contracts?", ("not_clause",)),
    ("The travel policy covers hotels and meals. What is the different term the security "
     "page uses for a laptop that is not company owned?",
     "What is the different term the security page uses for a laptop?",
     ("contrast_context", "not_clause")),
    ("What is the review that is not run by the manager but is done by peers every quarter?",
     "What is the review that is done by peers every quarter?", ("not_clause",)),
    ("除了年假以外，员工还可以申请哪些带薪假期？", "员工还可以申请哪些带薪假期？",
     ("lead_clause",)),
    ("虽然合同约定了违约金，但是不属于违约金的损失怎么赔偿？", "不属于违约金的损失怎么赔偿？",
     ("lead_clause",)),
    ("While the Finance team owns invoices, which other team signs vendor contracts?",
     "Which other team signs vendor contracts?", ("lead_clause",)),
])
def test_exclusion_clauses_are_removed(question: str, focused: str, rules: tuple[str, ...]) -> None:
    f = focus_question(question)
    assert (f.focused, f.rules) == (focused, rules)
    assert f.changed


@pytest.mark.parametrize("question", [
    "What happens to vacation days that are not used by the end of the year?",
    "Using the cash flow statement, what was the capital expenditure in FY2018?",
    "We need a financial metric from the balance sheet. What is the working capital ratio?",
    "While travelling?",  # nothing would be left
    "网络运营者应当留存相关的网络日志不少于多久？",
    "Is the warranty not void after a repair?",
    "While on parental leave, can I still receive a bonus?",  # a condition, not an exclusion
    "Although I am a contractor, can I expense a laptop?",
    "虽然合同约定了违约金，但是逾期交付的损失怎么赔偿？",
])
def test_other_questions_are_left_alone(question: str) -> None:
    f = focus_question(question)
    assert f.focused == question and f.rules == () and not f.changed


def test_the_route_record_shows_the_focused_question() -> None:
    q = QueryInput("Excluding the Sales and Support teams, what is the name of the team that "
                   "owns the handbook?", "c")
    record = RouteTrace.start(q.question, q.collection, q.mode)
    record.rewrote(None, "none", ())
    out = apply_focus(q, record)
    assert out.question == "What is the name of the team that owns the handbook?"
    assert record.rewritten_question == out.question
    assert record.rewrite == {"by": "rules", "rules": ["focus:lead_clause"]}
    plain = QueryInput("Which team owns the handbook?", "c")
    assert apply_focus(plain, record) is plain
