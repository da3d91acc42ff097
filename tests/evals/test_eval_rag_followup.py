"""``loopgate eval -m rag`` reads a question as the gateway's rag mode does (``/v1/query`` with
mode ``rag`` goes through ``Router.ask``): a follow-up's earlier turn asked first in one session
(mode ``rag``), then the follow-up rewritten from the session memory, retrieved and answered
as rewritten; every question without its exclusion clauses. Before, the eval sent the earlier
turn as history and retrieved '<earlier turn> And for the next one?'. Real components: two
Markdown pages ingested into a real embedded Qdrant in a tmp dir (keyword-only), the gateway's
own router, conversation service and RAG pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals.questions import Question
from tests._support.followup import EXCLUDING, FIRST, STANDALONE, ask_eval, followup_collection
from tests._support.followup import FOLLOW_UP as FOLLOW_UP_TEXT

pytestmark = [pytest.mark.integration, pytest.mark.eval]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh data dir holding collection ``t`` (chat.md, onboarding.md; keyword-only)."""
    return followup_collection(tmp_path_factory.mktemp("rag-followup"), "t")


def _ask(data: Path, question: Question, context_mode: str) -> Any:
    return ask_eval(data, "rag", question, context_mode)


FOLLOW_UP = Question(id="t:1", question=FOLLOW_UP_TEXT, answer="loc_", source_dataset="t",
                     lang="en", context=FIRST)


def test_rag_retrieves_the_follow_up_rewritten_from_the_session(data: Path) -> None:
    rec = _ask(data, FOLLOW_UP, "conversation")
    assert rec.error is None, rec.error
    assert rec.route == "rag"
    route = rec.route_record
    assert route["rewritten_question"] == STANDALONE
    assert route["rewrite"]["rules"] == ["ordinal"]
    assert route["session"]["turn"] == 2  # the earlier turn went through the session first
    # retrieved and answered as rewritten, not '<earlier turn> And for the next one?'
    assert route["retrieval_query"] == STANDALONE
    assert rec.found and rec.citations
    assert rec.citations[0].path == "chat.md" and "loc_" in (rec.citations[0].quote or "")


def test_rag_with_history_reads_the_follow_up_as_the_router_does(data: Path) -> None:
    """``--context history``: the earlier turn as history, rewritten by the router's rules
    (no session memory, so no list to step along: the previous question goes before it)."""
    rec = _ask(data, FOLLOW_UP, "history")
    assert rec.error is None, rec.error
    route = rec.route_record
    assert route["rewrite"]["rules"] == ["previous_question"]
    assert route["rewritten_question"] == f"{FOLLOW_UP.context} {FOLLOW_UP.question}"
    assert route["retrieval_query"] == route["rewritten_question"]


def test_rag_alone_reads_the_follow_up_as_asked(data: Path) -> None:
    rec = _ask(data, FOLLOW_UP, "none")
    assert rec.error is None, rec.error
    assert rec.route_record["retrieval_query"] == FOLLOW_UP.question
    assert "rewritten_question" not in rec.route_record


def test_rag_reads_a_question_without_its_exclusion_clause(data: Path) -> None:
    q = Question(id="t:2", question=EXCLUDING, answer="loc_", source_dataset="t", lang="en")
    rec = _ask(data, q, "conversation")
    assert rec.error is None, rec.error
    route = rec.route_record
    assert route["rewritten_question"] == STANDALONE
    assert route["rewrite"]["rules"] == ["focus:lead_clause"]
    assert route["retrieval_query"] == STANDALONE
    assert rec.found and "loc_" in (rec.citations[0].quote or "")


def test_rag_records_the_retrieval_confidence_the_router_reads(data: Path) -> None:
    """``loopgate calibrate --router`` fits the escalation rule on a rag run's records; its
    ``confidence`` feature must be what the router scores at run time (the retrieval's
    calibrated confidence, ``RagResult.confidence``), not the answer's support probability
    the record's ``confidence`` holds. Same question, eval rag record vs the router's own
    route record."""
    q = Question(id="t:c", question=STANDALONE, answer="loc_", source_dataset="t", lang="en")
    rec = _ask(data, q, "none")
    assert rec.error is None, rec.error
    seen = rec.route_record["retrieval_confidence"]
    routed = ask_eval(data, "auto", q, "none")
    assert routed.error is None, routed.error
    assert seen == pytest.approx(routed.confidence)
