"""Shared fixtures: clean environment, loopback-only network, real Redis, shared eval material."""

from __future__ import annotations

import importlib.util
import ipaddress
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("LOOPGATE_SHARED_DIR", REPO.parent / "shared"))
EVAL_DIR = SHARED / "eval"
CASES_DIR = SHARED / "cases"
MODEL_DIR = Path(
    os.environ.get("LOOPGATE_TEST_EMBED_MODEL_PATH", SHARED / "models" / "multilingual-e5-small")
)


#: the small local chat model of ../shared/tools/fetch-local-llm.sh (Qwen2.5-Coder-1.5B, GGUF)
LOCAL_LLM_MODEL = Path(os.environ.get("LOOPGATE_MODEL_CACHE",
                                      Path.home() / ".cache/loopgate/models")) / \
    "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


@pytest.fixture(scope="module")
def llm_url() -> Iterator[str]:
    """Base URL (``…/v1``) of a real local OpenAI-compatible LLM server for the ``llm``-marked
    tests: ``LOOPGATE_TEST_LLM_BASE_URL`` when set, else, with ``LOOPGATE_TEST_LLM=1`` and the
    model file and the ``xllamacpp`` wheel (extra ``llm``) present, one started for the module
    by ``benchmarks/local_llm_server.py`` on a free port; skipped with the reason otherwise."""
    url = os.environ.get("LOOPGATE_TEST_LLM_BASE_URL")
    if url:
        yield url
        return
    if os.environ.get("LOOPGATE_TEST_LLM") != "1":
        pytest.skip("no local LLM: set LOOPGATE_TEST_LLM_BASE_URL, or LOOPGATE_TEST_LLM=1 with "
                    "the model from ../shared/tools/fetch-local-llm.sh and `pip install .[llm]`")
    if not LOCAL_LLM_MODEL.exists() or importlib.util.find_spec("xllamacpp") is None:
        pytest.skip(f"local LLM absent: model {LOCAL_LLM_MODEL} or the xllamacpp wheel "
                    "(extra 'llm')")
    sys.path.insert(0, str(REPO / "benchmarks"))
    from local_llm_server import start, wait_health
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = start(str(LOCAL_LLM_MODEL), port)
    url = f"http://127.0.0.1:{port}/v1"
    if not wait_health(url):
        pytest.skip("the local LLM server did not become healthy")
    yield url
    del server


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Drop every LOOPGATE_* variable (except the test-only ones) and the settings cache."""
    for key in list(os.environ):
        if key.startswith("LOOPGATE_") and not key.startswith("LOOPGATE_TEST_"):
            monkeypatch.delenv(key, raising=False)
    from gateway.settings import get_settings

    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address):  # type: ignore[no-untyped-def]
    if isinstance(address, tuple) and address:
        host = address[0]
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            ip = None if host == "localhost" else ipaddress.ip_address("8.8.8.8")
        if ip is not None and not ip.is_loopback:
            raise RuntimeError(f"tests may only reach loopback, not {address!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True, scope="session")
def loopback_only() -> Iterator[None]:
    """Refuse any connection that leaves the machine (Haystack's request_blocker)."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def redis_url() -> str:
    """URL of the real Redis the README test command made sure of (db 15 by default)."""
    return os.environ.get("LOOPGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


@pytest.fixture(scope="session")
def eval_dir() -> Path:
    """../shared/eval, or skip with a clear message when absent."""
    if not (EVAL_DIR / "README.md").exists():
        pytest.skip(f"shared evaluation material not found at {EVAL_DIR}")
    return EVAL_DIR


@pytest.fixture(scope="session")
def cases_dir() -> Path:
    """../shared/cases, or skip with a clear message when absent."""
    if not (CASES_DIR / "README.md").exists():
        pytest.skip(f"shared bug-report cases not found at {CASES_DIR}")
    return CASES_DIR


@pytest.fixture(scope="session")
def embed_model_path() -> Path:
    """The local multilingual-e5-small folder, or skip with a clear message when absent."""
    if not (MODEL_DIR / "model_int8.onnx").exists():
        pytest.skip(f"local embedding model not found at {MODEL_DIR}")
    return MODEL_DIR
