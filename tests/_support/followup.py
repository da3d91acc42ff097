"""The Slack follow-up the conversation tests ask: two pages (the chat handbook page, and an
onboarding page whose words match the raw follow-up "And for the next one?" and not the
channel it asks about), the question, the follow-up and the standalone question it reads as."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests._support.files import write_texts
from tests._support.ingest import ingest_keyword_only
from tests.gateway._conversation_doc import CHAT_PAGE

ONBOARDING = """# Onboarding

## Your first weeks

Finish one onboarding task before you start the next one. The next one is shown in your
onboarding issue; for the next one after that, ask your onboarding buddy which one comes next.
"""
#: the two pages by file name
DOCS = {"chat.md": CHAT_PAGE, "onboarding.md": ONBOARDING}
FIRST = "What is the prefix for Group Channels in Slack?"
FOLLOW_UP = "And for the next one?"
STANDALONE = "What is the prefix for Location Channels in Slack?"
#: the question read without its exclusion clause is STANDALONE
EXCLUDING = (
    "Excluding Group Channels and Feature Channels, what is the prefix for Location "
    "Channels in Slack?"
)


def followup_collection(root: Path, collection: str) -> Path:
    """:data:`DOCS` written under ``root / "docs"`` and ingested keyword-only into
    ``collection`` of the data dir ``root / "data"``, which is returned."""
    docs = write_texts(root / "docs", DOCS)
    ingest_keyword_only(root / "data", docs, collection)
    return root / "data"


def ask_eval(data: Path, mode: str, question: Any, context_mode: str, *,
             offline: bool = False) -> Any:
    """One ``evals.questions.Question`` asked of collection ``t`` by the eval answerer of
    ``mode`` built on the data dir ``data`` (no embedding model); the answer record."""
    import asyncio

    from evals.components import build_answerer
    from evals.harness import ask_one
    from gateway.settings import Settings

    built = build_answerer(mode, Settings(data_dir=data, embed_model_path=None), offline=offline)

    async def go() -> Any:
        try:
            return await ask_one(built.answerer, question, "t", context_mode)
        finally:
            await built.aclose()

    return asyncio.run(go())
