"""The LoopAgent answers a change between two amounts asked of prose as the RAG path does
(``corpus.derived.prose_amounts`` in ``loop.prose_change``): FinanceBench dev "By how much did
Pepsico increase its unsecured five year revolving credit agreement on May 26, 2023?" (gold
"$400,000,000 increase") was answered by the offline reading with the new agreement's sentence
alone. Real ingest into an embedded store, the offline policy, no LLM."""

from __future__ import annotations

from conftest import KB, run_agent, text_kb_fixture

eight_k_kb = text_kb_fixture("eightk", {"acme_8k.md": """# ACME Corporation Form 8-K

## Item 1.02 Termination of a Material Definitive Agreement

Effective May 26, 2023, ACME terminated the $3,800,000,000 five year unsecured revolving
credit agreement, dated as of May 27, 2022, among ACME and the lenders party thereto.

## Item 1.01 Entry into a Material Definitive Agreement

On May 26, 2023, ACME entered into a new $4,200,000,000 five year unsecured revolving credit
agreement among ACME and the lenders party thereto.
"""})


def test_the_change_of_the_agreement_is_the_difference_of_its_two_amounts(
        eight_k_kb: KB) -> None:
    res = run_agent(eight_k_kb, None, "By how much did ACME increase its unsecured five year "
                                      "revolving credit agreement on May 26, 2023?")
    assert res.found and res.computed, res.answer
    assert res.answer.startswith("$400,000,000 increase: from $3,800,000,000 to $4,200,000,000"), (
        res.answer)
    assert len(res.citations) == 2


def test_a_question_asking_no_change_keeps_the_reading(eight_k_kb: KB) -> None:
    res = run_agent(eight_k_kb, None, "How much can ACME borrow under its new five year "
                                      "unsecured revolving credit agreement?")
    assert res.found and not res.computed, res.answer


dividend_kb = text_kb_fixture("dividend", {"acme_10k.md": """# ACME Corporation annual report

## Dividends

In April 2021, the Board increased our quarterly cash dividend from $0.70 to $0.79 per share.
The dividend is paid in cash.
"""})


def test_a_change_stated_from_one_amount_to_another_is_worked_out(dividend_kb: KB) -> None:
    """A helper's trial: the loop quoted "from $0.70 to $0.79" and gave no difference."""
    res = run_agent(dividend_kb, None, "By how much did ACME increase its quarterly cash dividend "
                                       "in April 2021?")
    assert res.found and res.computed, res.answer
    assert res.answer.startswith("$0.09 increase: from $0.70 to $0.79 — "), res.answer
