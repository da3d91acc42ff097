"""``loopgate eval -m loop`` reads a follow-up as the gateway does: its earlier turn asked first
in one session, then the follow-up rewritten from the session memory, and the LoopAgent searches
and reads the rewritten question, not the raw follow-up ("And for the next one?" names no
subject). Real components: two Markdown pages ingested into a real embedded Qdrant in a tmp dir
(keyword-only), the gateway's own router, conversation service and LoopAgent (offline policy)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evals.questions import Question
from tests._support.followup import (
    FIRST,
    FOLLOW_UP,
    STANDALONE,
    ask_eval,
    followup_collection,
)

pytestmark = [pytest.mark.integration, pytest.mark.eval]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh data dir holding collection ``t`` (chat.md, onboarding.md; keyword-only)."""
    return followup_collection(tmp_path_factory.mktemp("loop-followup"), "t")


def _ask(data: Path, question: Question, context_mode: str) -> Any:
    return ask_eval(data, "loop", question, context_mode, offline=True)


def _searches(record: Any) -> list[str]:
    return [
        str(s["arguments"]["query"])
        for s in record.route_record.get("steps") or ()
        if s.get("tool") == "search"
    ]


def test_the_loop_searches_the_rewritten_follow_up(data: Path) -> None:
    q = Question(id="t:1", question=FOLLOW_UP, answer="loc_", source_dataset="t", lang="en",
                 context=FIRST)
    rec = _ask(data, q, "conversation")
    assert rec.error is None, rec.error
    assert rec.route == "loop"
    route = rec.route_record
    assert route["rewritten_question"] == STANDALONE
    searches = _searches(rec)
    # the first search is the standalone question, the key-term search names the channel
    assert searches[0] == STANDALONE, searches
    assert any("locat" in s.lower() and "channel" in s.lower() for s in searches[1:]), searches
    assert not any("next one" in s.lower() for s in searches), searches
    assert rec.found and rec.citations
    assert rec.citations[0].path == "chat.md" and "loc_" in (rec.citations[0].quote or "")
    # the answer record keeps the question as asked; the rewrite is shown beside it
    assert route["rewrite"]["rules"] == ["ordinal"]


def test_a_question_that_names_its_subject_is_read_as_asked(data: Path) -> None:
    q = Question(id="t:2", question="What is the prefix for Project Channels in Slack?",
                 answer="proj_", source_dataset="t", lang="en")
    rec = _ask(data, q, "conversation")
    assert "rewritten_question" not in rec.route_record
    assert _searches(rec)[0] == q.question
    assert rec.found and "proj_" in (rec.citations[0].quote or "")
