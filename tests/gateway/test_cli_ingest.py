"""``loopgate ingest`` through Typer's CliRunner: summary table, ``--json``, exit codes, and the
clear error when another process holds the embedded engine's data directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpus.qdrant_store import QdrantChunkStore
from gateway.cli import app
from gateway.settings import get_settings

pytestmark = pytest.mark.integration


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data"
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(d))
    get_settings.cache_clear()
    return d


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    d = tmp_path / "docs"
    (d / "sub").mkdir(parents=True)
    (d / "spec_zh.md").write_text(
        "# 参数\n\n## 功率\n型号FW-301的额定功率为8kW。\n", encoding="utf-8"
    )
    (d / "sub" / "faq.txt").write_text("The warranty period is three years.\n", encoding="utf-8")
    (d / "empty.txt").write_bytes(b"")
    (d / "image.png").write_bytes(b"\x89PNG\r\n")
    return d


def run(*args: str) -> object:
    return CliRunner().invoke(app, ["ingest", *args])


def test_ingest_prints_summary_and_skips_unchanged(data_dir: Path, docs: Path) -> None:
    result = run(str(docs), "--collection", "t", "--no-embed")
    assert result.exit_code == 0, result.output
    assert "ingested" in result.output and "empty_file" in result.output
    assert "keyword-only" in result.output
    # 2 text files of 1 page each, an empty one, an image ignored: singular where there is one
    assert "2 pages, 2 chunks from 3 files (1 other file ignored)" in " ".join(
        result.output.split()), result.output
    one = docs.parent / "one"
    one.mkdir()
    (one / "note.md").write_text("# Note\n\nOne page, one chunk.\n", encoding="utf-8")
    single = run(str(one), "--collection", "s", "--no-embed")
    assert "1 page, 1 chunk from 1 file (0 other files ignored)" in " ".join(
        single.output.split()), single.output
    again = run(str(docs), "--collection", "t", "--no-embed")
    assert again.exit_code == 0, again.output
    assert "nothing changed" in again.output
    assert (data_dir / "qdrant" / "t" / "edge_config.json").exists()


def test_ingest_json(data_dir: Path, docs: Path) -> None:
    result = run(str(docs), "--collection", "t", "--json", "--no-embed")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["counts"]["ingested"] == 2 and summary["counts"]["failed"] == 1
    assert summary["ignored"] == 1 and summary["keyword_only"] is True
    by_path = {f["path"]: f for f in summary["files"]}
    assert by_path["sub/faq.txt"]["status"] == "ingested" and by_path["sub/faq.txt"]["chunks"] == 1
    assert by_path["empty.txt"]["error_code"] == "empty_file"
    assert by_path["empty.txt"]["error_message"]


def test_ingest_names_the_type_read_and_the_duplicate(data_dir: Path, tmp_path: Path) -> None:
    """A text file named .pdf is read as text and the summary says so; a CRLF copy is skipped
    as a duplicate naming the kept file (cases 18 and 16)."""
    d = tmp_path / "mixed"
    d.mkdir()
    (d / "a.md").write_bytes(b"# Guide\n\nLogs are kept for 14 days.\n")
    (d / "b.md").write_bytes(b"# Guide\r\n\r\nLogs are kept for 14 days.  \r\n")
    (d / "note.pdf").write_bytes(b"Plain text, not a PDF: duty phone 8866.\n")
    result = run(str(d), "--collection", "t", "--no-embed")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "extension_mismatch" in out and "duplicate" in out
    summary = json.loads(run(str(d), "--collection", "u", "--json", "--no-embed").stdout)
    by_path = {f["path"]: f for f in summary["files"]}
    assert by_path["b.md"]["duplicate_of"] == "a.md"
    assert by_path["note.pdf"]["warnings"][0].startswith("extension_mismatch:")


def test_nothing_ingestable_exits_1(data_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "zero.md").write_bytes(b"")
    result = run(str(bad), "--collection", "t")
    assert result.exit_code == 1, result.output
    empty = tmp_path / "nothing"
    empty.mkdir()
    assert run(str(empty), "--collection", "t").exit_code == 1


def test_a_name_not_utf8_is_one_status_line(data_dir: Path, docs: Path) -> None:
    """``caf\\xe9.txt`` (a Latin-1 file name) is one ``undecodable_name`` line, the rest of the
    folder is ingested and the command exits 0 (found by a new-user trial: it exited 2 with
    "Invalid value for --root: 'utf-8' codec can't encode character '\\udce9'")."""
    with open(os.fsencode(docs) + b"/caf\xe9.txt", "wb") as fh:
        fh.write(b"Terrace notes.\n")
    result = run(str(docs), "--collection", "t", "--no-embed")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "--root" not in out and "undecodable_name" in out and "caf\\xe9.txt" in out
    summary = json.loads(run(str(docs), "--collection", "u", "--json", "--no-embed").stdout)
    by_path = {f["path"]: f for f in summary["files"]}
    assert by_path["caf\\xe9.txt"]["error_code"] == "undecodable_name"
    assert by_path["sub/faq.txt"]["status"] == "ingested"


def test_usage_errors_exit_2(data_dir: Path, docs: Path, tmp_path: Path) -> None:
    assert run(str(tmp_path / "missing"), "--collection", "t").exit_code == 2
    assert run(str(docs), "--collection", "../bad").exit_code == 2
    assert run(str(docs)).exit_code == 2  # --collection is required


def test_held_data_directory_is_a_clear_error(data_dir: Path, docs: Path) -> None:
    holder = QdrantChunkStore.embedded(data_dir / "qdrant")  # e.g. a running `loopgate serve`
    holder.ensure_collection("t", dense_dim=None, embed_model=None)
    try:
        result = run(str(docs), "--collection", "t", "--no-embed")
    finally:
        holder.close()
    assert result.exit_code == 1
    assert "held by another LoopGate process" in " ".join(result.output.split())  # rich wraps


def test_progress_says_elapsed_and_estimates_what_is_left() -> None:
    """The bar says ``… elapsed``, and ``· … left`` only once the time left can be estimated
    from the bytes read, then an estimate, not the elapsed time (found by a new-user trial:
    ``scanning … 0:00:01 left`` — the elapsed time stood before the word "left")."""
    import io
    import re
    import time

    from rich.console import Console

    from corpus.ingest import IngestProgress
    from gateway.cli._ingest_progress import ElapsedAndLeft, ingest_progress

    out = io.StringIO()
    progress, on_progress = ingest_progress(Console(file=out, width=200), disable=False)
    (column,) = [c for c in progress.columns if isinstance(c, ElapsedAndLeft)]
    (task,) = progress.tasks
    first = str(column.render(task))
    assert re.fullmatch(r"0:00:0\d elapsed", first), first  # nothing read yet: no "left"
    total = 1000
    on_progress(IngestProgress(1, 10, 1, 1, "a.md", "ingested", 100, total, 0.1))
    time.sleep(0.5)
    on_progress(IngestProgress(2, 10, 2, 2, "b.md", "ingested", 200, total, 0.6))
    text = str(column.render(task))
    m = re.fullmatch(r"0:00:0\d elapsed · 0:00:(\d\d) left", text)
    assert m, text
    assert 2 <= int(m.group(1)) <= 8, text  # 800 bytes left at ~200 bytes/s
    on_progress(IngestProgress(10, 10, 9, 9, "j.md", "ingested", total, total, 1.0))
    assert re.fullmatch(r"0:00:0\d elapsed", str(column.render(task)))  # done: no "left"


def test_warnings_table_puts_only_codes_in_the_code_column(tmp_path: Path) -> None:
    """A warning's code column holds a code (``repaired_pdf``); a warning without one
    (``3 scanned page(s) read by OCR (eng): [1, 2, 3]``, ``decoded with replacement
    characters: …``) is whole in the note column (it put that text in the code column)."""
    from corpus.ingest import FileResult, IngestReport
    from gateway.cli.ingest import warnings_table

    warned = [
        "repaired_pdf: the PDF was damaged and repaired on reading",
        "3 scanned page(s) read by OCR (eng): [1, 2, 3]",
        "decoded with replacement characters: 1 undecodable byte sequence(s) replaced",
        "4 table-of-contents page(s) kept out of the chunks",
        "garbled_text: 2 page(s) whose text layer cannot be … needs_ocr: [4, 5]",
    ]
    report = IngestReport("c", str(tmp_path), [FileResult("a.pdf", "ingested", warnings=warned),
                                                FileResult("b.md", "ingested")])
    table = warnings_table(report)
    assert table is not None
    rows = list(zip(*(list(col._cells) for col in table.columns), strict=True))
    assert rows == [
        ("a.pdf", "repaired_pdf", "the PDF was damaged and repaired on reading"),
        ("a.pdf", "", "3 scanned page(s) read by OCR (eng): [1, 2, 3]"),
        ("a.pdf", "", "decoded with replacement characters: 1 undecodable byte sequence(s) "
                      "replaced"),
        ("a.pdf", "", "4 table-of-contents page(s) kept out of the chunks"),
        ("a.pdf", "garbled_text", "2 page(s) whose text layer cannot be … needs_ocr: [4, 5]"),
    ]
    assert warnings_table(IngestReport("c", str(tmp_path), [FileResult("b.md", "ingested")])) \
        is None


def test_a_small_folder_is_read_without_the_worker_pool(
        data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by a new-user trial: 4 files of < 400 bytes took 91 s with the default workers
    (each embed worker loads the model) against 7.8 s with --workers 1. Under POOL_MIN_BYTES
    of files the pool is not started whatever --workers says; from there it is."""
    import corpus._ingest_run as run_mod

    seen: list[int] = []
    orig = run_mod.run_prepare

    def spy(jobs, *, workers, **kw):  # type: ignore[no-untyped-def]
        seen.append(workers)
        kw.pop("embed", None)
        yield from orig(jobs, workers=1, **kw)  # the test itself needs no process

    monkeypatch.setattr(run_mod, "run_prepare", spy)
    small = tmp_path / "small"
    small.mkdir()
    for i in range(4):
        (small / f"n{i}.md").write_text(f"# Note {i}\n\nDevice {i} has a {i}-year warranty.\n")
    res = run(str(small), "--collection", "s", "--workers", "2", "--no-embed")
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert seen and set(seen) == {1}, seen
    seen.clear()
    monkeypatch.setattr(run_mod, "POOL_MIN_BYTES", 100)  # the same files, now "large enough"
    for i in range(4):
        (small / f"n{i}.md").write_text(f"# Note {i}\n\nDevice {i} has a {i}-year guarantee.\n")
    res = run(str(small), "--collection", "s", "--workers", "2", "--no-embed")
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert seen[0] == 2, seen
