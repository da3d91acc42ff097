"""Contracts of the RAG fast path: protocols per role and the frozen results each stage returns.

- :class:`QueryEmbedder` / :class:`QueryTokenizer` – what retrieval needs from the embedder
  (``rag.embedder.FastEmbedEmbedder``) and the keyword tokenizer (``corpus.tokenizer.Tokenizer``).
- :class:`RetrievalConfig` – top-k, prefetch depth, RRF ``k`` and per-source weights, timeouts.
- :class:`RetrievedChunk` – one result item (adjacent chunks of one section merged into one).
- :class:`ConfidenceFeatures` / :class:`Confidence` – calibrated confidence with its features.
- :class:`Retrieval` – what ``HybridRetriever.run`` returns; never raised past: flags say what
  timed out or failed.
- :class:`Evidence` / :class:`RagAnswer` – the extractive answer with verified citations
  (defined in ``rag._answer``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from corpus.types import Chunk, SearchFilter, SparseVector
from rag._answer import Evidence, RagAnswer
from rag.resolution import Resolution

__all__ = [
    "Confidence",
    "ConfidenceFeatures",
    "ConfidenceScorer",
    "Evidence",
    "FLAG_KEYWORD_ONLY",
    "QueryEmbedder",
    "QueryTokenizer",
    "RagAnswer",
    "Retrieval",
    "RetrievalConfig",
    "RetrievalMode",
    "RetrievedChunk",
    "Retriever",
]

RetrievalMode = Literal["hybrid", "dense", "keyword"]
# Flag set on every result produced without dense vectors (no model configured / not loadable).
FLAG_KEYWORD_ONLY = "keyword_only"


@runtime_checkable
class QueryEmbedder(Protocol):
    """A dense embedder for questions (``FastEmbedEmbedder`` adds e5's ``"query: "`` prefix)."""

    model_name: str
    dim: int

    def embed_query(self, text: str) -> list[float]:
        """One unit-length vector of ``dim`` floats."""


@runtime_checkable
class QueryTokenizer(Protocol):
    """The keyword side of a question (implemented by ``corpus.tokenizer.Tokenizer``)."""

    def sparse_query(self, text: str) -> SparseVector:
        """Sparse BM25 query vector (term hashes, weights; IDF applied by Qdrant)."""

    def key_terms(self, text: str) -> list[str]:
        """Normalised key terms of a question: numbers, codes, quoted strings, names, words."""

    def normalize(self, text: str) -> str:
        """The form key terms are in (NFKC, lower case, Traditional → Simplified)."""


@runtime_checkable
class ConfidenceScorer(Protocol):
    """Maps features to a calibrated probability that the top-k holds the evidence."""

    def score(self, features: ConfidenceFeatures) -> float:
        """A value in [0, 1]."""


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Retrieval policy (built by the gateway from settings).

    :param top_k: result items returned (after adjacent-chunk merging), default 5.
    :param prefetch_k: candidates taken from each of dense and keyword search before fusion.
    :param rrf_k: reciprocal-rank-fusion constant ``k`` (Cormack et al. 2009 use 60).
    :param dense_weight: RRF weight of the dense list; ``keyword_weight`` of the keyword list.
    :param doc_weight: weight of the document-level step (0 disables it): chunks of documents
        that many candidates, and the question's key terms in the title/path, point to are
        lifted (see ``rag.fusion``).
    :param fusion: ``client`` = two index queries fused here with weights (gives per-source
        scores for confidence); ``server`` = one Qdrant query with RRF prefetches.
    :param merge_adjacent: merge consecutive chunks of one section into one result item.
    :param page_weight: RRF weight of the page list (``rag.pages``: chunks of the pages of the
        resolved documents titled with the statement the question asks for), in units of the
        similarity lists that ran: 1.0 = as much as the dense and keyword lists together (a
        title naming the statement is as strong a sign as both similarities agreeing); 0
        disables it.
    :param embed_timeout_s: timeout of the question embedding; ``search_timeout_s`` of each
        index query. On timeout the result is flagged and built from what arrived.
    """

    top_k: int = 5
    prefetch_k: int = 50
    rrf_k: int = 60
    dense_weight: float = 1.0
    keyword_weight: float = 1.0
    doc_weight: float = 0.0
    fusion: Literal["client", "server"] = "client"
    merge_adjacent: bool = True
    page_weight: float = 1.0
    embed_timeout_s: float = 2.0
    search_timeout_s: float = 2.0


@dataclass(frozen=True, slots=True)
class RetrievedChunk:
    """One result item: one chunk, or consecutive chunks of one section merged.

    :param chunks: the chunk(s) in document order (``len > 1`` when merged).
    :param score: fused score (weighted RRF, plus the document-level bonus).
    :param dense_score: best cosine among ``chunks`` (``None`` when not in the dense list).
    :param keyword_score: best BM25 score among ``chunks`` (``None`` when not in that list).
    :param dense_rank: best 1-based rank in the dense list; ``keyword_rank`` likewise.
    """

    chunks: tuple[Chunk, ...]
    score: float
    dense_score: float | None = None
    keyword_score: float | None = None
    dense_rank: int | None = None
    keyword_rank: int | None = None

    @property
    def chunk(self) -> Chunk:
        """The first chunk (its id, path, title and section stand for the item)."""
        return self.chunks[0]

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        """Ids of every chunk merged into this item."""
        return tuple(c.chunk_id for c in self.chunks)

    @property
    def text(self) -> str:
        """The merged text (chunks joined by a newline)."""
        return "\n".join(c.text for c in self.chunks)

    @property
    def pages(self) -> tuple[int, int]:
        """``(first, last)`` physical page covered."""
        return self.chunks[0].page_start, max(c.page_end for c in self.chunks)


@dataclass(frozen=True, slots=True)
class ConfidenceFeatures:
    """Features of one retrieval that the confidence model reads (all floats, ``0.0`` when
    absent). Cosines are in [-1, 1]; ``keyword_top`` is ``log1p`` of Qdrant's BM25 score.

    :param dense_top: cosine of the best dense hit; ``dense_margin`` minus the second best.
    :param keyword_top: ``log1p`` BM25 of the best keyword hit; ``keyword_margin`` its
        relative lead over the second (``(s1 - s2) / s1``).
    :param agreement: overlap of the dense and keyword top-5 chunk ids (0..1).
    :param top_doc_agreement: 1 when the dense and keyword top-1 come from one document.
    :param coverage: share of the question's key terms found in the top-k texts (0..1).
    :param number_coverage: the same for numbers and codes only (1 when the question has none).
    :param doc_concentration: share of the top-k items from the top-1 item's document.
    :param dense_spread: best cosine minus the mean cosine of the whole dense candidate list
        (how far the best stands out from the question's background similarity).
    :param keyword_spread: ``log`` of best BM25 over the mean BM25 of the keyword list.
    :param page_support: 1 when the top item holds a chunk of the page list (``rag.pages``: a
        page of a resolved document titled with the statement the question asks for), else 0.
    :param phrase_coverage: share of the question's adjacent term pairs that some top-k item
        holds as adjacent terms (0..1; ``rag.confidence_signals``).
    :param top_dense_rank: ``1 / rank`` of the top item in the dense list (0 when absent);
        ``top_keyword_rank`` likewise in the keyword list.
    :param question_terms: ``log1p`` of the number of distinct key terms of the question.
    :param period_match: 1 when the question names no year or the top item (text, title,
        section, path) holds one it names, else 0.
    """

    dense_top: float = 0.0
    dense_margin: float = 0.0
    keyword_top: float = 0.0
    keyword_margin: float = 0.0
    agreement: float = 0.0
    top_doc_agreement: float = 0.0
    coverage: float = 0.0
    number_coverage: float = 1.0
    doc_concentration: float = 0.0
    dense_spread: float = 0.0
    keyword_spread: float = 0.0
    page_support: float = 0.0
    phrase_coverage: float = 0.0
    top_dense_rank: float = 0.0
    top_keyword_rank: float = 0.0
    question_terms: float = 0.0
    period_match: float = 1.0

    def to_dict(self) -> dict[str, float]:
        """The features by name (route records, CLI output, calibration input)."""
        return {k: float(v) for k, v in asdict(self).items()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConfidenceFeatures:
        """Rebuild from :meth:`to_dict` output (unknown keys ignored, missing ones default)."""
        names = cls.__dataclass_fields__.keys()
        return cls(**{k: float(v) for k, v in data.items() if k in names})


@dataclass(frozen=True, slots=True)
class Confidence:
    """Calibrated probability (0..1) that the top-k holds the evidence, with its features."""

    value: float
    features: ConfidenceFeatures


@dataclass(frozen=True, slots=True)
class Retrieval:
    """What the retriever returns (never an exception for timeouts or index failures).

    :param question: the question as asked; ``collection`` the collection searched.
    :param items: up to top-k result items, best first.
    :param confidence: calibrated confidence and its features.
    :param mode: ``hybrid``, ``dense`` or ``keyword`` — what actually ran.
    :param timings_ms: milliseconds per stage (``tokenize``, ``embed``, ``dense_search``,
        ``keyword_search``, ``hybrid_search``, ``search`` = wall time of the index queries run
        side by side, ``fuse`` = fusion + confidence, ``total``).
    :param flags: what went wrong or was degraded (``keyword_only``, ``embed_timeout``,
        ``dense_search_timeout``, ``keyword_search_error`` …); empty when all ran.
    :param filter: the restriction applied, if any.
    :param key_terms: the question's key terms (normalised), as the tokenizer found them.
    :param resolution: document resolution (``rag.resolve.Resolution``) when it ran; when it was
        sure, ``filter`` holds the resolved documents.
    :param expansions: field-vocabulary phrases added to the keyword query (``rag.expand``).
    """

    question: str
    collection: str
    items: tuple[RetrievedChunk, ...]
    confidence: Confidence
    mode: RetrievalMode
    timings_ms: dict[str, float] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    filter: SearchFilter | None = None
    key_terms: tuple[str, ...] = ()
    resolution: Resolution | None = None
    expansions: tuple[str, ...] = ()

    @property
    def resolved_filter(self) -> SearchFilter | None:
        """The documents resolution was sure the question names, as a filter
        (:attr:`rag.resolve.Resolution.filter`); ``None`` when it did not run or was unsure."""
        return self.resolution.filter if self.resolution is not None else None

    @property
    def unknown_subjects(self) -> tuple[str, ...]:
        """The words (3+ letters, lower case) of the organisations the question asks about that
        no document's identity names (:attr:`rag.resolve.Resolution.unknown_subjects`): the
        answer's document must write them (``rag.decision``'s presence check); ``()`` when
        resolution did not run or named none."""
        names = self.resolution.unknown_subjects if self.resolution is not None else ()
        return tuple(dict.fromkeys(w for n in names for w in n.lower().split()
                                   if len(w) >= 3 and w.isalpha()))

    @property
    def chunks(self) -> list[Chunk]:
        """Every chunk of every item, best item first."""
        return [c for item in self.items for c in item.chunks]

    @property
    def degraded(self) -> bool:
        """True when any step timed out or failed, or dense search was unavailable."""
        return bool(self.flags)


class Retriever(Protocol):
    """A retrieval stage: ``run`` and ``run_async`` with identical signatures
    (``rag.stage.FlowStage`` gives both from one flow)."""

    def run(self, question: str, collection: str, *, top_k: int | None = None,
            flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid") -> Retrieval:
        """Retrieve the top-k items for ``question``."""

    async def run_async(self, question: str, collection: str, *, top_k: int | None = None,
                        flt: SearchFilter | None = None, mode: RetrievalMode = "hybrid"
                        ) -> Retrieval:
        """Async twin of :meth:`run` (same implementation)."""
