"""The LoopAgent reads inside the documents the RAG retrieval resolved the question to
(issue 15 item 1): a question naming a filer and a period is answered from that filer's filings
only, on every search of the loop — real 8-K PDFs (../shared/eval), the real app and store."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from _apphelp import ask, make_settings, running, unique_prefix, upload

pytestmark = [pytest.mark.eval]

FILINGS = ("PEPSICO_2023_8K_dated-2023-05-05.pdf", "PEPSICO_2023_8K_dated-2023-05-30.pdf",
           "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf", "FOOTLOCKER_2022_8K_dated_2022-08-19.pdf")


async def test_the_loop_reads_only_the_resolved_filings(eval_dir: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in FILINGS:
        shutil.copy(eval_dir / "en" / "docs" / "financebench" / name, docs / name)
    settings = make_settings(tmp_path, redis_key_prefix=unique_prefix())
    async with running(settings) as (app, client):
        await upload(app, client, sorted(docs.iterdir()))
        got = await ask(client, "What did PepsiCo shareholders vote on at the 2023 annual "
                                "meeting?", mode="loop")
        route = got["route"]
        assert route["final_path"] == "loop" and got["found"]
        assert route["resolution"]["documents"] == list(FILINGS[:2])
        read = [s["arguments"]["chunk_id"] for s in route["steps"] if s.get("tool") == "read"]
        store = app.state.components.store
        paths = {c.path for c in store.get_chunks("docs", read)}
        assert read and paths <= set(FILINGS[:2]), paths  # never a Foot Locker filing
        assert {c["path"] for c in got["citations"] + got["related"]} <= set(FILINGS[:2])
