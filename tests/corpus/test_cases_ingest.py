"""Shared bug-report cases run through the real ingest into a real embedded Qdrant store
(../shared/cases, skipped when absent): 16 duplicate documents, 18 wrong extensions, empty and
truncated files. Each test reads the case's files in place and its ``expected.json``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.catalogue import Catalogue
from corpus.ingest import Ingestor, IngestReport
from corpus.qdrant_store import QdrantChunkStore
from corpus.tokenizer import Tokenizer
from tests._support.ingest import file_statuses

pytestmark = pytest.mark.integration

TOK = Tokenizer()


def _case(cases_dir: Path, name: str) -> tuple[Path, dict]:
    folder = next(cases_dir.glob(f"{name}*"))
    return folder, json.loads((folder / "expected.json").read_text(encoding="utf-8"))


# case 18: file name -> (status, error code); the ingested ones also carry this warning code
CASE18 = {
    "empty.pdf": ("failed", "empty_file"),
    "empty.docx": ("failed", "empty_file"),
    "empty.txt": ("failed", "empty_file"),
    "empty.md": ("failed", "empty_file"),
    "whitespace_only.txt": ("failed", "no_text"),
    "really_pdf.docx": ("ingested", ""),
    "legacy_ole2.docx": ("failed", "unsupported_legacy_doc"),
    "html_saved_as.docx": ("ingested", ""),
    "text_named.pdf": ("ingested", ""),
    "truncated.docx": ("failed", "corrupt_archive"),
    "truncated.pdf": ("failed", "corrupt_pdf"),
    "control_ok.txt": ("ingested", ""),
}
CASE18_READ_AS = {"really_pdf.docx": "pdf", "html_saved_as.docx": "html", "text_named.pdf": "text"}


def test_18_type_from_the_bytes_each_file_a_clear_status(
    store: QdrantChunkStore, cases_dir: Path
) -> None:
    folder, exp = _case(cases_dir, "18-")
    assert set(CASE18) == set(exp["inputs"])
    report = Ingestor(store, TOK, workers=1).ingest_paths([folder], "c")
    assert file_statuses(report) == CASE18  # one bad file never aborts the batch
    by_path = {f.path: f for f in report.files}
    for f in report.files:
        if f.status == "failed":
            assert f.error_message.startswith(f.path + ":"), f
            assert "Package not found" not in f.error_message
            assert "failed to open stream" not in f.error_message.lower()
    entries = Catalogue(store).entries("c")
    assert set(entries) == {p for p, (s, _) in CASE18.items() if s == "ingested"}
    for name, kind in CASE18_READ_AS.items():  # read by content, and the status says so
        assert entries[name].info.media_type == kind
        assert by_path[name].warnings[0].startswith("extension_mismatch:"), name
        assert entries[name].warnings[0].startswith("extension_mismatch:"), name
    assert not by_path["control_ok.txt"].warnings
    # nothing of a failed file is indexed (no partial DOCX paragraphs, no empty PDF)
    assert (
        store.count_chunks("c")
        == report.chunks
        == sum(e.info.chunk_count for e in entries.values())
    )
    assert store.purge_staged("c") == 0
    hits = store.keyword_search("c", TOK.sparse_query("值班电话 8866"), 10)
    paths = {h.chunk.path for h in hits}
    assert paths == {"really_pdf.docx", "html_saved_as.docx", "control_ok.txt"}
    pdf_hit = next(h for h in hits if h.chunk.path == "really_pdf.docx")
    assert pdf_hit.chunk.page_start == 1 and "值班电话 8866" in pdf_hit.chunk.text
    assert not store.keyword_search("c", TOK.sparse_query("截断测试 Truncation"), 5)


def test_16_duplicates_add_no_chunks_a_new_version_is_kept(
    store: QdrantChunkStore, cases_dir: Path
) -> None:
    folder, exp = _case(cases_dir, "16-")
    assert [s["files"] for s in exp["scenario"]][:4] == [
        ["guide.md"],
        ["guide.md"],
        ["guide (1).md", "guide_crlf.md"],
        ["guide_v2.md"],
    ]
    ing = Ingestor(store, TOK, workers=1)

    def step(*names: str) -> IngestReport:
        return ing.ingest_paths([folder / n for n in names], "c", root=folder)

    first = step("guide.md")
    assert file_statuses(first) == {"guide.md": ("ingested", "")}
    n = store.count_chunks("c")
    assert n == first.chunks > 0
    version = Catalogue(store).corpus_version("c")

    again = step("guide.md")  # idempotent
    assert file_statuses(again) == {"guide.md": ("unchanged", "")}
    assert store.count_chunks("c") == n and not again.changed

    dups = step("guide (1).md", "guide_crlf.md")
    assert file_statuses(dups) == {
        "guide (1).md": ("skipped", "duplicate"),
        "guide_crlf.md": ("skipped", "duplicate"),
    }
    assert {f.duplicate_of for f in dups.files} == {"guide.md"}
    assert "same bytes" in dups.files[0].error_message  # guide (1).md: a byte copy
    assert "same text" in dups.files[1].error_message  # CRLF + trailing blanks
    assert store.count_chunks("c") == n and not dups.changed
    assert Catalogue(store).corpus_version("c") == version  # cached answers stay valid
    assert set(Catalogue(store).entries("c")) == {"guide.md"}
    assert file_statuses(step("guide_crlf.md")) == {"guide_crlf.md": ("skipped", "duplicate")}

    v2 = step("guide_v2.md")  # 14 -> 30 days: a real new version
    assert file_statuses(v2) == {"guide_v2.md": ("ingested", "")} and not v2.files[0].warnings
    assert store.count_chunks("c") == n + v2.chunks and v2.chunks > 0

    pdf = step("guide.pdf")  # stretch: the same text as PDF is flagged
    assert file_statuses(pdf) == {"guide.pdf": ("ingested", "")}
    assert pdf.files[0].warnings == [
        "probable_duplicate: the same text as 'guide.md' in another layout or format; "
        "indexed as its own document"
    ]
    days = store.keyword_search("c", TOK.sparse_query("日志保留"), 10)
    texts = {h.chunk.path: h.chunk.text for h in days if "日志保留" in h.chunk.text}
    assert "14 天" in texts["guide.md"] and "30 天" in texts["guide_v2.md"]


def test_16_one_walk_keeps_one_copy_and_a_path_turned_copy_loses_its_old_text(
    store: QdrantChunkStore, cases_dir: Path, tmp_path: Path
) -> None:
    folder, _ = _case(cases_dir, "16-")
    report = Ingestor(store, TOK, workers=1).ingest_paths([folder], "c")
    status = file_statuses(report)
    # walk order: "guide (1).md" sorts before "guide.md"
    assert status == {
        "guide (1).md": ("ingested", ""),
        "guide.md": ("skipped", "duplicate"),
        "guide_crlf.md": ("skipped", "duplicate"),
        "guide_v2.md": ("ingested", ""),
        "guide.pdf": ("ingested", ""),
    }
    assert store.count_chunks("c") == report.chunks
    # a path that held its own text and now holds a copy of another document: the old text goes
    own = tmp_path / "own"
    own.mkdir()
    (own / "a.md").write_text("# A\n\nThe vault code is 4711.\n", encoding="utf-8")
    (own / "b.md").write_text("# B\n\nThe lobby opens at 7.\n", encoding="utf-8")
    ing = Ingestor(store, TOK, workers=1)
    ing.ingest_paths([own], "d")
    (own / "b.md").write_bytes(b"# A\r\n\r\nThe vault code is 4711.  \r\n")
    second = ing.ingest_paths([own], "d")
    assert file_statuses(second) == {"a.md": ("unchanged", ""), "b.md": ("removed", "duplicate")}
    assert second.files[1].duplicate_of == "a.md" and second.changed
    assert set(Catalogue(store).entries("d")) == {"a.md"}
    assert not store.keyword_search("d", TOK.sparse_query("lobby"), 5)


def test_16_a_copy_of_a_changed_file_keeps_the_old_text(
    store: QdrantChunkStore, tmp_path: Path
) -> None:
    """guide.md gets a new version and, in the same run, copy.md holds its old bytes (and
    crlf.md its old text): the old text stays indexed once, under copy.md, not lost as a
    duplicate of a version that is being replaced."""
    docs = tmp_path / "docs"
    docs.mkdir()
    old = "# Guide\n\nLogs are kept for 14 days.\n"
    (docs / "guide.md").write_text(old, encoding="utf-8")
    ing = Ingestor(store, TOK, workers=1)
    ing.ingest_paths([docs], "c")
    (docs / "guide.md").write_text(old.replace("14", "30"), encoding="utf-8")
    (docs / "copy.md").write_text(old, encoding="utf-8")
    (docs / "crlf.md").write_bytes(old.replace("\n", "  \r\n").encode())
    report = ing.ingest_paths([docs], "c")
    assert file_statuses(report) == {
        "copy.md": ("ingested", ""),
        "crlf.md": ("skipped", "duplicate"),
        "guide.md": ("replaced", ""),
    }
    assert {f.path: f.duplicate_of for f in report.files}["crlf.md"] == "copy.md"
    hits = store.keyword_search("c", TOK.sparse_query("logs"), 5)
    assert sorted((h.chunk.path, h.chunk.text.split("\n")[-1]) for h in hits) == [
        ("copy.md", "Logs are kept for 14 days."),
        ("guide.md", "Logs are kept for 30 days."),
    ]
