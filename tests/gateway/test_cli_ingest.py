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
    """A warning's code column holds its code (``repaired_pdf``, ``read_by_ocr`` …); text
    before ``": "`` that is no identifier is never taken for one (a warning written before
    every warning had a code, ``3 scanned page(s) read by OCR (eng): [1, 2, 3]``, stands whole
    in the note column)."""
    from corpus.ingest import FileResult, IngestReport
    from gateway.cli.ingest import warnings_table

    warned = [
        "repaired_pdf: the PDF was damaged and repaired on reading",
        "read_by_ocr: 3 scanned page(s) read by OCR (eng): [1, 2, 3]",
        "replacement_characters: decoded as UTF-8 with 1 undecodable byte sequence(s) replaced",
        "toc_pages_skipped: 4 table-of-contents page(s) kept out of the chunks",
        "garbled_text: 2 page(s) whose text layer cannot be … needs_ocr: [4, 5]",
        "3 scanned page(s) read by OCR (eng): [1, 2, 3]",
    ]
    report = IngestReport("c", str(tmp_path), [FileResult("a.pdf", "ingested", warnings=warned),
                                                FileResult("b.md", "ingested")])
    table = warnings_table(report)
    assert table is not None
    rows = list(zip(*(list(col._cells) for col in table.columns), strict=True))
    assert rows == [
        ("a.pdf", "repaired_pdf", "the PDF was damaged and repaired on reading"),
        ("a.pdf", "read_by_ocr", "3 scanned page(s) read by OCR (eng): [1, 2, 3]"),
        ("a.pdf", "replacement_characters",
         "decoded as UTF-8 with 1 undecodable byte sequence(s) replaced"),
        ("a.pdf", "toc_pages_skipped", "4 table-of-contents page(s) kept out of the chunks"),
        ("a.pdf", "garbled_text", "2 page(s) whose text layer cannot be … needs_ocr: [4, 5]"),
        ("a.pdf", "", "3 scanned page(s) read by OCR (eng): [1, 2, 3]"),
    ]
    assert warnings_table(IngestReport("c", str(tmp_path), [FileResult("b.md", "ingested")])) \
        is None


def test_every_warning_row_has_its_code(data_dir: Path, tmp_path: Path, cases_dir: Path) -> None:
    """Found by a new-user trial: rows of "ingested with warnings" had an empty code column
    (an owner-restricted PDF, a text file with a bad byte; also OCR and table-of-contents
    pages), because those warnings were written without a code. A real ingest of such files:
    every row shows a code of ``corpus.errors.WARNING_CODES``, in the table and in ``--json``."""
    import shutil

    from corpus.errors import WARNING_CODES

    d = tmp_path / "warned"
    d.mkdir()
    shutil.copy(cases_dir / "17-malformed-encrypted-pdf" / "owner_only_restricted.pdf", d)
    shutil.copy(cases_dir / "19-malformed-text-encodings" / "inspection_utf8_one_bad_byte.txt", d)
    (d / "latin.txt").write_bytes("Le café du Müller coûte 5 € à Paris.\n".encode("cp1252"))
    (d / "note.pdf").write_bytes(b"Plain text, not a PDF: duty phone 8866.\n")
    result = CliRunner().invoke(app, ["ingest", str(d), "--collection", "w", "--no-embed"],
                                env={"COLUMNS": "300"})  # one line per row
    assert result.exit_code == 0, result.output
    table = result.stdout[result.stdout.index("ingested with warnings"):]
    rows = [[c.strip() for c in ln.split("\u2502")[1:-1]]
            for ln in table.splitlines() if ln.startswith("\u2502")]
    assert len(rows) == 4 and all(r[1] in WARNING_CODES for r in rows), table
    assert {r[1] for r in rows} == {"owner_restricted", "replacement_characters",
                                     "encoding_guessed", "extension_mismatch"}, table
    summary = json.loads(run(str(d), "--collection", "w2", "--json", "--no-embed").stdout)
    warned = [w for f in summary["files"] for w in f["warnings"]]
    assert len(warned) == 4 and all(w.partition(": ")[0] in WARNING_CODES for w in warned)


def test_warnings_are_written_with_codes() -> None:
    """Every warning text appended in ``corpus`` starts with a code of ``WARNING_CODES``
    (read from the source: the OCR, garbled-text and table-of-contents ones need scanned or
    odd PDFs to appear)."""
    import ast

    from corpus.errors import WARNING_CODES

    root = Path(__file__).resolve().parents[2] / "corpus"
    seen: list[str] = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("append", "insert") and node.args):
                continue
            target = node.func.value
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if not name.endswith("warnings"):
                continue
            arg = node.args[-1]
            head = arg.values[0] if isinstance(arg, ast.JoinedStr) and arg.values else arg
            if isinstance(head, ast.Constant) and isinstance(head.value, str):
                code = head.value.partition(": ")[0]
                assert code in WARNING_CODES, f"{path.name}:{node.lineno}: {head.value[:60]!r}"
                seen.append(code)
    assert len(seen) >= 9, seen  # the appends this test knows of, so that it reads them


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
