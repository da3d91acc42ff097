"""The LoopAgent's presence check asks the answer's document for the names the question asks
about that no chunk of the collection matches (``corpus.asked_names``): a trial's "How many
employees does the Paris office have?" was answered from the Berlin line."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

offices = text_kb_fixture("offices", {
    "offices.md": "# Offices\n\nThe Tokyo office has 40 employees and opens at 9:00.\n"
                  "The Berlin office has 25 employees.\n",
    "rewards.md": "# Acme Rewards\n\nMembers earn 10 loyalty points for every euro spent.\n",
})


def test_a_name_no_document_writes_is_not_found(offices: KB) -> None:
    res = run_agent(offices, None, "How many employees does the Paris office have?")
    assert not res.found, res.answer
    assert res.absent_terms == ["paris"]


def test_a_name_the_document_writes_is_answered(offices: KB) -> None:
    res = run_agent(offices, None, "How many employees does the Tokyo office have?")
    assert res.found and "40 employees" in res.answer, res.answer
