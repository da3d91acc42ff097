"""RAG fast path: multilingual dense embedder (fastembed), hybrid retrieval (dense + BM25 fused
by weighted RRF) over the chunk store, calibrated confidence, extractive answers with verified
page-and-line citations. Sync and async entry points share one flow (``rag.steps``)."""

from rag.confidence import (
    FEATURE_NAMES,
    LogisticConfidence,
    auroc,
    compute_features,
    fit_logistic,
    refit_calibration,
)
from rag.embed_model import load_text_embedding
from rag.embedder import (
    DEFAULT_EMBED_MODEL,
    FastEmbedEmbedder,
    check_collection,
    startup_check,
)
from rag.errors import (
    CalibrationError,
    CollectionMismatchError,
    EmbedderError,
    EmbedderUnavailable,
    RetrievalError,
)
from rag.extractive import (
    NOT_FOUND_TEXT,
    display_text,
    evidence_units,
    extract_answer,
    score_unit,
)
from rag.fusion import document_priors, fuse, merge_adjacent, title_match
from rag.pipeline import RagPipeline
from rag.retriever import HybridRetriever, resolve_filter
from rag.steps import Outcome, Step, drive_async, drive_sync
from rag.types import (
    FLAG_KEYWORD_ONLY,
    Confidence,
    ConfidenceFeatures,
    ConfidenceScorer,
    Evidence,
    QueryEmbedder,
    QueryTokenizer,
    RagAnswer,
    Retrieval,
    RetrievalConfig,
    RetrievalMode,
    RetrievedChunk,
    Retriever,
)

__all__ = [
    "CalibrationError",
    "CollectionMismatchError",
    "Confidence",
    "ConfidenceFeatures",
    "ConfidenceScorer",
    "DEFAULT_EMBED_MODEL",
    "EmbedderError",
    "EmbedderUnavailable",
    "Evidence",
    "FEATURE_NAMES",
    "FLAG_KEYWORD_ONLY",
    "FastEmbedEmbedder",
    "HybridRetriever",
    "LogisticConfidence",
    "NOT_FOUND_TEXT",
    "Outcome",
    "QueryEmbedder",
    "QueryTokenizer",
    "RagAnswer",
    "RagPipeline",
    "Retrieval",
    "RetrievalConfig",
    "RetrievalError",
    "RetrievalMode",
    "RetrievedChunk",
    "Retriever",
    "Step",
    "auroc",
    "check_collection",
    "compute_features",
    "display_text",
    "document_priors",
    "drive_async",
    "drive_sync",
    "evidence_units",
    "extract_answer",
    "fit_logistic",
    "fuse",
    "load_text_embedding",
    "merge_adjacent",
    "refit_calibration",
    "resolve_filter",
    "score_unit",
    "startup_check",
    "title_match",
]
