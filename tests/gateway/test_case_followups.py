"""The two answer-quality bugs of a new-user trial on the Chinese law PDFs, through the HTTP
API on the real 劳动合同法 PDF of ../shared/eval (real Redis, real embedded Qdrant,
keyword-only):

- an elliptic follow-up ("那三年以上的呢？" after the question about contracts of one to three
  years) was read as '<earlier question> 那三年以上的呢？', answered — and cached — with the
  earlier turn's answer (二个月), and the form without 那 was split as a two-part question; now
  it is rewritten into the standalone question and answered from the clause it asks about
  (三年以上…试用期不得超过六个月);
- "劳动合同的试用期最长不得超过多久？" was answered with one case of 第十九条 (二个月) or a
  line about something else holding 最长, at confidence 0.99; now the answer is the clause's
  whole enumeration (一个月, 二个月, 六个月), flagged ``cases_whole``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gateway._apphelp import ask, make_settings, running, upload

pytestmark = [pytest.mark.integration, pytest.mark.eval]

LAW = "zh/docs/pdf/labor_contract_law.pdf"
FIRST = "劳动合同期限一年以上不满三年的，试用期不得超过多久？"
STANDALONE = "劳动合同期限三年以上的，试用期不得超过多久？"


def _flat(text: str) -> str:
    return "".join(text.split())


@pytest.mark.parametrize("mode", ["rag", "auto"])
async def test_an_elliptic_follow_up_is_asked_as_its_own_question(
        tmp_path: Path, eval_dir: Path, redis_url: str, prefix: str, mode: str) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, [eval_dir / LAW])
        first = await ask(client, FIRST, session_id="s1", mode=mode)
        assert "二个月" in _flat(first["answer"]), first["answer"]
        for session, follow_up in (("s1", "那三年以上的呢？"), ("s2", "三年以上的呢？")):
            if session == "s2":
                await ask(client, FIRST, session_id=session, mode=mode)
            body = await ask(client, follow_up, session_id=session, mode=mode)
            assert body["rewritten_question"] == STANDALONE
            assert body["route"]["rewrite"]["rules"] == ["substitute"]
            assert body["route"]["final_path"] != "plan"  # one question, not two parts
            flat = _flat(body["answer"])
            assert "六个月" in flat and "二个月" not in flat, body["answer"]
        # what the cache holds under the standalone question is that answer too
        again = await ask(client, STANDALONE, mode=mode)
        assert "六个月" in _flat(again["answer"]) and "二个月" not in _flat(again["answer"])


async def test_a_question_for_the_longest_gets_every_case(
        tmp_path: Path, eval_dir: Path, redis_url: str, prefix: str) -> None:
    settings = make_settings(tmp_path, redis_url=redis_url, redis_key_prefix=prefix)
    async with running(settings) as (app, client):
        await upload(app, client, [eval_dir / LAW])
        for mode in ("rag", "loop"):
            body = await ask(client, "劳动合同的试用期最长不得超过多久？", mode=mode,
                             use_cache=False)
            flat = _flat(body["answer"])
            assert body["found"]
            assert all(v in flat for v in ("一个月", "二个月", "六个月")), (mode, body["answer"])
            assert "十五日" not in flat
            quote = _flat(body["citations"][0]["quote"])
            assert "二个月" in quote and "六个月" in quote  # one quote holds the enumeration
            if mode == "rag":
                assert "cases_whole" in body["route"]["flags"], body["route"]["flags"]
