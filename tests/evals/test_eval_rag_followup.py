"""``loopgate eval -m rag`` reads a question as the gateway's rag mode does (``/v1/query`` with
mode ``rag`` goes through ``Router.ask``): a follow-up's earlier turn asked first in one session
(mode ``rag``), then the follow-up rewritten from the session memory, retrieved and answered
as rewritten; every question without its exclusion clauses. Before, the eval sent the earlier
turn as history and retrieved '<earlier turn> And for the next one?'. Real components: two
Markdown pages ingested into a real embedded Qdrant in a tmp dir (keyword-only), the gateway's
own router, conversation service and RAG pipeline."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from evals.components import build_answerer
from evals.harness import ask_one
from evals.questions import Question
from gateway.settings import Settings
from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only
from tests.evals.test_eval_loop_followup import ONBOARDING
from tests.gateway._conversation_doc import CHAT_PAGE

pytestmark = [pytest.mark.integration, pytest.mark.eval]

STANDALONE = "What is the prefix for Location Channels in Slack?"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh data dir holding collection ``t`` (chat.md, onboarding.md; keyword-only)."""
    root = tmp_path_factory.mktemp("rag-followup")
    docs = write_texts(root / "docs", {"chat.md": CHAT_PAGE, "onboarding.md": ONBOARDING})
    ingest_keyword_only(root / "data", docs, "t")
    return root / "data"


def _ask(data: Path, question: Question, context_mode: str) -> Any:
    built = build_answerer("rag", Settings(data_dir=data, embed_model_path=None))

    async def go() -> Any:
        try:
            return await ask_one(built.answerer, question, "t", context_mode)  # type: ignore[arg-type]
        finally:
            await built.aclose()

    return asyncio.run(go())


FOLLOW_UP = Question(
    id="t:1",
    question="And for the next one?",
    answer="loc_",
    source_dataset="t",
    lang="en",
    context="What is the prefix for Group Channels in Slack?",
)


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
    q = Question(
        id="t:2",
        question="Excluding Group Channels and Feature Channels, what is the prefix for "
                 "Location Channels in Slack?",
        answer="loc_",
        source_dataset="t",
        lang="en",
    )
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
    built = build_answerer("auto", Settings(data_dir=data, embed_model_path=None))

    async def go() -> Any:
        try:
            return await ask_one(built.answerer, q, "t", "none")  # type: ignore[arg-type]
        finally:
            await built.aclose()

    routed = asyncio.run(go())
    assert routed.error is None, routed.error
    assert seen == pytest.approx(routed.confidence)
