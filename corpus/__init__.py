"""Document layer: parsers, structure-aware chunking, CJK tokenizer, catalogue, chunk store."""

from corpus import types as _types
from corpus.errors import CorpusError, LoopGateError, ParseError, StoreError
from corpus.types import *  # noqa: F403  (its __all__, re-exported below)

__all__ = [
    "CorpusError",
    "LoopGateError",
    "ParseError",
    "StoreError",
]
__all__ += _types.__all__
