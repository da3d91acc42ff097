"""FastEmbedEmbedder against the real local multilingual-e5-small model."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from corpus.types import PassageEmbedder
from rag.embed_model import load_text_embedding
from rag.embedder import FastEmbedEmbedder
from rag.errors import EmbedderUnavailable
from rag.types import QueryEmbedder


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_implements_protocols(embedder: FastEmbedEmbedder) -> None:
    assert isinstance(embedder, PassageEmbedder)
    assert isinstance(embedder, QueryEmbedder)
    assert embedder.model_name == "intfloat/multilingual-e5-small"
    assert embedder.dim == 384


def test_vectors_are_unit_length_and_multilingual(embedder: FastEmbedEmbedder) -> None:
    q = embedder.embed_query("How long is the warranty period?")
    assert len(q) == 384
    assert math.isclose(math.sqrt(_cos(q, q)), 1.0, abs_tol=1e-3)
    en, zh, off = embedder.embed_passages(
        [
            "The warranty period is two years from delivery.",
            "保修期为自交货之日起两年。",
            "The cafeteria opens at 8 am.",
        ]
    )
    assert _cos(q, en) > _cos(q, off)
    assert _cos(q, zh) > _cos(q, off)  # cross-lingual match


def test_passages_keep_input_order_across_length_sorted_batches(
    embedder: FastEmbedEmbedder,
) -> None:
    texts = ["long " * 60, "short one", "medium length passage " * 5, "x"]
    together = embedder.embed_passages(texts)
    alone = [embedder.embed_passages([t])[0] for t in texts]
    # int8 dynamic quantisation makes vectors depend slightly on the batch (cosine ~0.995)
    for i, a in enumerate(together):
        sims = [_cos(a, b) for b in alone]
        assert sims[i] > 0.98 and sims[i] == max(sims)
    assert embedder.embed_passages([]) == []


def test_model_loaded_once_per_process(embedder: FastEmbedEmbedder, embed_model_path: Path) -> None:
    other = FastEmbedEmbedder(model_path=embed_model_path, threads=1)
    other.warm_up()
    assert other._emb is embedder._emb
    assert load_text_embedding(embedder.model_name, embed_model_path, 1) is embedder._emb


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    emb = FastEmbedEmbedder(model_path=tmp_path / "nope")
    with pytest.raises(EmbedderUnavailable, match="does not exist"):
        emb.warm_up()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EmbedderUnavailable, match="no .onnx"):
        FastEmbedEmbedder(model_path=empty).warm_up()


def test_query_cache_returns_the_models_own_vector(embed_model_path: Path) -> None:
    """A repeated question, or one the model's tokenizer normalises to the same ids (full-width
    forms, repeated blanks), is served from the query cache with the very vector the model
    computes; another question is embedded."""
    cached = FastEmbedEmbedder(model_path=embed_model_path, threads=1, max_length=128)
    plain = FastEmbedEmbedder(model_path=embed_model_path, threads=1, max_length=128,
                              query_cache=0)
    q = "保修期是多久？ What is the warranty period?"
    first = cached.embed_query(q)
    hits = cached.query_cache_hits
    assert cached.embed_query(q) == first and cached.query_cache_hits == hits + 1
    assert first == plain.embed_query(q)  # the model's own output, bit for bit
    variant = "保修期是多久？  What is the warranty period?"  # two blanks
    tok = cached._emb.model.tokenizer
    same_ids = tok.encode("query: " + variant).ids == tok.encode("query: " + q).ids
    assert cached.embed_query(variant) == plain.embed_query(variant)
    assert (cached.query_cache_hits == hits + 2) == same_ids
    other = cached.embed_query("退货期限是几天？")
    assert other == plain.embed_query("退货期限是几天？") and other != first
    small = FastEmbedEmbedder(model_path=embed_model_path, threads=1, max_length=128,
                              query_cache=2)
    for text in ("a", "b", "c"):
        small.embed_query(text)
    assert len(small._queries) == 2  # least recently used dropped
