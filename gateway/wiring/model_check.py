"""Collections that hold dense vectors while no embedding model is loaded.

Such a collection was built for hybrid search; answering it keyword-only silently loses the
dense half (the trap of issue 21: a relative ``LOOPGATE_EMBED_MODEL_PATH`` that works only from
the checkout). Unless ``LOOPGATE_ALLOW_KEYWORD_ONLY`` is set, the gateway refuses to query such a
collection (409, and the CLI exits 1) with a message naming the fix; when it is set, answers are
keyword-only and every route record carries the ``keyword_only`` flag.
"""

from __future__ import annotations

from typing import Any

from corpus.types import ChunkStore
from gateway.settings import Settings

__all__ = ["dense_without_model", "no_model_message"]


def no_model_message(collection: str, meta: dict[str, Any], why: str = "") -> str:
    """What to do when ``collection`` (its store metadata ``meta``) has dense vectors and no
    model is loaded; ``why`` is the embedder's load error, if any."""
    model = meta.get("embed_model") or "an embedding model"
    reason = f" ({why})" if why else " (LOOPGATE_EMBED_MODEL_PATH is not set)"
    return (f"collection {collection!r} holds dense vectors from {model}, but no embedding model "
            f"is loaded{reason}: set LOOPGATE_EMBED_MODEL_PATH to the model folder (an absolute "
            "path, or one relative to the settings file; `loopgate init --embed-model-path DIR` "
            "writes it), or set LOOPGATE_ALLOW_KEYWORD_ONLY=true to answer keyword-only")


def dense_without_model(settings: Settings, store: ChunkStore, why: str = "",
                        only: str | None = None) -> dict[str, str]:
    """``{collection: message}`` for the collections of ``store`` (or just ``only``) that have
    dense vectors, when no model is loaded and keyword-only answers are not allowed; ``{}``
    when ``settings.allow_keyword_only`` is true or the store cannot be read."""
    if settings.allow_keyword_only:
        return {}
    out: dict[str, str] = {}
    try:
        names = [only] if only is not None else list(store.list_collections())
        for name in names:
            meta = store.collection_meta(name) or {}
            if meta.get("embed_model") or meta.get("dense_dim"):
                out[name] = no_model_message(name, meta, why)
    except Exception:  # noqa: BLE001 - the store's own outage is reported elsewhere
        return out
    return out
