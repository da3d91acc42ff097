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


class _Gate:
    """The real embedder, each ``embed_passages`` call held at a barrier of ``parties`` calls
    (so a test sees which calls are inside the model at once) and recorded."""

    def __init__(self, inner, parties: int) -> None:
        import threading

        self.inner, self.calls = inner, []
        self.barrier = threading.Barrier(parties, timeout=20)

    def embed_query(self, text):
        return self.inner.embed_query(text)

    def embed_passages(self, texts):
        self.calls.append(list(texts))
        self.barrier.wait()  # BrokenBarrierError when the other call cannot get in
        return self.inner.embed_passages(texts)


def test_parts_embed_their_own_passages_at_the_same_time(embed_model_path) -> None:
    """Two parts needing different passages are both inside the model at once (a lock held
    across the model call made the second wait for the first: the barrier broke), and a
    passage the first is embedding is waited for, not embedded twice."""
    import threading

    inner = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=8)
    gate = _Gate(inner, 2)
    shared = SharedUnitEmbedder(gate)
    a, b = ["供电电压范围为3.0 V ~ 3.6 V。", "集成4 MB SPI flash。"], ["工作温度–40 ~ 85 °C。"]
    out: dict[str, list[list[float]]] = {}
    first = threading.Thread(target=lambda: out.setdefault("a", shared.embed_passages(a)))
    first.start()
    for _ in range(2000):  # the first call is inside the model, its passages pending
        if gate.calls:
            break
        threading.Event().wait(0.01)
    out["b"] = shared.embed_passages([a[1], *b])  # a[1]: the first call's, waited for
    first.join()
    assert gate.calls == [a, b]
    assert shared.misses == 3 and shared.hits == 1
    assert np.allclose(out["b"][0], out["a"][1], atol=0)
    assert np.allclose(out["a"], inner.embed_passages(a), atol=1e-5)


def test_an_embedding_error_reaches_the_waiting_parts_and_caches_nothing(
        embed_model_path) -> None:
    import threading

    inner = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=8)
    entered, release = threading.Event(), threading.Event()

    class Failing:
        def embed_query(self, text):
            return inner.embed_query(text)

        def embed_passages(self, texts):
            entered.set()
            release.wait(20)
            raise RuntimeError("model gone")

    shared = SharedUnitEmbedder(Failing())
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            shared.embed_passages(["集成4 MB SPI flash。"])
        except RuntimeError as exc:
            errors.append(exc)

    first = threading.Thread(target=ask)
    first.start()
    entered.wait(20)
    second = threading.Thread(target=ask)  # waits for the first call's vector
    second.start()
    for _ in range(2000):  # the second call is waiting for the first's vector
        if shared.hits:
            break
        threading.Event().wait(0.01)
    assert shared.hits == 1
    release.set()
    first.join()
    second.join()
    assert [str(e) for e in errors] == ["model gone", "model gone"]
    assert not shared._vecs and not shared._pending
    shared.inner = inner  # the model is back: the passage is embedded now
    assert len(shared.embed_passages(["集成4 MB SPI flash。"])[0]) == 384
    assert len(shared._vecs) == 1


def test_questions_come_from_the_retrieval_embedders_cache(embed_model_path) -> None:
    """With ``queries`` (the gateway's retrieval embedder) a question the RAG path embedded
    is not embedded again, and its vector is the one the passage embedder would give."""
    retrieval = FastEmbedEmbedder(model_path=embed_model_path, threads=1)
    units = retrieval.with_batch_size(8)
    shared = SharedUnitEmbedder(units, queries=retrieval)
    q = "ESP32-PICO-D4的最高存储温度是多少？"
    rag_vec = retrieval.embed_query(q)
    assert shared.embed_query(q) == rag_vec and retrieval.query_cache_hits == 1
    assert max(abs(a - b) for a, b in zip(units.embed_query(q), rag_vec, strict=True)) <= 1e-6
