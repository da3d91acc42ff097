"""Loading the fastembed ``TextEmbedding`` once per process (``rag.embedder``): models LoopGate
registers itself (fastembed 0.9 does not list multilingual-e5-small), the ONNX file of a local
model folder, and a module-level cache keyed by ``(model name, model folder, threads)`` so every
embedder built with the same settings reuses one ONNX session."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rag.errors import EmbedderError, EmbedderUnavailable

__all__ = ["KNOWN_MODELS", "load_text_embedding", "onnx_file"]

# Dimensions and prefixes of the models LoopGate registers itself (fastembed 0.9 does not ship
# multilingual-e5-small in its catalogue). Source: the models' Hugging Face cards.
KNOWN_MODELS: dict[str, dict[str, Any]] = {
    "intfloat/multilingual-e5-small": {"dim": 384, "query": "query: ", "passage": "passage: "},
    "intfloat/multilingual-e5-base": {"dim": 768, "query": "query: ", "passage": "passage: "},
}
_MODEL_CACHE: dict[tuple[str, str, int], Any] = {}
_LOCK = threading.Lock()


def onnx_file(folder: Path) -> str:
    """The ONNX file in ``folder`` (``model_int8.onnx``, ``model.onnx``, ``onnx/model.onnx`` …)."""
    for name in ("model_int8.onnx", "model.onnx", "model_optimized.onnx", "onnx/model.onnx"):
        if (folder / name).is_file():
            return name
    found = sorted(folder.glob("*.onnx"))
    if not found:
        raise EmbedderUnavailable(f"no .onnx model file in {folder}")
    return found[0].name


def _register(model: str, model_file: str) -> str:
    """Register ``model`` with fastembed (once per process); returns the name to load it by.

    fastembed raises when a name is registered twice, so a second file layout of the same model
    gets an alias name (``model@file``).
    """
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    supported = {m["model"].lower(): m for m in TextEmbedding.list_supported_models()}
    if model.lower() in supported:
        if supported[model.lower()].get("model_file", model_file) == model_file:
            return model
        alias = f"{model}@{model_file}"
        if alias.lower() in supported:
            return alias
        model_name = alias
    else:
        model_name = model
    info = KNOWN_MODELS.get(model)
    if info is None:
        raise EmbedderUnavailable(
            f"unknown embedding model {model!r}: fastembed does not list it and LoopGate does not "
            f"know its dimension (known: {', '.join(sorted(KNOWN_MODELS))})"
        )
    TextEmbedding.add_custom_model(
        model=model_name,
        pooling=PoolingType.MEAN,
        normalization=True,
        sources=ModelSource(hf=model),
        dim=int(info["dim"]),
        model_file=model_file,
    )
    return model_name


def load_text_embedding(model: str, model_path: Path | None, threads: int) -> Any:
    """Load (or reuse) the fastembed ``TextEmbedding`` for ``model``.

    :param model: fastembed model name, e.g. ``intfloat/multilingual-e5-small``.
    :param model_path: local folder with the ONNX file and tokenizer (no network); ``None`` lets
        fastembed fetch the model (online machines only).
    :param threads: ONNX runtime intra-op threads (>= 1).
    :returns: the shared ``fastembed.TextEmbedding`` instance.
    :raises EmbedderUnavailable: the folder is missing or holds no model.
    :raises EmbedderError: the ONNX runtime failed to load it (cause chained).
    """
    key = (model, str(model_path or ""), int(threads))
    with _LOCK:
        cached = _MODEL_CACHE.get(key)
        if cached is not None:
            return cached
        from fastembed import TextEmbedding

        try:
            if model_path is not None:
                folder = Path(model_path)
                if not folder.is_dir():
                    raise EmbedderUnavailable(f"embedding model folder {folder} does not exist")
                name = _register(model, onnx_file(folder))
                emb = TextEmbedding(name, specific_model_path=str(folder), threads=threads)
            else:
                name = _register(model, "onnx/model.onnx")
                emb = TextEmbedding(name, threads=threads)
        except EmbedderError:
            raise
        except Exception as exc:  # onnxruntime / tokenizers / download errors
            raise EmbedderError(f"could not load embedding model {model!r}: {exc}") from exc
        _MODEL_CACHE[key] = emb
        return emb
