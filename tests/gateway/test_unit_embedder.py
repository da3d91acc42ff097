"""SharedUnitEmbedder (gateway.engines): the offline LoopAgent's passage vectors computed once
and shared by concurrent parts of a question, with the real e5 model."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from gateway.engines import SharedUnitEmbedder
from rag.embedder import FastEmbedEmbedder


def test_passages_are_embedded_once_and_shared(embed_model_path) -> None:
    inner = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=8)
    calls: list[int] = []
    real = inner.embed_passages

    def counted(texts):  # count what reaches the model
        calls.append(len(texts))
        return real(texts)

    inner.embed_passages = counted
    shared = SharedUnitEmbedder(inner, max_entries=8)
    texts = ["供电电压范围为3.0 V ~ 3.6 V。", "集成4 MB SPI flash。", "工作温度–40 ~ 85 °C。"]
    first = shared.embed_passages(texts)
    assert np.allclose(first, real(texts), atol=1e-5)
    with ThreadPoolExecutor(3) as pool:  # three parts of one question at once
        again = list(pool.map(lambda _: shared.embed_passages(texts[::-1]), range(3)))
    assert calls == [3] and shared.hits == 9 and shared.misses == 3
    assert all(np.allclose(a, first[::-1], atol=1e-6) for a in again)
    shared.embed_passages([f"句子{i}" for i in range(10)])  # the LRU keeps 8
    assert len(shared._vecs) == 8 and len(shared.embed_query("电压")) == len(first[0])


def test_with_batch_size_shares_the_loaded_model(embed_model_path) -> None:
    """The evidence-sentence embedder (batches of 8) reuses the process's ONNX session: no second
    model in memory, and a sentence batched with itself gets the vector it has alone."""
    from rag.embedder import FastEmbedEmbedder

    one = FastEmbedEmbedder(model_path=embed_model_path, threads=1)
    eight = one.with_batch_size(8)
    assert (one.batch_size, eight.batch_size, eight.query_cache) == (1, 8, 0)
    one.warm_up()
    eight.warm_up()
    assert one._emb is eight._emb
    text = "保修期为两年。The warranty lasts two years."
    alone = one.embed_passages([text])[0]
    assert max(abs(a - b) for a, b in zip(eight.embed_passages([text, text])[0], alone,
                                          strict=True)) <= 1e-5
