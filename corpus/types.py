"""Data contracts of the document layer (see ../shared/DESIGN.md, "Key contracts").

Everything above ``corpus`` (``rag``, ``loop``, ``gateway``) speaks in these types:

- :class:`Block` – one structural unit a parser found (heading, paragraph, table) with its
  1-based physical page and 1-based line numbers within that page.
- :class:`ParsedDocument` – a parser's whole output for one file.
- :class:`Chunk` – the unit of retrieval and of citation; stored as a Qdrant point payload.
- :class:`Citation` – a verified pointer from an answer into a chunk.
- :class:`SparseVector` – keyword (BM25) vector; IDF is applied by Qdrant (``Modifier.IDF``).
- :class:`SearchHit` – one chunk returned by a store query, with its score.
- :class:`ChunkStore` – the protocol every chunk-store backend implements.

They are defined in ``corpus._parsed`` (parser output), ``corpus._chunk`` (chunk, citation) and
``corpus._store_types`` (vectors, filters, hits, protocols), and the JSON-safe record mixin
:class:`ListFieldsRecord` in ``corpus._record``; import them from here.
"""

from corpus._chunk import Chunk, ChunkKind, Citation, document_name
from corpus._parsed import Block, BlockKind, LineSpan, OutlineEntry, ParsedDocument
from corpus._record import ListFieldsRecord
from corpus._store_types import (
    ChunkStore,
    DocumentInfo,
    PassageEmbedder,
    SearchFilter,
    SearchHit,
    SparseVector,
)

__all__ = [
    "Block",
    "BlockKind",
    "Chunk",
    "ChunkKind",
    "ChunkStore",
    "Citation",
    "DocumentInfo",
    "LineSpan",
    "ListFieldsRecord",
    "OutlineEntry",
    "ParsedDocument",
    "PassageEmbedder",
    "SearchFilter",
    "SearchHit",
    "SparseVector",
    "document_name",
]

