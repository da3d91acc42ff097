"""Dense embedder: fastembed (ONNX runtime, no torch) running intfloat/multilingual-e5-small.

The model is loaded once per process and shared (``rag.embed_model.load_text_embedding``: one
cache keyed by ``(model name, model folder, threads)``), so every :class:`FastEmbedEmbedder`
built with the same settings reuses one ONNX session. e5 models need the ``"query: "`` and
``"passage: "`` prefixes (Wang et al. 2022, "Text Embeddings by Weakly-Supervised Contrastive
Pre-training", model card of intfloat/multilingual-e5-small); the embedder adds them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from corpus.embed_probe import probe_vector, runtime_name, vectors_differ
from rag.embed_model import KNOWN_MODELS, load_text_embedding, onnx_file
from rag.errors import CollectionMismatchError, EmbedderError, EmbedderUnavailable

__all__ = [
    "DEFAULT_EMBED_MODEL",
    "FastEmbedEmbedder",
    "check_collection",
    "runtime_note",
    "startup_check",
]

DEFAULT_EMBED_MODEL = "intfloat/multilingual-e5-small"


class FastEmbedEmbedder:
    """Multilingual dense embedder (fastembed + ONNX); implements ``corpus.types.PassageEmbedder``.

    Usage example::

        emb = FastEmbedEmbedder(model_path=Path("../shared/models/multilingual-e5-small"))
        emb.warm_up()
        vectors = emb.embed_passages(["Title > Section\\nChunk text"])   # 384 floats each
        q = emb.embed_query("What is the warranty period?")

    :param model: fastembed model name (default :data:`DEFAULT_EMBED_MODEL`).
    :param model_path: local model folder (no network); ``None`` = fastembed fetches it.
    :param threads: ONNX runtime threads.
    :param batch_size: passages per ONNX call in :meth:`embed_passages`. 1 (default): every
        passage alone. The int8 model quantises a call's activations with one scale per tensor
        (DynamicQuantizeLinear), so in a batch a passage's vector depends on its neighbours and
        on their padding (measured: up to 0.012 per component); alone it is exactly its own,
        unpadded like every question, and no CPU goes to padding.
    :param max_length: tokens kept per text (the tokenizer truncates; e5 allows 512).
    :param query_cache: questions whose vectors are kept (LRU; 0 = off). The key is the
        question's token ids, so questions that differ only in what the model's tokenizer
        normalises away (Unicode width and compatibility forms, repeated blanks) share one
        vector, which is exactly the one the model computes for either.
    """

    def __init__(
        self,
        model: str = DEFAULT_EMBED_MODEL,
        model_path: Path | None = None,
        *,
        threads: int = 1,
        batch_size: int = 1,
        max_length: int = 512,
        query_cache: int = 1024,
    ) -> None:
        info = KNOWN_MODELS.get(model, {"dim": 0, "query": "", "passage": ""})
        self.model_name = model
        self.dim = int(info["dim"])
        self.model_path = model_path
        self.threads = max(1, int(threads))
        self.batch_size = max(1, int(batch_size))
        self.max_length = max(16, int(max_length))
        self._query_prefix = str(info["query"])
        self._passage_prefix = str(info["passage"])
        self._emb: Any = None
        self.query_cache = max(0, int(query_cache))
        self._queries: OrderedDict[tuple[int, ...], Any] = OrderedDict()  # ids -> float32 array
        self._queries_lock = threading.Lock()
        self.query_cache_hits = 0
        self._fingerprint: list[float] | None = None  # fingerprint(), once

    def check_files(self) -> None:
        """Check that the model folder holds an ONNX file, without loading it.

        :raises EmbedderUnavailable: no such folder, or no ``.onnx`` file in it."""
        if self.model_path is not None:
            folder = Path(self.model_path)
            if not folder.is_dir():
                raise EmbedderUnavailable(f"embedding model folder {folder} does not exist")
            onnx_file(folder)

    def worker_factory(self, threads: int) -> Callable[[], FastEmbedEmbedder]:
        """A picklable zero-argument factory of this embedder with ``threads`` ONNX threads and
        no query cache, for ingest worker processes (``corpus.ingest.Ingestor``): the same
        model, batch size and token limit, so the same vectors (the ONNX thread count changes
        the float summation order only: measured differences below 1e-6; with ``batch_size``
        1 a vector does not depend on which passages a process embeds with it)."""
        return partial(FastEmbedEmbedder, self.model_name, self.model_path, threads=threads,
                       batch_size=self.batch_size, max_length=self.max_length, query_cache=0)

    def with_batch_size(self, batch_size: int) -> FastEmbedEmbedder:
        """This embedder with another ``batch_size`` and no query cache, sharing the loaded
        ONNX session (the per-process model cache): for many short texts at once, where a call
        per text costs more than the padding (60 evidence sentences of ~86 characters, one
        thread: 526–587 ms CPU one by one vs 454–469 ms in batches of 8)."""
        return FastEmbedEmbedder(self.model_name, self.model_path, threads=self.threads,
                                 batch_size=batch_size, max_length=self.max_length,
                                 query_cache=0)

    def warm_up(self) -> None:
        """Load the model (shared per process) and run one query so the first call is warm.

        :raises EmbedderUnavailable: no model folder / file.
        :raises EmbedderError: the runtime failed to load the model.
        """
        if self._emb is None:
            emb = load_text_embedding(self.model_name, self.model_path, self.threads)
            tok = getattr(getattr(emb, "model", None), "tokenizer", None)
            if tok is not None:  # shared model: the last embedder warmed up sets the limit
                tok.enable_truncation(max_length=self.max_length)
            self._emb = emb
            if not self.dim:
                self.dim = int(emb.embedding_size)
            self.embed_query("warm up")

    def _run(self, texts: list[str], batch_size: int) -> list[list[float]]:
        self.warm_up()
        try:
            return [v.tolist() for v in self._emb.embed(texts, batch_size=batch_size)]
        except Exception as exc:
            raise EmbedderError(f"embedding failed: {exc}") from exc

    def embed_query(self, text: str) -> list[float]:
        """Embed one question (``"query: "`` prefix); a unit-length vector of :attr:`dim` floats.
        A question seen before (same token ids) is answered from the query cache."""
        if not self.query_cache:
            return self._run([self._query_prefix + text], 1)[0]
        self.warm_up()
        tok = getattr(getattr(self._emb, "model", None), "tokenizer", None)
        if tok is None:  # a runtime without a reachable tokenizer: no cache
            return self._run([self._query_prefix + text], 1)[0]
        key = tuple(tok.encode(self._query_prefix + text).ids)
        with self._queries_lock:
            cached = self._queries.get(key)
            if cached is not None:
                self._queries.move_to_end(key)
                self.query_cache_hits += 1
                return cached.tolist()  # type: ignore[no-any-return]
        try:
            vec = next(iter(self._emb.embed([self._query_prefix + text], batch_size=1)))
        except Exception as exc:
            raise EmbedderError(f"embedding failed: {exc}") from exc
        with self._queries_lock:
            self._queries[key] = vec
            while len(self._queries) > self.query_cache:
                self._queries.popitem(last=False)
        return vec.tolist()  # type: ignore[no-any-return]

    def fingerprint(self) -> list[float]:
        """This runtime's fingerprint (``corpus.embed_probe.probe_vector``): the first 16
        components of one fixed passage's vector, stored with a new collection and compared
        when it is opened or ingested into again. Computed once per embedder (the start-up
        check asks it for every collection).

        :raises EmbedderError: the runtime failed."""
        if self._fingerprint is None:
            self._fingerprint = probe_vector(self)
        return list(self._fingerprint)

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed several questions at once (same as :meth:`embed_query` per text)."""
        return self._run([self._query_prefix + t for t in texts], self.batch_size)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed passages (``"passage: "`` prefix) in batches, returned in input order.

        With ``batch_size`` > 1 texts are sorted by length before batching so a batch pads to
        similar lengths; the order is restored afterwards.
        """
        if not texts:
            return []
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vectors = self._run([self._passage_prefix + texts[i] for i in order], self.batch_size)
        out: list[list[float]] = [[] for _ in texts]
        for pos, i in enumerate(order):
            out[i] = vectors[pos]
        return out


def check_collection(store: Any, collection: str, embedder: Any | None) -> str:
    """Start-up check that ``collection`` was embedded with the configured model and dimension.

    :param store: a ``corpus.types.ChunkStore``.
    :param collection: the collection name.
    :param embedder: the configured embedder (``model_name``, ``dim``) or ``None`` (keyword-only).
    :returns: ``"ok"``; ``"missing"`` when the collection does not exist yet; ``"keyword_only"``
        when no embedder is configured; ``"no_dense"`` when the collection holds no dense
        vectors yet (ingest with a model configured embeds what is missing);
        ``"runtime_differs"`` when the collection's stored fingerprint of the embedding runtime
        (``corpus.embed_probe``) differs from this runtime's: queries still work, their vectors
        are a little off the index's (:func:`runtime_note` says what to do).
    :raises CollectionMismatchError: stored model or dimension differs — with what to do.
    """
    if embedder is None:
        return "keyword_only"
    if collection not in store.list_collections():
        return "missing"
    meta = store.collection_meta(collection) or {}
    model, dim = meta.get("embed_model"), meta.get("dense_dim")
    if not model and not dim:
        return "no_dense"
    if (model and model != embedder.model_name) or (dim and int(dim) != int(embedder.dim)):
        raise CollectionMismatchError(
            collection, (model, int(dim) if dim else None), (embedder.model_name, int(embedder.dim))
        )
    stored, fingerprint = meta.get("embed_probe"), getattr(embedder, "fingerprint", None)
    if stored is not None and callable(fingerprint) and vectors_differ(stored, fingerprint()):
        return "runtime_differs"
    return "ok"


def runtime_note(store: Any, collection: str) -> str:
    """What ``"runtime_differs"`` (:func:`check_collection`) means for ``collection``: which
    runtime built its vectors, which one runs now, and the two ways out."""
    built = (store.collection_meta(collection) or {}).get("embed_runtime") or ""
    now = runtime_name() or "this runtime"
    # "onnxruntime 1.24.4" -> "install onnxruntime==1.24.4"; an unnamed runtime: re-ingest only
    fix = f"install {built.replace(' ', '==')} or re-ingest" if built else "re-ingest"
    return (f"collection {collection!r} was embedded by {built or 'another runtime'}, questions "
            f"are embedded by {now}: the int8 model's vectors differ between the two, so dense "
            f"search is slightly off; {fix} the documents into a new collection")


def startup_check(store: Any, embedder: Any | None) -> dict[str, str]:
    """Check every collection of ``store`` against the configured embedder (gateway start-up).

    Never raises: returns ``{collection: state}`` where state is one of :func:`check_collection`'s
    results, or the :class:`CollectionMismatchError` message (which says what to do) for a
    collection embedded with another model or dimension, or ``"error: …"`` when the store
    could not be read.
    """
    out: dict[str, str] = {}
    try:
        names = list(store.list_collections())
    except Exception as exc:  # the store is down: the gateway reports it elsewhere
        return {"*": f"error: {exc}"}
    for name in names:
        try:
            out[name] = check_collection(store, name, embedder)
        except CollectionMismatchError as exc:
            out[name] = str(exc)
        except Exception as exc:
            out[name] = f"error: {exc}"
    return out

