"""The offline LoopAgent does not end with weaker evidence than the RAG candidates it started
from (issue 14). On the whole corpus, 12 of the 29 FinanceBench + GitLab questions RAG hit and
the offline loop missed were "not found" with RAG's gold candidate read and ranked first: a long
question's dozen key terms, many of them words of the request itself ("use", "metric",
"company", "explain"), left the unit under the coverage floor. When the loop's own ranking puts
a unit of a RAG candidate first, it is kept at the floor lowered by ``strong_margin``
(:func:`loop.policies.offline_rank.seed_evidence`); a unit the RAG path did not pick still
needs the floor."""

from __future__ import annotations

import pytest
from conftest import KB, run_agent, text_kb_fixture

from corpus.tuning import TUNING
from corpus.types import Chunk, SearchHit
from loop.evidence import Evidence
from loop.policies.offline_rank import answer_call, seed_evidence

# the real lines of the GitLab handbook (expenses.md, "VPN Subscription"; the travel page's
# Wi-Fi advice), and a page that shares the question's request words but not its subject
_EXPENSES = """# Expenses

## Approved Office Supplies List

### VPN Subscription

- Please read Why We Don't Have A Corporate VPN, and check out our Personal VPN page
  regarding usage at GitLab.
- Policy is set at $150 per year.
- Yearly subscription can be submitted in one claim.
- Monthly subscriptions to be submitted monthly.
"""
_TRAVEL = """# Travel

## Wi-fi usage

When using unsecured Wi-Fi, consider a personal VPN. We don't have a corporate VPN, so you
are responsible for protecting your traffic on hotel and airport networks.
"""
_QUERY = """# Query language

## Joins

A query can use one tool at a time; joins are written in the query itself.
"""
_QUESTION = ("What is the maximum yearly reimbursement, in USD, for a personal subscription "
             "to a tool recommended for use on unsecured Wi-Fi in a multi-hop reasoning query?")


handbook = text_kb_fixture(
    "hb", {"expenses.md": _EXPENSES, "travel.md": _TRAVEL, "query.md": _QUERY})


def _vpn(kb: KB) -> Chunk:
    return next(c for c in kb.chunks if "$150 per year" in c.text)


def test_the_rag_candidate_the_ranking_puts_first_answers(handbook: KB):
    res = run_agent(handbook, None, _QUESTION,
                    candidates=[SearchHit(_vpn(handbook), 0.9)])
    assert res.found, res.answer
    assert res.citations[0].chunk_id == _vpn(handbook).chunk_id
    assert "$150 per year" in res.citations[0].quote


def test_without_the_candidate_the_same_reading_says_not_found(handbook: KB):
    res = run_agent(handbook, None, _QUESTION)
    assert not res.found


def _ev(chunk_id: str, coverage: float, score: float) -> Evidence:
    c = Chunk(chunk_id=chunk_id, doc_id="d", path="a.md", title="", section_path=(),
              page_start=1, page_end=1, line_start=1, line_end=1, char_start=0, char_end=4,
              text="unit", ordinal=0)
    return Evidence(c, f"unit of {chunk_id}", coverage, (), 0, score)


def test_seed_evidence_needs_the_first_unit_in_a_candidate_and_the_lowered_floor():
    t = TUNING.offline
    seed, other = _ev("seed", 0.3, 0.6), _ev("other", 0.35, 0.5)
    units, floor = seed_evidence(t, 0.4, [seed, other], {"seed"})
    assert units == [seed] and floor == pytest.approx(0.4 - t.strong_margin)
    call = answer_call(units, t, floor).arguments
    assert call["found"] and call["citations"] == [{"chunk_id": "seed", "quote": seed.text}]
    # the loop ranks a unit RAG did not pick first: not found stands
    assert seed_evidence(t, 0.4, [other, seed], {"seed"}) == ([], 0.4)
    # under the lowered floor: not found stands
    weak = _ev("seed", 0.4 - t.strong_margin - 0.01, 0.9)
    assert seed_evidence(t, 0.4, [weak], {"seed"}) == ([], 0.4)
    assert seed_evidence(t, 0.4, [], {"seed"}) == ([], 0.4)
