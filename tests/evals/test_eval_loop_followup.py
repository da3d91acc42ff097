"""``loopgate eval -m loop`` reads a follow-up as the gateway does: its earlier turn asked first
in one session, then the follow-up rewritten from the session memory, and the LoopAgent searches
and reads the rewritten question, not the raw follow-up ("And for the next one?" names no
subject). Real components: two Markdown pages ingested into a real embedded Qdrant in a tmp dir
(keyword-only), the gateway's own router, conversation service and LoopAgent (offline policy)."""

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
from tests.gateway._conversation_doc import CHAT_PAGE

pytestmark = [pytest.mark.integration, pytest.mark.eval]

#: a page whose words match the raw follow-up ("next", "one") and not the channel it asks about
ONBOARDING = """# Onboarding

## Your first weeks

Finish one onboarding task before you start the next one. The next one is shown in your
onboarding issue; for the next one after that, ask your onboarding buddy which one comes next.
"""


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh data dir holding collection ``t`` (chat.md, onboarding.md; keyword-only)."""
    root = tmp_path_factory.mktemp("loop-followup")
    docs = write_texts(root / "docs", {"chat.md": CHAT_PAGE, "onboarding.md": ONBOARDING})
    ingest_keyword_only(root / "data", docs, "t")
    return root / "data"


def _ask(data: Path, question: Question, context_mode: str) -> Any:
    built = build_answerer("loop", Settings(data_dir=data, embed_model_path=None), offline=True)

    async def go() -> Any:
        try:
            return await ask_one(built.answerer, question, "t", context_mode)  # type: ignore[arg-type]
        finally:
            await built.aclose()

    return asyncio.run(go())


def _searches(record: Any) -> list[str]:
    return [
        str(s["arguments"]["query"])
        for s in record.route_record.get("steps") or ()
        if s.get("tool") == "search"
    ]


def test_the_loop_searches_the_rewritten_follow_up(data: Path) -> None:
    q = Question(
        id="t:1",
        question="And for the next one?",
        answer="loc_",
        source_dataset="t",
        lang="en",
        context="What is the prefix for Group Channels in Slack?",
    )
    rec = _ask(data, q, "conversation")
    assert rec.error is None, rec.error
    assert rec.route == "loop"
    route = rec.route_record
    assert route["rewritten_question"] == "What is the prefix for Location Channels in Slack?"
    searches = _searches(rec)
    # the first search is the standalone question, the key-term search names the channel
    assert searches[0] == "What is the prefix for Location Channels in Slack?", searches
    assert any("locat" in s.lower() and "channel" in s.lower() for s in searches[1:]), searches
    assert not any("next one" in s.lower() for s in searches), searches
    assert rec.found and rec.citations
    assert rec.citations[0].path == "chat.md" and "loc_" in (rec.citations[0].quote or "")
    # the answer record keeps the question as asked; the rewrite is shown beside it
    assert route["rewrite"]["rules"] == ["ordinal"]


def test_a_question_that_names_its_subject_is_read_as_asked(data: Path) -> None:
    q = Question(
        id="t:2",
        question="What is the prefix for Project Channels in Slack?",
        answer="proj_",
        source_dataset="t",
        lang="en",
    )
    rec = _ask(data, q, "conversation")
    assert "rewritten_question" not in rec.route_record
    assert _searches(rec)[0] == q.question
    assert rec.found and "proj_" in (rec.citations[0].quote or "")
