"""A question with no key terms of its own (an elliptic follow-up) takes them from itself and
the latest user turn of its history — not from the last two user turns, which dropped the
question once the conversation had two earlier turns (``loop.agent.terms_source``)."""

from __future__ import annotations

import asyncio
from typing import Any

from corpus.tokenizer import Tokenizer
from loop import LoopAgent
from loop.agent import terms_source
from tests.loop.conftest import KB, text_kb_fixture

HISTORY = [
    {"role": "user", "content": "What is the warranty period of the FW-301 charger?"},
    {"role": "assistant", "content": "Two years."},
    {"role": "user", "content": "How do I return the FW-302 battery?"},
    {"role": "assistant", "content": "Within 30 days."},
]


def test_the_terms_source_is_the_question_and_the_latest_user_turn() -> None:
    assert terms_source("Why?", HISTORY) == "Why? How do I return the FW-302 battery?"
    assert terms_source("Why?", HISTORY[:2]) == (
        "Why? What is the warranty period of the FW-301 charger?")
    assert terms_source("Why?", []) == "Why?"


class _Recording:
    """The tokenizer, recording every text it is asked for key terms."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok, self.asked = tok, []  # type: tuple[Tokenizer, list[str]]

    def key_terms(self, text: str) -> list[str]:
        self.asked.append(text)
        return list(self.tok.key_terms(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tok, name)


returns_kb = text_kb_fixture("returns", {
    "returns.md": "# Returns\n\n## FW-302 battery\n\nThe FW-302 battery is returned within "
                  "30 days in its original box.\n\n## FW-301 charger\n\nThe FW-301 charger "
                  "has a warranty period of two years.\n",
})


def test_an_elliptic_follow_up_takes_its_terms_from_the_latest_turn(
        returns_kb: KB, tokenizer: Tokenizer) -> None:
    rec = _Recording(tokenizer)
    agent = LoopAgent(returns_kb.store, returns_kb.search, key_terms=rec)
    assert tokenizer.key_terms("Why?") == []  # the question has no key terms of its own
    asyncio.run(agent.run_async("Why?", returns_kb.collection, history=HISTORY, offline=True))
    assert rec.asked[:2] == ["Why?", "Why? How do I return the FW-302 battery?"], rec.asked[:3]
