"""Document layer: parsers, structure-aware chunking, CJK tokenizer, catalogue, chunk store."""

from corpus.errors import CorpusError, LoopGateError, ParseError, StoreError
from corpus.types import (
    Block,
    Chunk,
    ChunkStore,
    Citation,
    DocumentInfo,
    OutlineEntry,
    ParsedDocument,
    PassageEmbedder,
    SearchFilter,
    SearchHit,
    SparseVector,
)

__all__ = [
    "Block",
    "Chunk",
    "ChunkStore",
    "Citation",
    "CorpusError",
    "DocumentInfo",
    "LoopGateError",
    "OutlineEntry",
    "ParseError",
    "ParsedDocument",
    "PassageEmbedder",
    "SearchFilter",
    "SearchHit",
    "SparseVector",
    "StoreError",
]
