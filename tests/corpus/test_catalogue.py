"""Catalogue: documents kept in Qdrant record points, the staged-switch replace protocol, removal,
outlines and the corpus version (issue 2 item 7), on the embedded engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.catalogue import Catalogue
from corpus.catalogue_entry import CatalogueEntry, outline_from_chunks
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from corpus.types import Chunk, DocumentInfo, OutlineEntry
from tests._support.chunks import make_document

pytestmark = pytest.mark.integration

TOK = Tokenizer()


def doc(doc_id: str, path: str, texts: list[tuple[tuple[str, ...], str]]) -> list[Chunk]:
    """Chunks of one document numbered like the chunker's output."""
    return make_document(doc_id, path, texts)


def entry(chunks: list[Chunk]) -> CatalogueEntry:
    c = chunks[0]
    info = DocumentInfo(c.doc_id, c.path, c.title, "markdown", len(chunks), len(chunks))
    return CatalogueEntry(info, outline_from_chunks(chunks), size=100)


V1 = doc("1" * 64, "policy.md", [(("退货政策", "期限"), "购买后 7 天内可无理由退货。")])
V2 = doc(
    "2" * 64,
    "policy.md",
    [
        (("退货政策", "期限"), "购买后 15 天内可无理由退货。"),
        (("退货政策", "例外"), "定制商品不退。"),
    ],
)
SHIP = doc("3" * 64, "shipping.md", [(("配送",), "标准配送 3 个工作日。")])


@pytest.fixture
def cat(tmp_path: Path) -> Iterator[Catalogue]:
    store = QdrantChunkStore.embedded(tmp_path / "qdrant")
    store.ensure_collection("c", dense_dim=None, embed_model=None)
    yield Catalogue(store)
    store.close()


def commit(cat: Catalogue, chunks: list[Chunk], previous: CatalogueEntry | None = None) -> int:
    return cat.commit_document(
        "c",
        entry(chunks),
        chunks,
        [TOK.sparse(c.context_text()) for c in chunks],
        None,
        previous=previous,
    )


def test_commit_and_entries(cat: Catalogue) -> None:
    assert cat.corpus_version("c") == 0
    assert commit(cat, V1) == 1
    assert commit(cat, SHIP) == 2
    entries = cat.entries("c")
    assert set(entries) == {"policy.md", "shipping.md"}
    assert entries["policy.md"].info.doc_id == V1[0].doc_id
    assert [d.path for d in cat.documents("c")] == ["policy.md", "shipping.md"]


def test_has_documents_reads_whether_one_is_catalogued(cat: Catalogue) -> None:
    """What an omitted collection of an HTTP read is resolved by (gateway.api.deps)."""
    assert not cat.has_documents("c") and not cat.has_documents("missing")
    commit(cat, V1)
    commit(cat, SHIP)
    assert cat.has_documents("c")
    assert len(cat.store.records("c", "document", limit=1)) == 1
    cat.remove("c", "policy.md")
    cat.remove("c", "shipping.md")
    assert not cat.has_documents("c") and cat.corpus_version("c") > 0


def test_replace_leaves_no_stale_chunk(cat: Catalogue) -> None:
    commit(cat, V1)
    old = cat.entries("c")["policy.md"]
    version = commit(cat, V2, previous=old)
    assert version == 2
    store = cat.store
    assert store.document_chunks("c", V1[0].doc_id) == []
    assert store.document_chunks("c", V2[0].doc_id) == V2
    hits = store.keyword_search("c", TOK.sparse_query("退货 天内"), 10)
    assert hits[0].chunk == V2[0] and {h.chunk.doc_id for h in hits} == {V2[0].doc_id}
    assert cat.entries("c")["policy.md"].info.chunk_count == 2


def test_failed_write_keeps_previous_version(cat: Catalogue) -> None:
    commit(cat, V1)
    old = cat.entries("c")["policy.md"]
    with pytest.raises(ValueError):  # one sparse vector short: refused before anything lands
        cat.commit_document("c", entry(V2), V2, [TOK.sparse(V2[0].text)], None, previous=old)
    assert cat.entries("c")["policy.md"].info.doc_id == V1[0].doc_id
    assert cat.store.document_chunks("c", V2[0].doc_id) == []
    assert cat.store.document_chunks("c", V1[0].doc_id) == V1
    assert cat.corpus_version("c") == 1


def test_remove(cat: Catalogue) -> None:
    commit(cat, V1)
    commit(cat, SHIP)
    removed = cat.remove("c", "policy.md")
    assert removed is not None and removed.info.doc_id == V1[0].doc_id
    assert cat.remove("c", "policy.md") is None
    assert set(cat.entries("c")) == {"shipping.md"}
    assert cat.store.count_chunks("c") == 1
    assert cat.corpus_version("c") == 3


def test_find_and_outline(cat: Catalogue) -> None:
    commit(cat, V2)
    assert cat.find("c", "policy.md") is not None
    assert cat.find("c", V2[0].doc_id[:12]) is not None
    assert cat.find("c", "nothing.md") is None
    assert cat.outline("c", "policy.md") == [
        OutlineEntry("退货政策", 1, 1, ("退货政策",)),
        OutlineEntry("期限", 2, 1, ("退货政策", "期限")),
        OutlineEntry("例外", 2, 2, ("退货政策", "例外")),
    ]
    assert cat.outline("c", "unknown") == []


def test_catalogue_is_shared_through_the_store(tmp_path: Path) -> None:
    with QdrantChunkStore.embedded(tmp_path / "q") as store:
        store.ensure_collection("c", dense_dim=None, embed_model=None)
        Catalogue(store).commit_document("c", entry(SHIP), SHIP, [TOK.sparse(SHIP[0].text)], None)
    with QdrantChunkStore.embedded(tmp_path / "q") as again:  # a new process would see the same
        cat = Catalogue(again)
        assert set(cat.entries("c")) == {"shipping.md"} and cat.corpus_version("c") == 1


def test_local_mode_backend_shares_the_protocol() -> None:
    with QdrantChunkStore.local() as store:
        store.ensure_collection("c", dense_dim=None, embed_model=None)
        cat = Catalogue(store)
        commit(cat, V1)
        commit(cat, V2, previous=cat.entries("c")["policy.md"])
        assert store.document_chunks("c", V1[0].doc_id) == []
        assert cat.corpus_version("c") == 2


def test_bounded_outline_keeps_whole_top_levels() -> None:
    from corpus.catalogue_entry import bounded_outline

    top = [OutlineEntry(f"Part {i}", 1, i, (f"Part {i}",)) for i in range(3)]
    deep = [OutlineEntry(f"S {i}", 2, i, ("Part 0", f"S {i}")) for i in range(40)]
    outline = [top[0], *deep[:20], top[1], *deep[20:], top[2]]
    assert bounded_outline(outline, 100) == (outline, "")
    kept, warn = bounded_outline(outline, 10)
    assert kept == top and warn == "outline_truncated: 43 headings, 3 of levels 1-1 kept"
    flat = [OutlineEntry(f"H {i}", 2, i, (f"H {i}",)) for i in range(30)]
    kept, warn = bounded_outline(flat, 10)
    assert kept == flat[:10] and "the first of level 2" in warn


def test_a_document_with_more_headings_than_the_bound_is_catalogued_with_a_warning(
        store: QdrantChunkStore, tmp_path: Path, monkeypatch) -> None:
    """Every catalogue read loads every entry's outline: a large file's 42,393 headings made each
    0.5-0.9 s (issue 20 item 4); its entry keeps the top levels and says so."""
    import corpus.catalogue_entry as catalogue_entry
    from corpus.ingest import Ingestor

    monkeypatch.setattr(catalogue_entry, "OUTLINE_MAX", 5)
    path = tmp_path / "many.md"
    path.write_text("# Many\n\n" + "\n\n".join(f"## H{i}\n\nbody {i} of the section."
                                                for i in range(12)) + "\n", encoding="utf-8")
    rep = Ingestor(store, Tokenizer(), workers=1).ingest_paths([path], "c")
    assert rep.files[0].status == "ingested"
    assert any(w.startswith("outline_truncated: 13 headings, 1 of") for w in rep.files[0].warnings)
    entry = Catalogue(store).entries("c")["many.md"]
    assert [e.title for e in entry.outline] == ["Many"]
    assert any(w.startswith("outline_truncated") for w in entry.warnings)
