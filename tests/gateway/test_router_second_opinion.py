"""The router gives the LoopAgent the RAG path's verdict as its second opinion
(``loop.second_opinion``): a weakly supported loop answer to a question RAG refuses is "not
found" (flag ``fast_path_refused``), in ``loop`` mode over HTTP. Real components: a generated
note ingested keyword-only into an embedded Qdrant, real Redis. RAG is made to refuse with its
answer floor at 1.0 (no extractive answer is that confident) and the loop's answer is made to
count as weak with the doubt bound above any probability."""

from __future__ import annotations

from pathlib import Path

import pytest
from _apphelp import ask, make_settings, running, unique_prefix, upload

import loop.second_opinion as second_opinion

NOTE = ("# Berlin office\n\nOur Berlin office has 40 employees and opened in 2019.\n\n"
        "# Lisbon office\n\nThe Lisbon office opened in 2021 with 12 employees.\n")
QUESTION = "How many employees does the Berlin office have?"


async def _ask(tmp_path: Path, floor: float) -> dict[str, object]:
    settings = make_settings(tmp_path, redis_key_prefix=unique_prefix(), rag_answer_floor=floor)
    async with running(settings) as (app, client):
        await upload(app, client, [("offices.md", NOTE.encode())])
        return await ask(client, QUESTION, mode="loop", use_cache=False)


async def test_a_weak_loop_answer_rag_refuses_is_not_found(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    got = await _ask(tmp_path / "answers", 0.2)
    assert got["found"] and "40 employees" in str(got["answer"])  # as shipped: answered
    monkeypatch.setitem(second_opinion.DOUBT_BELOW, "en", 1.01)  # every answer counts as weak
    got = await _ask(tmp_path / "kept", 0.0)  # RAG answers: the loop's answer stands
    assert got["found"] and "fast_path_refused" not in got["route"]["flags"]  # type: ignore[index]
    got = await _ask(tmp_path / "refused", 1.0)  # RAG refuses too: "not found"
    assert not got["found"] and got["citations"] == []
    assert "fast_path_refused" in got["route"]["flags"]  # type: ignore[index]
