"""Cross-language key terms from a real small local model (Qwen2.5-Coder-1.5B from
../shared/tools/fetch-local-llm.sh, served by benchmarks/local_llm_server.py): an English
question on a Chinese law gets the law's Chinese words, taken from the model's translation.
Runs when ``LOOPGATE_TEST_LLM_BASE_URL`` names a running OpenAI-compatible server, or when
``LOOPGATE_TEST_LLM=1`` and the model file and the ``xllamacpp`` wheel (extra ``llm``) are
present; skipped with the reason otherwise."""

from __future__ import annotations

import importlib.util
import os
import re
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gateway._apphelp import make_settings, running, upload
from tests.gateway.test_crosslang import LAW

pytestmark = [pytest.mark.llm, pytest.mark.integration]

MODEL = Path(os.environ.get("LOOPGATE_MODEL_CACHE", Path.home() / ".cache/loopgate/models")) / \
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


@pytest.fixture(scope="module")
def llm_url() -> Iterator[str]:
    url = os.environ.get("LOOPGATE_TEST_LLM_BASE_URL")
    if url:
        yield url
        return
    if os.environ.get("LOOPGATE_TEST_LLM") != "1":
        pytest.skip("no local LLM: set LOOPGATE_TEST_LLM_BASE_URL, or LOOPGATE_TEST_LLM=1 with "
                    "the model from ../shared/tools/fetch-local-llm.sh and `pip install .[llm]`")
    if not MODEL.exists() or importlib.util.find_spec("xllamacpp") is None:
        pytest.skip(f"local LLM absent: model {MODEL} or the xllamacpp wheel (extra 'llm')")
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from local_llm_server import start, wait_health
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = start(str(MODEL), port)
    url = f"http://127.0.0.1:{port}/v1"
    if not wait_health(url):
        pytest.skip("the local LLM server did not become healthy")
    yield url
    del server


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
