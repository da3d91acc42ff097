"""Building the document directory at ingest (issue 14 item 1): extractive entries, or entries
written by an LLM in batches, cached by chunk content hash, with the extractive entry as the
fallback whenever the model fails, times out or replies with nothing usable — the ingest goes on.
A reply with nothing usable for a chunk is cached too (as an empty summary: keep the extractive
entry); a fault or timeout is not, so the next ingest asks again.

The model side is a :class:`EntryWriter` (``loop.entry_writer.LLMEntryWriter`` wraps an
OpenAI-compatible server; the corpus layer does not import it). The cache
(:class:`EntryCache`, one SQLite file) keys an entry on the writer's name (model + prompt
version) and the chunk's :func:`~corpus.directory.content_hash`: a re-ingest of unchanged
chunks — an unchanged corpus into a new collection, or the unchanged sections of an edited
document — calls the model 0 times; unchanged files are skipped by the ingest before that.

Usage example::

    builder = DirectoryBuilder(Tokenizer(), writer=LLMEntryWriter(cfg), cache=EntryCache(path))
    Ingestor(store, Tokenizer(), embedder, directory=builder).ingest_paths([docs], "manuals")
    builder.stats            # DirectoryStats(entries=…, llm_calls=…, cached=…, fallbacks=…)
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from corpus.directory import (
    MAX_TERMS,
    MIN_TERMS,
    SUMMARY_CHARS,
    DirectoryEntry,
    delete_directory,
    extractive_entries,
    iter_extractive_entries,
    save_directory,
)
from corpus.tokenizer import Tokenizer
from corpus.tuning import TUNING
from corpus.types import Chunk

__all__ = ["DirectoryBuilder", "DirectoryStats", "EntryCache", "EntryWriter", "WrittenEntry"]

log = logging.getLogger(__name__)

#: (summary, key terms) as a model wrote them; ``None`` = no usable entry for that chunk
WrittenEntry = tuple[str, Sequence[str]] | None


class EntryWriter(Protocol):
    """Writes directory entries for a batch of chunks (an LLM).

    ``name`` identifies model and prompt (part of the cache key). ``write_entries`` returns one
    item per chunk, in order; it may raise any exception (the batch then falls back to the
    extractive entries)."""

    name: str

    def write_entries(self, chunks: Sequence[Chunk]) -> list[WrittenEntry]:
        """One ``(summary, terms)`` or ``None`` per chunk."""


class EntryCache:
    """Model-written entries by ``(writer name, chunk content hash)`` in one SQLite file
    (``":memory:"`` for a process-local cache). Thread-safe.

    :param path: the database file (its folder is created)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        self._lock = threading.Lock()
        with self._lock, self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS entries "
                             "(key TEXT PRIMARY KEY, summary TEXT, terms TEXT)")

    @staticmethod
    def key(writer: str, digest: str) -> str:
        """The cache key of a chunk's entry by one writer."""
        return hashlib.sha256(f"{writer}\x00{digest}".encode()).hexdigest()

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[str, tuple[str, ...]]]:
        """The cached ``(summary, terms)`` of the keys present."""
        out: dict[str, tuple[str, tuple[str, ...]]] = {}
        with self._lock:
            for start in range(0, len(keys), 500):
                part = list(keys[start:start + 500])
                rows = self._db.execute(
                    f"SELECT key, summary, terms FROM entries WHERE key IN "
                    f"({','.join('?' * len(part))})", part).fetchall()
                out.update({k: (s, tuple(json.loads(t))) for k, s, t in rows})
        return out

    def put_many(self, items: dict[str, tuple[str, tuple[str, ...]]]) -> None:
        """Store entries (replacing older ones of the same key)."""
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)",
                                 [(k, s, json.dumps(list(t), ensure_ascii=False))
                                  for k, (s, t) in items.items()])

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        self._db.close()


@dataclass(slots=True)
class DirectoryStats:
    """What the builder did so far: ``entries`` built, ``llm_written`` by the model in this
    run, ``cached`` taken from the cache, ``fallbacks`` left extractive with a writer
    configured (model fault, timeout, unusable reply), ``llm_calls`` (batches sent),
    ``seconds`` spent building (extractive + model + cache), ``errors`` (last few),
    ``short``: chunks not sent to the model because their whole text fits in a summary
    (``short_chars``; their extractive entry holds it)."""

    entries: int = 0
    llm_written: int = 0
    cached: int = 0
    fallbacks: int = 0
    short: int = 0
    llm_calls: int = 0
    seconds: float = 0.0
    errors: tuple[str, ...] = ()


class DirectoryBuilder:
    """Builds and stores a document's directory at ingest (see the module docstring).

    :param tokenizer: the keyword tokenizer (extractive key terms; LLM terms normalised).
    :param writer: an :class:`EntryWriter`, or ``None`` for extractive entries only. A chunk
        whose text (spaces collapsed) fits in ``short_chars`` is not sent to it: a summary
        of it is no shorter than the chunk (139 of the 563 chunks of the 8 zh-PDF eval
        documents; each chunk sent cost 39 s at 1 server thread on 2 busy cores).
    :param cache: the :class:`EntryCache` of model-written entries (default: in memory).
    :param batch: chunks per model call.
    :param timeout_s: seconds one batch may take; then its chunks stay extractive and the
        ingest goes on (the call is left to finish in its thread, its reply discarded).
    :param max_failures: model faults in a row after which the writer is not called again by
        this builder (the rest of the run is extractive).
    :param short_chars: chunks this short keep their extractive entry (default
        ``TUNING.ingest.short_chunk_chars``, ``corpus.tuning``: the summary's own bound,
        ``SUMMARY_CHARS``; ``0`` sends every chunk).
    """

    def __init__(self, tokenizer: Tokenizer | None = None, *, writer: EntryWriter | None = None,
                 cache: EntryCache | None = None, batch: int = 8, timeout_s: float = 120.0,
                 max_failures: int = 3,
                 short_chars: int = TUNING.ingest.short_chunk_chars) -> None:
        self.tokenizer = tokenizer or Tokenizer()
        self.writer, self.batch, self.timeout_s = writer, max(1, batch), timeout_s
        self.cache = cache if cache is not None else (EntryCache() if writer else None)
        self.max_failures, self._failures = max_failures, 0
        self.short_chars = short_chars
        self.stats = DirectoryStats()
        self._pool: ThreadPoolExecutor | None = None

    def build(self, chunks: Collection[Chunk]) -> list[DirectoryEntry]:
        """Entries for one document's chunks, in order: cached or model-written where a writer
        is configured, extractive otherwise. Never raises for model faults."""
        t0 = time.perf_counter()
        entries = extractive_entries(chunks, self.tokenizer)
        if self.writer is not None and self.cache is not None and entries:
            entries = self._overlay(list(chunks), entries)
        self.stats.entries += len(entries)
        self.stats.seconds += time.perf_counter() - t0
        return entries

    def write(self, store: Any, collection: str, doc_id: str, chunks: Collection[Chunk],
              previous_doc_id: str | None = None) -> str:
        """Build and save ``doc_id``'s directory; delete the directory of the version it
        replaces (``previous_doc_id``) when no chunk of that version is left. Returns ``""``,
        or a warning when the directory could not be stored (the document stays indexed)."""
        try:
            if self.writer is None:  # extractive: saved as they come, never all held
                t0 = time.perf_counter()
                self.stats.entries += save_directory(
                    store, collection, doc_id, iter_extractive_entries(chunks, self.tokenizer))
                self.stats.seconds += time.perf_counter() - t0
            else:
                save_directory(store, collection, doc_id, self.build(chunks))
            if previous_doc_id and previous_doc_id != doc_id \
                    and not store.count_chunks(collection, previous_doc_id):
                delete_directory(store, collection, previous_doc_id)
        except Exception as exc:  # noqa: BLE001 - the directory must never fail an ingest
            log.warning("directory of %s not stored: %s", doc_id[:12], exc)
            return f"directory_failed: {type(exc).__name__}: {exc}"[:300]
        return ""

    def _overlay(self, chunks: list[Chunk], entries: list[DirectoryEntry]
                 ) -> list[DirectoryEntry]:
        assert self.writer is not None and self.cache is not None
        name = self.writer.name
        keys = [EntryCache.key(name, e.content_hash) for e in entries]
        have = self.cache.get_many(keys)
        out = list(entries)
        todo = []
        for i, k in enumerate(keys):
            if len(" ".join(chunks[i].text.split())) <= self.short_chars:
                self.stats.short += 1  # the extractive entry holds the whole chunk
            elif k in have:  # an empty summary: the model had nothing usable, keep extractive
                out[i] = self._entry(entries[i], *have[k]) if have[k][0] else entries[i]
                self.stats.cached += 1
            else:
                todo.append(i)
        for start in range(0, len(todo), self.batch):
            part = todo[start:start + self.batch]
            written, replied = self._call([chunks[i] for i in part])
            fresh: dict[str, tuple[str, tuple[str, ...]]] = {}
            for i, w in zip(part, written, strict=True):
                clean = self._clean(w, entries[i])
                if clean is None:
                    self.stats.fallbacks += 1
                    if replied:  # the model answered with nothing usable: remember that too
                        fresh[keys[i]] = ("", ())
                    continue
                out[i] = self._entry(entries[i], *clean)
                fresh[keys[i]] = clean
                self.stats.llm_written += 1
            if fresh:
                self.cache.put_many(fresh)
        return out

    def _call(self, chunks: list[Chunk]) -> tuple[list[WrittenEntry], bool]:
        """The writer's reply for one batch under ``timeout_s`` and whether it replied;
        ``([None…], False)`` on any fault (not cached: the next ingest asks again)."""
        none: list[WrittenEntry] = [None] * len(chunks)
        if self.writer is None or self._failures >= self.max_failures:
            return none, False
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="directory-writer")
        self.stats.llm_calls += 1
        try:
            got = self._pool.submit(self.writer.write_entries, chunks).result(self.timeout_s)
            if len(got) != len(chunks):
                raise ValueError(f"{len(got)} entries for {len(chunks)} chunks")
        except FutureTimeout:
            self._pool = None  # leave the hung call behind; the next batch gets a fresh thread
            return self._fault(none, f"timed out after {self.timeout_s:g} s"), False
        except Exception as exc:  # noqa: BLE001 - any model fault: extractive entries
            return self._fault(none, f"{type(exc).__name__}: {exc}"), False
        self._failures = 0
        return list(got), True

    def _fault(self, none: list[WrittenEntry], why: str) -> list[WrittenEntry]:
        self._failures += 1
        self.stats.errors = (*self.stats.errors[-4:], why[:200])
        log.warning("directory writer failed (%d in a row): %s", self._failures, why)
        return none

    def _clean(self, written: WrittenEntry, base: DirectoryEntry
               ) -> tuple[str, tuple[str, ...]] | None:
        """A usable model entry: one line of summary (cut to ``SUMMARY_CHARS``), terms
        normalised like index terms, topped up from the extractive terms to ``MIN_TERMS``,
        at most ``MAX_TERMS``; ``None`` when the summary is empty."""
        if not written:
            return None
        summary = " ".join(str(written[0] or "").split())
        if not summary:
            return None
        if len(summary) > SUMMARY_CHARS:
            summary = summary[: SUMMARY_CHARS - 1].rstrip() + "…"
        norm = self.tokenizer.normalize
        terms = [t for t in dict.fromkeys(" ".join(norm(str(x)).split())
                                          for x in (written[1] or ())) if t][:MAX_TERMS]
        for t in base.terms:
            if len(terms) >= MIN_TERMS:
                break
            if t not in terms:
                terms.append(t)
        return summary, tuple(terms)

    @staticmethod
    def _entry(base: DirectoryEntry, summary: str, terms: tuple[str, ...]) -> DirectoryEntry:
        return replace(base, summary=summary, terms=terms, source="llm")
