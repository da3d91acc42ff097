"""Cross-language key terms from a real small local model (Qwen2.5-Coder-1.5B from
../shared/tools/fetch-local-llm.sh, served by benchmarks/local_llm_server.py): an English
question on a Chinese law gets the law's Chinese words, taken from the model's translation.
Runs when ``LOOPGATE_TEST_LLM_BASE_URL`` names a running OpenAI-compatible server, or when
``LOOPGATE_TEST_LLM=1`` and the model file and the ``xllamacpp`` wheel (extra ``llm``) are
present; skipped with the reason otherwise."""

from __future__ import annotations

import re

import pytest

from tests.gateway._apphelp import make_settings, running, upload
from tests.gateway.test_crosslang import LAW

pytestmark = [pytest.mark.llm, pytest.mark.integration]


async def test_local_model_gives_the_laws_chinese_terms(tmp_path, llm_url: str) -> None:
    # generous budgets: the model shares a small machine (3-16 tokens/s measured)
    settings = make_settings(tmp_path, llm_base_url=llm_url, llm_model="local",
                             llm_scope="conversation", conversation_llm_timeout_s=120,
                             llm_timeout_s=120, request_deadline_s=300)
    async with running(settings) as (app, client):
        await upload(app, client, [("law.md", LAW.encode())])
        r = await client.post("/v1/query", json={
            "question": "How long must network operators keep the network logs?", "mode": "rag"})
        route = r.json()["route"]
        assert "crosslang_llm_failed" not in route["flags"], route["flags"]
        translation = route["cross_language_llm"]["translation"]
        assert re.search(r"[\u4e00-\u9fff]{4}", translation), translation  # a Chinese question
        # the terms added came from the model and every one is in the law's text
        assert route["cross_language"]["units"] == ["llm"]
        terms = route["cross_language"]["terms"]
        assert terms and all(t in LAW for t in terms), terms
        assert any("日志" in t for t in terms), terms
