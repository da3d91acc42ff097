"""Hybrid retrieval over a ``ChunkStore``: dense + BM25 keyword search fused by weighted RRF.

Two fusion placements (``RetrievalConfig.fusion``):

- ``client`` (default): the dense and the keyword query run as two index queries, each under its
  own timeout, and are fused here by weighted RRF plus the document-level step
  (``rag.fusion``). The two lists also give the confidence features (top cosine, top BM25,
  agreement), which a fused server result does not carry.
- ``server``: one Qdrant query — dense and ``bm25`` prefetches fused by RRF inside Qdrant
  (``ChunkStore.hybrid_search``); confidence then sees only the fused list.

The flow is written once (:meth:`HybridRetriever.flow`) and driven sync (:meth:`run`) or async
(:meth:`run_async`) by ``rag.steps``. Timeouts and index failures never raise: the result says
what happened in ``Retrieval.flags`` and is built from what arrived.

When the best item's text comes from a page read by OCR or one showing a picture of text that
is not indexed (``Chunk.page_warning``), the confidence is multiplied by
:data:`WARNED_PAGE_FACTOR` and the flag ``evidence_on_warned_page`` set: OCR text may be
misread, and the page may hold the real answer in its unread picture.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache, partial

from corpus.labels import asked_item
from corpus.types import ChunkStore, SearchFilter
from rag._retrieval_steps import by_name, elapsed_ms, hits, index_steps
from rag.confidence import LogisticConfidence, compute_features
from rag.expand import QueryExpander
from rag.fusion import fuse
from rag.items import item_hits
from rag.pages import PageNavigator
from rag.resolution import Resolution
from rag.resolve import ProfileSource
from rag.search_filter import resolve_filter
from rag.stage import FlowStage
from rag.steps import Flow, Step
from rag.types import (
    FLAG_KEYWORD_ONLY,
    Confidence,
    ConfidenceScorer,
    QueryEmbedder,
    QueryTokenizer,
    Retrieval,
    RetrievalConfig,
    RetrievalMode,
)

__all__ = ["FLAG_WARNED_PAGE", "WARNED_PAGE_FACTOR", "HybridRetriever", "resolve_filter"]

# not calibrated (no eval question has its evidence on an OCR'd page yet): a 0.9999 answer
# from such a page reads 0.8, still above the answer floor, and says why in its flags
WARNED_PAGE_FACTOR = 0.8
FLAG_WARNED_PAGE = "evidence_on_warned_page"
#: texts whose index-side analysis a retriever keeps for the phrase-coverage feature: a top-k
#: item's title + section + text is analysed for every question it answers, and the same
#: items come back (the 547 dev questions on the 8 zh PDFs: 2,728 items, 495 distinct texts)
_TERMS_MEMO = 512  # a few MB: items of a few KB, their term lists


class HybridRetriever(FlowStage[Retrieval]):
    """Dense + keyword retrieval with weighted RRF, adjacent-chunk merging and confidence. A
    question naming a numbered item (第五条, Clause 4: ``corpus.labels.asked_item``) also gets
    the chunks holding that item as a ranked list, fused as the page list (``rag.items``).

    Usage example::

        retriever = HybridRetriever(store, Tokenizer(), FastEmbedEmbedder(model_path=path))
        retriever.warm_up()
        result = retriever.run("What is the warranty period?", "manuals")
        for item in result.items:
            print(item.chunk.path, item.pages, item.score)
        print(result.confidence.value, result.flags, result.timings_ms)

    :param store: the chunk store (``corpus.qdrant_store.QdrantChunkStore``).
    :param tokenizer: the keyword tokenizer (``corpus.tokenizer.Tokenizer``).
    :param embedder: the query embedder, or ``None`` for keyword-only retrieval (flagged
        ``keyword_only`` in every result).
    :param config: retrieval policy (top-k, RRF, weights, timeouts).
    :param scorer: confidence calibration (default: the packaged ``rag/calibration.json``).
    :param resolver: document resolution (``rag.resolve.ProfileSource``): a question naming an
        organisation / period is searched inside the documents it names (``None``: off). Runs
        only when the caller gave no filter; the outcome is ``Retrieval.resolution``.
    :param expander: field-vocabulary query expansion of the keyword query
        (``rag.expand.QueryExpander``; ``None``: off); the phrases are ``Retrieval.expansions``.
    :param pages: page navigation inside resolved documents (``rag.pages.PageNavigator``;
        ``None``: off): chunks of the pages titled with the statement the question asks for
        join the fusion as a third list at ``config.page_weight``.
    """

    def __init__(
        self,
        store: ChunkStore,
        tokenizer: QueryTokenizer,
        embedder: QueryEmbedder | None = None,
        *,
        config: RetrievalConfig | None = None,
        scorer: ConfidenceScorer | None = None,
        resolver: ProfileSource | None = None,
        expander: QueryExpander | None = None,
        pages: PageNavigator | None = None,
    ) -> None:
        self.pages = pages
        self.resolver = resolver
        self.expander = expander
        self.store = store
        self.tokenizer = tokenizer
        self.embedder = embedder
        self.config = config or RetrievalConfig()
        self.scorer: ConfidenceScorer = scorer or LogisticConfidence.load()
        self._terms_memo: tuple[object, Callable[[str], list[str]]] | None = None

    def warm_up(self) -> None:
        """Load the embedding model now (otherwise the first question pays for it)."""
        warm = getattr(self.embedder, "warm_up", None)
        if callable(warm):
            warm()

    def warm_up_collections(self, collections: Sequence[str]) -> dict[str, str]:
        """Build the document resolver of each collection now (its profiles are read once per
        corpus version; the first question would otherwise pay for it inside its resolve
        timeout and, on a slow machine, search the whole collection flagged
        ``resolve_timeout``).

        :returns: ``{collection: "ok" | error message}``; never raises.
        """
        out: dict[str, str] = {}
        for name in collections:
            try:
                if self.resolver is not None:
                    self.resolver.resolver(name)
                out[name] = "ok"
            except Exception as exc:  # a broken collection must not stop the start-up
                out[name] = f"{type(exc).__name__}: {exc}"
        return out

    def flow(self, question: str, collection: str, *, top_k: int | None = None,
             flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid",
             current_date: str | None = None) -> Flow[Retrieval]:
        """The I/O-free retrieval flow (:meth:`rag.stage.FlowStage.flow`): the top-k items for
        ``question``; timeouts and index errors are flagged, never raised (``current_date``
        is not read: retrieval does not depend on the day)."""
        cfg = self.config
        k = top_k or cfg.top_k
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        flags: list[str] = []
        want_dense = mode in ("hybrid", "dense")
        want_kw = mode in ("hybrid", "keyword")
        if want_dense and self.embedder is None:
            flags.append(FLAG_KEYWORD_ONLY)
            want_dense, want_kw = False, True
        t = time.perf_counter()
        sparse = self.tokenizer.sparse_query(question)
        key_terms = list(self.tokenizer.key_terms(question))
        expansions: list[str] = []
        if self.expander is not None and not sparse.is_empty():
            sparse, expansions = self.expander.expand(question, sparse)
        timings["tokenize"] = elapsed_ms(t)
        if sparse.is_empty():
            want_kw = False
            if mode != "dense":
                flags.append("no_keyword_terms")
        server = cfg.fusion == "server" and mode == "hybrid"
        prefetch = max(cfg.prefetch_k, k)

        first: list[Step] = []
        if want_dense and self.embedder is not None:
            first.append(
                Step("embed", partial(self.embedder.embed_query, question), cfg.embed_timeout_s)
            )
        if self.resolver is not None and (flt is None or flt.is_empty()):
            first.append(
                Step(
                    "resolve",
                    partial(self.resolver.resolve, collection, question, _names(self, question),
                            key_terms),
                    cfg.search_timeout_s,
                )
            )
        got = by_name((yield first) if first else [], timings, flags)
        resolution: Resolution | None = None
        if "resolve" in got and got["resolve"].ok:
            resolution = got["resolve"].value
            if resolution is not None and resolution.filter is not None:
                flt = resolution.filter
        page_docs = resolution.doc_ids if resolution is not None and resolution.sure else ()

        vector = got["embed"].value if "embed" in got and got["embed"].ok else None
        second = index_steps(self.store, cfg, collection, vector, sparse, prefetch, flt,
                             server=server, want_kw=want_kw)
        if self.pages is not None and page_docs and cfg.page_weight > 0 and mode == "hybrid":
            second.append(
                Step(
                    "pages",
                    partial(self.pages.page_hits, collection, page_docs, question),
                    cfg.search_timeout_s,
                )
            )
        label = asked_item(question)
        if label is not None and want_kw and mode == "hybrid":  # the chunks holding 第五条
            second.append(Step("items", partial(item_hits, self.store, self.tokenizer,
                                                collection, label, prefetch, flt),
                               cfg.search_timeout_s))
        t = time.perf_counter()
        got.update(by_name((yield second) if second else [], timings, flags))
        timings["search"] = elapsed_ms(t)  # wall time of the index queries (run side by side)

        dense = hits(got.get("dense_search"))
        keyword = hits(got.get("keyword_search"))
        t = time.perf_counter()
        if "hybrid_search" in got:
            fused_hits = hits(got["hybrid_search"])
            items = fuse(fused_hits, [], top_k=k, rrf_k=cfg.rrf_k, merge=cfg.merge_adjacent)
            items = [replace(it, dense_score=None, dense_rank=None) for it in items]
        else:
            items = fuse(
                dense,
                keyword,
                top_k=k,
                rrf_k=cfg.rrf_k,
                dense_weight=cfg.dense_weight,
                keyword_weight=cfg.keyword_weight,
                doc_weight=cfg.doc_weight,
                key_terms=key_terms,
                merge=cfg.merge_adjacent,
                pages=hits(got.get("pages")) + hits(got.get("items")),
                page_weight=cfg.page_weight,
            )
        features = compute_features(
            dense, keyword, items, key_terms, self.tokenizer.normalize, hits(got.get("pages")),
            question=question, analyse=_analyser(self),
        )
        confidence = Confidence(self.scorer.score(features), features)
        if items and any(c.page_warning for c in items[0].chunks):
            # the best evidence sits on a page read by OCR or showing unread text (issue 17)
            confidence = Confidence(confidence.value * WARNED_PAGE_FACTOR, features)
            flags.append(FLAG_WARNED_PAGE)
        timings["fuse"] = elapsed_ms(t)
        timings["total"] = elapsed_ms(t0)
        ran: RetrievalMode
        if ("hybrid_search" in got and got["hybrid_search"].ok) or (dense and keyword):
            ran = "hybrid"
        else:
            ran = "dense" if dense else "keyword"
        return Retrieval(
            question=question,
            collection=collection,
            items=tuple(items),
            confidence=confidence,
            mode=ran,
            timings_ms=timings,
            flags=tuple(dict.fromkeys(flags)),
            filter=flt,
            key_terms=tuple(key_terms),
            resolution=resolution,
            expansions=tuple(expansions),
        )


def _names(r: HybridRetriever, question: str) -> list[str]:
    """The question's name terms (``Tokenizer.name_terms``) for document resolution; the key
    terms for a tokenizer without that method."""
    names = getattr(r.tokenizer, "name_terms", None)
    return list(names(question)) if callable(names) else list(r.tokenizer.key_terms(question))


def _analyser(r: HybridRetriever) -> Callable[[str], list[str]] | None:
    """The tokenizer's index-side analysis (``Tokenizer.terms``) for phrase coverage, memoised
    per retriever (:data:`_TERMS_MEMO` texts; the analysis is a pure function of the text, the
    lists returned are only read); ``None`` for a tokenizer without it (a word split then)."""
    terms = getattr(r.tokenizer, "terms", None)
    if not callable(terms):
        return None
    memo = r._terms_memo
    if memo is None or memo[0] is not r.tokenizer:
        memo = r._terms_memo = (r.tokenizer, lru_cache(maxsize=_TERMS_MEMO)(terms))
    return memo[1]
