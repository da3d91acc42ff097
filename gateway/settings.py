"""LoopGate settings (pydantic-settings): environment variables ``LOOPGATE_*`` and an optional
``.env``-style file named by ``LOOPGATE_ENV_FILE``.

Every field is documented in README.md ("Settings"); ``tests/gateway/test_settings_documented.py``
checks that. Library packages (corpus, rag, loop) never read the environment: the gateway builds
their explicit config objects from these settings.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import platformdirs
from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "get_settings"]


def _default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("loopgate", appauthor=False))


class Settings(BaseSettings):
    """All LoopGate settings; see README "Settings" for each variable."""

    model_config = SettingsConfigDict(
        env_prefix="LOOPGATE_",
        env_file=os.environ.get("LOOPGATE_ENV_FILE"),
        extra="ignore",
    )

    # --- storage -------------------------------------------------------------------------
    data_dir: Path = Field(default_factory=_default_data_dir, description="Where all local state lives (embedded Qdrant shards, uploads).")
    qdrant_url: str = Field("", description="Qdrant server/cluster URL; empty = embedded engine (qdrant-edge-py) under data_dir.")
    qdrant_api_key: SecretStr | None = Field(None, description="API key for the Qdrant server.")
    redis_url: str = Field("", description="Redis URL for the answer cache and route log; empty = in-process LRU and ring buffer.")

    # --- embeddings ----------------------------------------------------------------------
    embed_model: str = Field("intfloat/multilingual-e5-small", description="fastembed model name of the dense embedder.")
    embed_model_path: Path | None = Field(None, description="Local folder holding the embedding model (no network); empty = let fastembed fetch it.")
    embed_threads: int = Field(1, ge=1, description="ONNX runtime threads for embedding.")
    embed_batch_size: int = Field(32, ge=1, description="Texts per embedding batch at ingest.")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; tests call ``get_settings.cache_clear()``)."""
    return Settings()
