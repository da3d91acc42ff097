"""The document directory (issue 14 item 1): one entry per chunk — title (section path), a
one-line summary and 3–8 key terms — that a reader scans to pick the sections to read.

Entries are **extractive** by default (:func:`extractive_entries`): the title is the chunk's
section path (else the document title), the summary its lead sentence (a table: its column
names), the key terms the chunk's terms with the highest BM25 weight (term frequency with the
BM25 saturation and the Robertson–Spärck Jones IDF over the document's chunks; Robertson &
Zaragoza 2009 — within one document the IDF singles out what a section holds that its siblings
do not, which is what a directory is for; Qdrant keeps no collection-wide document frequencies
to read cheaply). An :class:`~corpus.directory_build.DirectoryBuilder` may have them written by
an LLM instead, cached by chunk content hash.

Storage: one vector-less record point per document (kind ``directory``, key ``doc_id``) in the
chunk store, written after the document's chunks are committed (:func:`save_directory`) and read
with one point lookup (:func:`load_directory`); a document without one (ingested before the
directory existed) gets its extractive entries built from its stored chunks on first read. A
document of more than :data:`DIRECTORY_PART` entries keeps the first part in that record and the
rest in records of kind ``directory_part`` (key ``doc_id:i``), so no single store write carries
a whole large file's directory (one 10,808-entry record had held the embedded engine's writer
for 0.9 s and added 96 MB to the process).

Usage example::

    entries = extractive_entries(chunks, Tokenizer())
    save_directory(store, "manuals", doc_id, entries)
    load_directory(store, "manuals", doc_id)[0].title       # '4 Storage > 4.2 Temperature'
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from corpus.chunker import is_junk_line
from corpus.tokenizer import BM25_K1, Tokenizer
from corpus.types import Chunk, ChunkStore, ListFieldsRecord

__all__ = [
    "DIRECTORY_KIND",
    "DIRECTORY_PART",
    "DIRECTORY_PART_KIND",
    "DIRECTORY_VERSION",
    "DirectoryEntry",
    "content_hash",
    "delete_directory",
    "extractive_entries",
    "iter_extractive_entries",
    "lead_sentence",
    "load_directory",
    "save_directory",
    "top_terms",
]

#: record kind of a document's directory in the chunk store
DIRECTORY_KIND = "directory"
#: record kind of the further parts of a large document's directory (key ``doc_id:i``, i >= 1)
DIRECTORY_PART_KIND = "directory_part"
#: entries per directory record
DIRECTORY_PART = 512
#: above this many chunks the extractive entries tokenize every chunk twice instead of holding
#: every chunk's term counts at once (memory bounded whatever the document's size)
_HOLD_COUNTS_MAX = 2048
#: bump when the extractive rules change: older records are rebuilt on read
DIRECTORY_VERSION = 1
SUMMARY_CHARS = 140
MIN_LEAD_CHARS = 12  # a lead sentence shorter than this takes the next one too
MIN_TERMS, MAX_TERMS = 3, 8

EntrySource = Literal["extractive", "llm"]
_SENTENCE_END = re.compile(r"(?<=[。！？；])|(?<=[.!?;])(?=\s)")
_HAS_WORD = re.compile(r"[^\W\d_]", re.UNICODE)
_NUMBERISH = re.compile(r"^[\d.,:/%\-]+$")


@dataclass(frozen=True, slots=True)
class DirectoryEntry(ListFieldsRecord):
    """One chunk's directory entry.

    :param chunk_id: the chunk it describes. :param title: its section path joined with
        `` > `` (the document title at top level). :param summary: one line, at most
        ``SUMMARY_CHARS`` characters. :param terms: 3–8 key terms (fewer only when the chunk
        holds fewer), as index terms of ``corpus.tokenizer``. :param page_start, page_end: the
        chunk's physical pages. :param content_hash: :func:`content_hash` of the chunk.
        :param source: ``extractive`` or ``llm``.
    """

    list_fields = ("terms",)

    chunk_id: str
    title: str
    summary: str
    terms: tuple[str, ...]
    page_start: int
    page_end: int
    content_hash: str
    source: EntrySource = "extractive"

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> DirectoryEntry:
        """Inverse of :meth:`to_data`."""
        return cls(**{**data, "terms": tuple(data.get("terms") or ())})

    def line(self) -> str:
        """The entry as one directory line: pages | title | summary | terms."""
        pages = f"p.{self.page_start}" + (f"-{self.page_end}" if self.page_end > self.page_start
                                           else "")
        terms = f" [{', '.join(self.terms)}]" if self.terms else ""
        return f"{pages} | {self.title or '(top)'} | {self.summary}{terms}"


def content_hash(chunk: Chunk) -> str:
    """sha256 hex of what an entry is written from: the chunk's title, section path and text
    (:meth:`Chunk.context_text` without the file name, so a renamed file keeps its entries)."""
    head = "\x1f".join((chunk.title, *chunk.section_path))
    return hashlib.sha256(f"{head}\x1e{chunk.text}".encode()).hexdigest()


def _title(chunk: Chunk) -> str:
    return " > ".join(chunk.section_path) if chunk.section_path else chunk.title


def lead_sentence(chunk: Chunk, max_chars: int = SUMMARY_CHARS) -> str:
    """The chunk's first sentence that is not its own heading nor a junk line (page number,
    running header); a table's column names; cut at ``max_chars`` with ``…``."""
    heads = {h.strip() for h in chunk.section_path}
    lines = [ln.strip() for ln in chunk.text.splitlines()]
    if chunk.kind == "table" or (lines and lines[0].startswith("|")):
        header = chunk.table_header()
        cols = [c.strip() for c in header.strip().strip("|").split("|") if c.strip()]
        if cols:
            return _cut("Table: " + ", ".join(cols), max_chars)
    body = [ln for ln in lines if ln and ln not in heads and not is_junk_line(ln)
            and _HAS_WORD.search(ln) and not ln.startswith("|")]
    lead = ""
    for sent in _SENTENCE_END.split(" ".join(body)):
        lead = f"{lead} {sent.strip()}".strip() if sent.strip() else lead
        if len(lead) >= MIN_LEAD_CHARS:  # "3." or "处理。" alone says nothing
            break
    return _cut(lead, max_chars)


def _cut(text: str, max_chars: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


def _useful(term: str) -> bool:
    if _NUMBERISH.match(term):
        return False  # a bare number or date names no topic
    return len(term) >= 2 and bool(_HAS_WORD.search(term))


def top_terms(counts: Counter[str], df: Counter[str], n_docs: int,
              limit: int = MAX_TERMS) -> tuple[str, ...]:
    """The ``limit`` terms of one chunk (``counts``: term → frequency) with the highest BM25
    weight ``idf · tf·(k1+1)/(tf+k1)`` (length normalisation left out: one chunk's terms are
    compared with each other), ``idf = ln(1 + (N − df + 0.5)/(df + 0.5))`` over ``n_docs``
    chunks with document frequencies ``df``. A term inside a higher-ranked one (``检查`` under
    ``健康检查``) is skipped; bare numbers and one-letter terms never count."""
    scored = []
    for t, tf in counts.items():
        if not _useful(t):
            continue
        idf = math.log(1.0 + (n_docs - df[t] + 0.5) / (df[t] + 0.5))
        scored.append((idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1), t))
    scored.sort(key=lambda x: (-x[0], x[1]))
    out: list[str] = []
    for _, t in scored:
        if any(t in kept for kept in out):
            continue
        out.append(t)
        if len(out) >= limit:
            break
    return tuple(out)


def extractive_entries(chunks: Collection[Chunk], tokenizer: Tokenizer | None = None
                       ) -> list[DirectoryEntry]:
    """Extractive entries of one document's chunks (in chunk order): title = section path,
    summary = :func:`lead_sentence`, terms = :func:`top_terms` with the IDF over these chunks.
    Cost: one tokenizer pass over each chunk's text (no model); two passes above
    ``_HOLD_COUNTS_MAX`` chunks, holding only the document frequencies between them."""
    return list(iter_extractive_entries(chunks, tokenizer))


def iter_extractive_entries(chunks: Collection[Chunk], tokenizer: Tokenizer | None = None
                            ) -> Iterator[DirectoryEntry]:
    """:func:`extractive_entries` one at a time (a large document's entries are saved as they
    come, never all held); ``chunks`` is read twice above ``_HOLD_COUNTS_MAX`` chunks (a
    re-iterable stream such as ``corpus.chunker.DocumentChunks`` will do)."""
    tok = tokenizer or Tokenizer()
    n = len(chunks)
    hold = n <= _HOLD_COUNTS_MAX
    counts = [Counter(tok.terms(c.text)) for c in chunks] if hold else []
    df: Counter[str] = Counter()
    for cnt in counts if hold else (Counter(tok.terms(c.text)) for c in chunks):
        df.update(cnt.keys())
    for i, c in enumerate(chunks):
        yield DirectoryEntry(c.chunk_id, _title(c), lead_sentence(c),
                             top_terms(counts[i] if hold else Counter(tok.terms(c.text)), df, n),
                             c.page_start, c.page_end, content_hash(c))


def save_directory(store: Any, collection: str, doc_id: str,
                   entries: Iterable[DirectoryEntry]) -> int:
    """Write a document's entries as its directory record (replacing an older one), in parts
    of :data:`DIRECTORY_PART` entries: the further parts first, each as soon as it is full
    (``entries`` may be a generator: at most two parts are held), the head record (``parts`` =
    how many) last, so a reader that finds the head finds every part.

    :param store: a :class:`corpus.qdrant_store.QdrantChunkStore` (``put_record``).
    :returns: the number of entries written.
    :raises StoreError: on backend failure."""
    head: list[DirectoryEntry] = []
    part: list[DirectoryEntry] = []
    parts, n = 1, 0
    for e in entries:
        n += 1
        if len(head) < DIRECTORY_PART:
            head.append(e)
            continue
        part.append(e)
        if len(part) == DIRECTORY_PART:
            store.put_record(collection, DIRECTORY_PART_KIND, f"{doc_id}:{parts}",
                             {"entries": [x.to_data() for x in part]})
            parts, part = parts + 1, []
    if part:
        store.put_record(collection, DIRECTORY_PART_KIND, f"{doc_id}:{parts}",
                         {"entries": [x.to_data() for x in part]})
        parts += 1
    store.put_record(collection, DIRECTORY_KIND, doc_id, {
        "version": DIRECTORY_VERSION, "parts": parts,
        "entries": [e.to_data() for e in head]})
    return n


def delete_directory(store: Any, collection: str, doc_id: str) -> None:
    """Delete a document's directory record and its parts (no-op when there is none)."""
    head = store.record(collection, DIRECTORY_KIND, doc_id)
    for i in range(1, int((head or {}).get("parts") or 1)):
        store.delete_record(collection, DIRECTORY_PART_KIND, f"{doc_id}:{i}")
    store.delete_record(collection, DIRECTORY_KIND, doc_id)


def load_directory(store: ChunkStore, collection: str, doc_id: str,
                   tokenizer: Tokenizer | None = None) -> list[DirectoryEntry]:
    """A document's entries in chunk order: its directory record when the store has one of the
    current :data:`DIRECTORY_VERSION` (LLM-written entries are kept whatever the version),
    else extractive entries built from its stored chunks (not saved: reading never writes).
    ``[]`` for an unknown document.

    :raises StoreError: on backend failure."""
    get = getattr(store, "record", None)
    data = get(collection, DIRECTORY_KIND, doc_id) if get is not None else None
    if data and data.get("entries"):
        rows = list(data["entries"])
        for i in range(1, int(data.get("parts") or 1)):
            part = get(collection, DIRECTORY_PART_KIND, f"{doc_id}:{i}") if get else None
            if part is None:  # a part lost: rebuild from the chunks rather than serve a gap
                rows = []
                break
            rows.extend(part.get("entries") or [])
        entries = [DirectoryEntry.from_data(d) for d in rows]
        if entries and (data.get("version") == DIRECTORY_VERSION
                        or any(e.source == "llm" for e in entries)):
            return entries
    return extractive_entries(store.document_chunks(collection, doc_id), tokenizer)
