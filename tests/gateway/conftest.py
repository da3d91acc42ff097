"""Fixtures of the gateway tests."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from gateway.settings import get_settings
from tests._support.redis_keys import drop_keys


@pytest.fixture
async def prefix(redis_url: str) -> AsyncIterator[str]:
    """A Redis key prefix of this test alone; its keys are dropped after the test."""
    name = f"loopgate-test:{uuid.uuid4().hex[:12]}:"
    yield name
    await drop_keys(redis_url, name)


@pytest.fixture
def cli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``tmp_path`` as the CLI's working folder, its data in ``tmp_path/data``, no env file and
    no embedding model (keyword-only); fresh settings before and after."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LOOPGATE_ENV_FILE", raising=False)
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", "")
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()
