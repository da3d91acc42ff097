"""The document directory (issue 14 item 1): extractive entries, storage beside the chunks,
and model-written entries cached by chunk content hash (a counting writer, no model)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from corpus.directory import (
    DIRECTORY_KIND,
    MAX_TERMS,
    MIN_TERMS,
    content_hash,
    extractive_entries,
    load_directory,
)
from corpus.directory_build import DirectoryBuilder, EntryCache
from corpus.ingest import Ingestor
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk

ZH = """# 产品手册

## 1 概述

本产品是一款工业级温湿度传感器。它适用于仓库和机房的环境监测。

## 2 存储条件

产品应存放在干燥通风的仓库内，存储温度为 -40 ℃ 至 85 ℃，相对湿度不超过 90%。

## 3 保修

保修期为自购买之日起十二个月。人为损坏不在保修范围内。
"""

EN = """# Handbook

## Travel policy

Employees book flights through the travel desk. Economy class is the default for flights
under six hours; business class needs a director's approval.

## Expense reports

Expense reports are due within 30 days of the trip. Receipts are required for every item
above 25 dollars.

## Pricing table

| Plan | Price | Seats |
|---|---|---|
| Basic | 10 | 5 |
| Team | 50 | 25 |
"""


def _chunks(store: QdrantChunkStore, collection: str) -> list[Chunk]:
    from corpus.catalogue import Catalogue

    out: list[Chunk] = []
    for e in Catalogue(store).entries(collection).values():
        out += store.document_chunks(collection, e.info.doc_id)
    return out


def _docs(tmp: Path) -> Path:
    d = tmp / "docs"
    d.mkdir()
    (d / "manual.md").write_text(ZH, encoding="utf-8")
    (d / "handbook.md").write_text(EN, encoding="utf-8")
    return d


class CountingWriter:
    """An :class:`EntryWriter` that writes 'summary of <first line>' and counts its calls;
    ``fail`` makes every call raise, ``hang`` makes it block until released."""

    name = "counting-writer/v1"

    def __init__(self, fail: bool = False, hang: bool = False) -> None:
        self.calls = 0
        self.chunks = 0
        self.fail, self.hang = fail, hang
        self.release = threading.Event()

    def write_entries(self, chunks: Sequence[Chunk]) -> list[tuple[str, list[str]] | None]:
        self.calls += 1
        self.chunks += len(chunks)
        if self.hang:
            self.release.wait(5)
        if self.fail:
            raise ConnectionError("model server down")
        return [(f"summary of {c.text.splitlines()[0][:30]}", ["Model Term", "温度"])
                for c in chunks]


def test_extractive_entries_title_lead_and_distinctive_terms(store: QdrantChunkStore,
                                                              tmp_path: Path) -> None:
    Ingestor(store, Tokenizer(), workers=1).ingest_paths([_docs(tmp_path)], "c")
    chunks = _chunks(store, "c")
    entries = {e.chunk_id: e for e in extractive_entries(chunks, Tokenizer())}
    by_title = {e.title: e for e in entries.values()}
    storage = next(e for t, e in by_title.items() if t.endswith("2 存储条件"))
    assert storage.summary.startswith("产品应存放在干燥通风的仓库内")
    assert "存储" not in storage.summary[:2]  # not the heading
    assert MIN_TERMS <= len(storage.terms) <= MAX_TERMS
    assert "湿度" in storage.terms or "温度" in storage.terms or "存储" in storage.terms
    travel = next(e for t, e in by_title.items() if t.endswith("Travel policy"))
    assert travel.summary == "Employees book flights through the travel desk."
    assert any(t.startswith("flight") or t == "travel" for t in travel.terms)
    table = next(e for t, e in by_title.items() if t.endswith("Pricing table"))
    assert table.summary == "Table: Plan, Price, Seats"
    for c in chunks:  # every entry is its chunk's, with its pages and hash
        e = entries[c.chunk_id]
        assert (e.page_start, e.page_end, e.content_hash) == (c.page_start, c.page_end,
                                                              content_hash(c))
        assert e.source == "extractive" and len(e.summary) <= 140


def test_directory_stored_with_the_document_and_replaced_with_it(store: QdrantChunkStore,
                                                                  tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    ing = Ingestor(store, Tokenizer(), workers=1, directory=DirectoryBuilder(Tokenizer()))
    ing.ingest_paths([docs], "c")
    Ingestor(store, Tokenizer(), workers=1).ingest_paths([docs], "plain")
    assert store.count_chunks("c") == store.count_chunks("plain")  # records are no chunks
    stored = store.records("c", DIRECTORY_KIND)
    chunks = _chunks(store, "c")
    assert set(stored) == {c.doc_id for c in chunks}
    manual = next(c for c in chunks if c.path == "manual.md")
    got = load_directory(store, "c", manual.doc_id)
    assert [e.chunk_id for e in got] == [c.chunk_id for c in chunks if c.doc_id == manual.doc_id]
    (docs / "manual.md").write_text(ZH.replace("十二个月", "二十四个月"), encoding="utf-8")
    ing.ingest_paths([docs], "c")
    new = {c.doc_id for c in _chunks(store, "c")}
    assert set(store.records("c", DIRECTORY_KIND)) == new  # the old version's is gone
    assert manual.doc_id not in new


def test_documents_without_a_record_get_extractive_entries_on_read(store: QdrantChunkStore,
                                                                    tmp_path: Path) -> None:
    Ingestor(store, Tokenizer(), workers=1).ingest_paths([_docs(tmp_path)], "c")
    assert store.records("c", DIRECTORY_KIND) == {}
    doc = _chunks(store, "c")[0].doc_id
    got = load_directory(store, "c", doc)
    assert got and all(e.source == "extractive" for e in got)
    assert store.records("c", DIRECTORY_KIND) == {}  # reading never writes
    assert load_directory(store, "c", "0" * 64) == []


def test_model_entries_cached_by_content_hash(store: QdrantChunkStore, tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    cache = EntryCache(tmp_path / "cache" / "entries.sqlite3")
    writer = CountingWriter()
    builder = DirectoryBuilder(Tokenizer(), writer=writer, cache=cache, batch=2, short_chars=0)
    report = Ingestor(store, Tokenizer(), workers=1, directory=builder).ingest_paths([docs], "a")
    assert writer.chunks == report.chunks and writer.calls == builder.stats.llm_calls > 0
    doc = _chunks(store, "a")[0].doc_id
    entries = load_directory(store, "a", doc)
    assert all(e.source == "llm" and e.summary.startswith("summary of") for e in entries)
    assert all("model term" in e.terms and len(e.terms) >= MIN_TERMS for e in entries)
    # the same corpus into another collection, with a new builder on the same cache file:
    # the model is called 0 times
    again = CountingWriter()
    b2 = DirectoryBuilder(Tokenizer(), writer=again, batch=2, short_chars=0,
                          cache=EntryCache(tmp_path / "cache" / "entries.sqlite3"))
    Ingestor(store, Tokenizer(), workers=1, directory=b2).ingest_paths([docs], "b")
    assert again.calls == 0 and b2.stats.cached == report.chunks
    # one section edited: only the changed chunk goes to the model
    (docs / "manual.md").write_text(ZH.replace("十二个月", "二十四个月"), encoding="utf-8")
    Ingestor(store, Tokenizer(), workers=1, directory=b2).ingest_paths([docs], "b")
    assert again.calls == 1 and again.chunks == 1


def test_model_faults_fall_back_to_extractive_and_ingest_goes_on(store: QdrantChunkStore,
                                                                  tmp_path: Path) -> None:
    docs = _docs(tmp_path)
    broken = CountingWriter(fail=True)
    b = DirectoryBuilder(Tokenizer(), writer=broken, batch=1, max_failures=2, short_chars=0)
    report = Ingestor(store, Tokenizer(), workers=1, directory=b).ingest_paths([docs], "c")
    assert report.counts.get("ingested") == 2
    assert broken.calls == 2  # then the writer is not called again in this run
    assert b.stats.fallbacks == report.chunks and b.stats.llm_written == 0
    assert all(e.source == "extractive" for c in _chunks(store, "c")
               for e in load_directory(store, "c", c.doc_id))
    hung = CountingWriter(hang=True)
    b2 = DirectoryBuilder(Tokenizer(), writer=hung, batch=50, timeout_s=0.2, short_chars=0)
    chunks = _chunks(store, "c")
    got = b2.build(chunks[:2])
    hung.release.set()
    assert [e.source for e in got] == ["extractive", "extractive"]
    assert b2.stats.errors and "timed out" in b2.stats.errors[0]


class PartialWriter(CountingWriter):
    """Replies, but with nothing usable for the chunks holding 保修."""

    def write_entries(self, chunks: Sequence[Chunk]) -> list[tuple[str, list[str]] | None]:
        got = super().write_entries(chunks)
        return [None if "保修" in c.text else g for c, g in zip(chunks, got, strict=True)]


def test_an_unusable_reply_is_cached_but_a_fault_is_asked_again(store: QdrantChunkStore,
                                                                 tmp_path: Path) -> None:
    Ingestor(store, Tokenizer(), workers=1).ingest_paths([_docs(tmp_path)], "c")
    chunks = _chunks(store, "c")
    cache = EntryCache()
    w = PartialWriter()
    first = DirectoryBuilder(Tokenizer(), writer=w, cache=cache, short_chars=0).build(chunks)
    kept = [e for c, e in zip(chunks, first, strict=True) if "保修" in c.text]
    assert kept and all(e.source == "extractive" for e in kept)
    again = DirectoryBuilder(Tokenizer(), writer=w, cache=cache, short_chars=0)
    assert again.build(chunks) == first and w.calls == 1 and again.stats.cached == len(chunks)
    down = CountingWriter(fail=True)
    b = DirectoryBuilder(Tokenizer(), writer=down, cache=EntryCache(), short_chars=0)
    b.build(chunks)
    b.build(chunks)
    assert down.calls == 2 and len(b.cache or []) == 0


def _long_doc(tmp: Path, sections: int) -> Path:
    d = tmp / "long"
    d.mkdir()
    (d / "long.md").write_text("# Long\n\n" + "\n\n".join(
        f"## Part {i}\n\nItem {i}: model LG{i} holds {i % 7 + 1} bar in zone {i % 13}; "
        f"its seal kit is SK-{i % 5}." for i in range(sections)) + "\n", encoding="utf-8")
    return d


def test_a_large_directory_is_stored_in_parts_and_read_whole(store: QdrantChunkStore,
                                                              tmp_path: Path,
                                                              monkeypatch) -> None:
    """More than DIRECTORY_PART entries: a head record + part records, none larger than a part;
    read back whole and in order; replaced with its document, parts included (issue 20 item 4:
    no single store write carries a large file's whole directory)."""
    import corpus.directory as directory

    monkeypatch.setattr(directory, "DIRECTORY_PART", 7)
    docs = _long_doc(tmp_path, 40)
    ing = Ingestor(store, Tokenizer(), workers=1, directory=DirectoryBuilder(Tokenizer()))
    ing.ingest_paths([docs], "c")
    chunks = _chunks(store, "c")
    assert len(chunks) > 20  # several parts
    assert store.count_chunks("c") == len(chunks)  # part records are no chunks
    doc = chunks[0].doc_id
    head = store.records("c", DIRECTORY_KIND)[doc]
    parts = store.records("c", directory.DIRECTORY_PART_KIND)
    assert head["parts"] == -(-len(chunks) // 7) == len(parts) + 1
    assert max(len(p["entries"]) for p in [head, *parts.values()]) == 7
    got = load_directory(store, "c", doc)
    assert [e.chunk_id for e in got] == [c.chunk_id for c in chunks]
    assert got == extractive_entries(chunks, Tokenizer())
    (docs / "long.md").write_text("# Long\n\nshort now: model LG1 holds 2 bar.\n", encoding="utf-8")
    ing.ingest_paths([docs], "c")
    assert store.records("c", directory.DIRECTORY_PART_KIND) == {}  # the old parts are gone
    assert list(store.records("c", DIRECTORY_KIND)) == [_chunks(store, "c")[0].doc_id]


def test_a_lost_part_rebuilds_the_directory_rather_than_serve_a_gap(store: QdrantChunkStore,
                                                                     tmp_path: Path,
                                                                     monkeypatch) -> None:
    import corpus.directory as directory

    monkeypatch.setattr(directory, "DIRECTORY_PART", 5)
    ing = Ingestor(store, Tokenizer(), workers=1, directory=DirectoryBuilder(Tokenizer()))
    ing.ingest_paths([_long_doc(tmp_path, 20)], "c")
    chunks = _chunks(store, "c")
    store.delete_record("c", directory.DIRECTORY_PART_KIND, f"{chunks[0].doc_id}:2")
    got = load_directory(store, "c", chunks[0].doc_id)
    assert [e.chunk_id for e in got] == [c.chunk_id for c in chunks]


def test_extractive_entries_of_a_large_document_are_the_same_in_two_passes(
        tmp_path: Path, monkeypatch) -> None:
    """Above _HOLD_COUNTS_MAX chunks the term counts are not held for every chunk at once; the
    entries are the same."""
    import corpus.directory as directory
    from corpus.chunker import chunk_document
    from corpus.parsers import parse_file

    chunks = chunk_document(parse_file(_long_doc(tmp_path, 30) / "long.md"), rel_path="long.md")
    held = extractive_entries(chunks, Tokenizer())
    monkeypatch.setattr(directory, "_HOLD_COUNTS_MAX", 3)
    assert extractive_entries(chunks, Tokenizer()) == held and len(held) > 3


def test_a_removed_document_leaves_no_directory_record(store: QdrantChunkStore, tmp_path: Path,
                                                       monkeypatch) -> None:
    """Deleting a document (an upload deleted, a file gone from a walked folder) deletes its
    directory and every part of it, not only its chunks."""
    import corpus.directory as directory

    monkeypatch.setattr(directory, "DIRECTORY_PART", 5)
    docs = _long_doc(tmp_path, 20)
    (docs / "manual.md").write_text(ZH, encoding="utf-8")
    ing = Ingestor(store, Tokenizer(), workers=1, directory=DirectoryBuilder(Tokenizer()))
    ing.ingest_paths([docs], "c")
    assert len(store.records("c", DIRECTORY_KIND)) == 2
    assert store.records("c", directory.DIRECTORY_PART_KIND)
    long_id = next(k for k in store.records("c", DIRECTORY_KIND)
                   if store.records("c", DIRECTORY_KIND)[k].get("parts", 1) > 1)
    assert ing.remove_document("c", "long.md") is not None  # as DELETE /v1/documents/{doc}
    assert long_id not in store.records("c", DIRECTORY_KIND)
    assert store.records("c", directory.DIRECTORY_PART_KIND) == {}
    (docs / "manual.md").unlink()
    (docs / "long.md").unlink()
    rep = ing.ingest_paths([docs], "c")  # the walk removes manual.md
    assert [(f.path, f.status) for f in rep.files] == [("manual.md", "removed")]
    assert store.records("c", DIRECTORY_KIND) == {}
    assert store.records("c", directory.DIRECTORY_PART_KIND) == {}
