"""The per-file work of an ingest run — parse → chunk → keyword vectors → dense vectors — as
one picklable function, :func:`prepare`, run in this process or in a worker process
(``corpus._ingest_worker`` holds the pools), and what it returns: a :class:`Prepared` document
or a :class:`Failure`.

Results cross the process boundary as plain picklable objects: a parser error is returned as
``Failure(code, message)``, never raised, because exception objects with required arguments do
not survive pickling. A worker process holds at most one embedder, loaded once when it starts
(:func:`load_worker_embedder`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from corpus.chunker import DocumentChunks
from corpus.errors import ParseError
from corpus.tuning import TUNING
from corpus.types import Chunk, OutlineEntry, ParsedDocument, PassageEmbedder, SparseVector

__all__ = ["Failure", "ParseFn", "Prepared", "embed_texts", "load_worker_embedder", "prepare"]

ParseFn = Callable[[Path], ParsedDocument]


@dataclass(slots=True)
class Prepared:
    """A parsed, chunked and keyword-vectorised document, ready to write."""

    doc_id: str
    title: str
    media_type: str
    page_count: int
    chunks: list[Chunk] | DocumentChunks  # a stream in this process (``keyword=False``)
    sparse: list[SparseVector]
    outline: list[OutlineEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    text_key: str = ""  # corpus.text_identity.document_key: exact duplicates
    loose_key: str = ""  # corpus.text_identity.loose_key: probable duplicates
    dense: list[list[float]] | None = None  # computed in the worker (``embed`` factory given)


@dataclass(frozen=True, slots=True)
class Failure:
    """A per-file error: a ``PARSE_ERROR_CODES`` key (or ``store_error``) and a message."""

    code: str
    message: str


def _default_parse(path: Path) -> ParsedDocument:
    from corpus.parsers import parse_file

    return parse_file(path)


#: the worker process's embedder, built once by the pool initializer (``None``: do not embed)
_EMBEDDER: PassageEmbedder | None = None


def prepare(path: str, rel_path: str, parse: ParseFn | None = None, *,
            keyword: bool = True) -> Prepared | Failure:
    """Parse ``path``, chunk it (chunks carry ``rel_path``), compute each chunk's sparse
    vector from :meth:`Chunk.context_text` (not with ``keyword=False``: ``sparse`` is then
    empty — and ``chunks``, for a document of more than ``TUNING.ingest.stream_chars``
    characters (``corpus.tuning``; each pass over a stream chunks it again), a
    :class:`corpus.chunker.DocumentChunks` stream — and the writer chunks and computes the
    vectors batch by batch, so a large file's chunks and vectors are never all in memory at
    once) and the document's text keys
    (``corpus.text_identity``), and — in a worker started with an ``embed`` factory — each
    chunk's dense vector. Never raises for a bad file: returns a :class:`Failure`
    (``corrupt`` for an unexpected library error, ``no_text`` when nothing could be chunked);
    an embedding failure leaves ``dense`` None (the parent embeds, and reports its error)."""
    from corpus.chunker import chunk_document
    from corpus.text_identity import document_key, loose_key
    from corpus.tokenizer import Tokenizer

    try:
        doc = (parse or _default_parse)(Path(path))
        size = sum(len(b.text) for b in doc.blocks)
        streamed = not keyword and size > TUNING.ingest.stream_chars
        chunks: list[Chunk] | DocumentChunks = (
            DocumentChunks(doc, rel_path) if streamed else chunk_document(doc, rel_path=rel_path))
        if not chunks:
            return Failure("no_text", f"{path}: the document holds no extractable text")
    except ParseError as exc:
        return Failure(exc.code, exc.message)
    except MemoryError:
        return Failure("corrupt", f"{path}: parsing ran out of memory")
    except Exception as exc:  # a parser bug must not end the batch
        return Failure("corrupt", f"{path}: parsing failed ({type(exc).__name__}: {exc})")
    sparse: list[SparseVector] = []
    if keyword:
        tok = Tokenizer()
        sparse = [tok.sparse(c.context_text()) for c in chunks]
    dense = None
    if _EMBEDDER is not None and keyword:
        texts = [c.context_text() for c in chunks]
        try:
            dense = _EMBEDDER.embed_passages(texts)
        except Exception:  # noqa: BLE001 - the parent embeds again and reports the error
            dense = None
    return Prepared(
        doc.doc_id,
        doc.title,
        doc.media_type,
        doc.page_count,
        chunks,
        sparse,
        list(doc.outline),
        list(doc.warnings),
        document_key(doc.blocks),
        loose_key(doc.blocks),
        dense,
    )


def load_worker_embedder(embed: Callable[[], PassageEmbedder]) -> None:
    """Build this worker process's embedder from ``embed`` and load its model now (beside the
    other workers); :func:`prepare` and :func:`embed_texts` use it."""
    global _EMBEDDER
    _EMBEDDER = embed()
    warm = getattr(_EMBEDDER, "warm_up", None)
    if callable(warm):
        warm()


def embed_texts(texts: list[str]) -> list[list[float]]:
    """One embed task: the dense vectors of ``texts`` by this embed worker's embedder."""
    if _EMBEDDER is None:  # pragma: no cover - the pool initializer always sets it
        raise RuntimeError("embed worker without an embedder")
    return _EMBEDDER.embed_passages(texts)
