"""A question that names nothing to look for — "x", "1", "a" — is "not found" (flag
``no_key_terms``) on the RAG path, not the dense neighbour's first sentence as "found" (a
break-it trial: "1" came back found at confidence 0.74 with a random hiring sentence)."""

from __future__ import annotations

import pytest
from _apphelp import ask, make_settings, running, upload

pytestmark = pytest.mark.integration

HIRING = ("hiring.md", b"# Hiring\n\nEvery hiring manager completes the interview training.\n"
                       b"Offers are approved by the department head.\n")


async def test_nothing_to_look_for_is_not_found(tmp_path, embed_model_path) -> None:
    async with running(make_settings(tmp_path, embed_model_path)) as (app, client):
        await upload(app, client, [HIRING])
        for question in ("x", "1", "a"):
            body = await ask(client, question, mode="rag", use_cache=False)
            assert not body["found"] and "no_key_terms" in body["route"]["flags"], (
                question, body["answer"], body["route"]["flags"])
        body = await ask(client, "Who approves offers?", mode="rag", use_cache=False)
        assert body["found"] and "department head" in body["answer"], body["answer"]
