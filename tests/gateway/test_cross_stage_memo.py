"""The cross-language stage keeps the dictionary's answer for a question at the corpus version
known without I/O (``gateway.conversation.cross_stage``, issue 19 item 2): a question asked
again — every cache hit in a collection with documents in both languages — gets the same terms
and the same route record without the worker thread and the dictionary walk, and is asked of
the dictionary again as soon as the corpus version moves."""

from __future__ import annotations

import asyncio

import pytest
from _apphelp import ask, make_settings, running, upload

from gateway.api.query_fast import QueryFastPath
from gateway.conversation import cedict
from gateway.routing import QueryInput

pytestmark = pytest.mark.integration

ZH = (
    "policy.md",
    "# 配送\n\n标准配送需要三到五个工作日。\n\n# 退货\n\n退货期限是七天。\n".encode(),
)
EN = ("shipping.md", b"# Shipping\n\nStandard shipping takes three to five business days.\n")
EN_V2 = ("shipping.md", b"# Shipping\n\nStandard shipping takes two business days.\n")


def _counted(cross) -> list[str]:
    calls: list[str] = []
    terms_for = cross.terms_for

    def counting(question: str, collection: str):
        calls.append(question)
        return terms_for(question, collection)

    cross.terms_for = counting
    return calls


@pytest.mark.parametrize(
    ("docs", "question", "terms"),
    [
        ([ZH, EN], "标准配送要几天？", False),  # mixed collection, Chinese question: no terms
        ([ZH], "How many days does standard delivery take?", True),  # zh documents: terms
    ],
)
async def test_a_question_asked_again_reuses_its_terms_until_the_corpus_moves(
    tmp_path, docs, question, terms
) -> None:
    assert await asyncio.to_thread(cedict.wait_ready, 120)
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, docs)
        conv = app.state.components.router.conversation
        calls = _counted(conv.cross_language)
        first = await ask(client, question)  # the corpus version is read after this stage
        second = await ask(client, question)  # now known: the dictionary's answer is kept
        assert len(calls) == 2 and second["cached"]
        third = await ask(client, question)
        assert len(calls) == 2 and third["cached"]  # kept: no dictionary, no thread
        for key in ("rewritten_question", "answer", "citations"):
            assert third[key] == second[key] == first[key], key
        for key in ("cross_language", "rewritten_question", "rewrite"):
            assert third["route"].get(key) == second["route"].get(key), key
        assert bool(third["route"].get("cross_language")) == terms
        # no terms: nothing left for the stage to do; terms: replayed by the stage
        assert conv.idle_for(QueryInput(question=question, collection="docs")) == (not terms)
        # a changed document moves the corpus version: asked of the dictionary again
        await upload(app, client, [EN_V2])
        await ask(client, question)
        await ask(client, question)
        assert len(calls) == 4


async def test_a_question_with_kept_terms_takes_the_short_way(tmp_path) -> None:
    question = "How many days does standard delivery take?"
    assert await asyncio.to_thread(cedict.wait_ready, 120)
    async with running(make_settings(tmp_path)) as (app, client):
        await upload(app, client, [ZH])
        layer = app.middleware_stack
        while not isinstance(layer, QueryFastPath):
            layer = layer.app
        conv = app.state.components.router.conversation
        q = QueryInput(question=question, collection="docs")
        assert conv.known_question(q) == question  # nothing known yet: as asked
        first = await ask(client, question)
        second = await ask(client, question)
        assert layer.taken == 0 and second["cached"]  # the terms are kept from here on
        routed = second["rewritten_question"]
        assert routed and routed != question and conv.known_question(q) == routed
        third = await ask(client, question)
        assert layer.taken == 1 and third["cached"]
        assert third["route"]["decision"]["reason"].endswith("(near)")
        for key in ("answer", "citations", "rewritten_question"):
            assert third[key] == second[key] == first[key], key
        assert third["route"]["cross_language"] == second["route"]["cross_language"]
