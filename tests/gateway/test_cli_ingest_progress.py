"""``loopgate ingest`` progress off a terminal (found by a new-user trial: piped, in CI or under
``nohup`` it printed nothing for 100 s and more, then everything at the end): plain progress
lines on stderr as files finish and while none does, never in the ``--json`` stdout."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from corpus.ingest import IngestProgress
from gateway.cli._ingest_progress import PlainProgress

LOOPGATE = Path(sys.executable).parent / "loopgate"
#: the two smallest of the zh PDFs (14 and 27 pages): read in the command's own process
PDFS = ("cybersecurity_law.pdf", "labor_contract_law.pdf")
LINE = re.compile(r"ingest: (\d+)/(\d+) files · (\d+) pages · [\d.]+ pages/s · (\d+) chunks · "
                  r"\d+:\d\d:\d\d elapsed( · \d+:\d\d:\d\d left)?")


@pytest.mark.integration
@pytest.mark.eval
def test_piped_ingest_prints_progress_lines_on_stderr_and_clean_json_on_stdout(
        eval_dir: Path, embed_model_path: Path, tmp_path: Path) -> None:
    """A real ingest (the embedding model, two real PDFs) with stdout and stderr pipes, as in
    CI: stderr says it started, then a line per file with files done / total, pages, pages/s,
    chunks and the time; the last line counts what the JSON summary counts; stdout is that JSON
    alone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    env.update({"LOOPGATE_DATA_DIR": str(tmp_path / "data"),
                "LOOPGATE_EMBED_MODEL_PATH": str(embed_model_path),
                "LOOPGATE_OCR_LANGUAGES": ""})
    docs = [eval_dir / "zh" / "docs" / "pdf" / name for name in PDFS]
    proc = subprocess.run(
        [str(LOOPGATE), "ingest", *map(str, docs), "--collection", "p", "--json"],
        env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)  # nothing but the JSON on stdout
    assert summary["counts"]["ingested"] == 2
    lines = proc.stderr.splitlines()
    assert lines[0] == "ingest into 'p': started (progress every 10 s at least)", lines
    progress = [m for m in map(LINE.fullmatch, lines) if m is not None]
    assert len(progress) >= 2, proc.stderr  # the first file and the last, at least
    done, total, pages, chunks = map(int, progress[-1].groups()[:4])
    assert (done, total) == (2, 2) and int(progress[0].group(1)) == 1, proc.stderr
    assert (pages, chunks) == (summary["pages"], summary["chunks"]), proc.stderr
    assert "\x1b[" not in proc.stderr and "━" not in proc.stderr  # no bar, no escape codes


def _event(done: int, pages: int, elapsed: float) -> IngestProgress:
    return IngestProgress(done, 100, pages, pages, f"f{done}.md", "ingested", done * 10,
                          1000, elapsed)


def test_plain_lines_come_at_most_every_gap_and_while_nothing_finishes() -> None:
    """Files finishing in a burst make one line per ``file_gap_s`` (the first and the last file
    always); a long file makes a line every ``heartbeat_s`` meanwhile."""
    out = io.StringIO()
    console = Console(file=out, width=80)
    assert not console.is_terminal
    with PlainProgress(console, "c", file_gap_s=60, heartbeat_s=0.3) as plain:
        for i in range(1, 50):  # a burst: only the first gets a line
            plain(_event(i, i, 0.1))
        time.sleep(1.0)  # a long file: heartbeats, same counts
        plain(_event(100, 120, 1.2))  # the last file
    lines = out.getvalue().splitlines()
    assert lines[0] == "ingest into 'c': started (progress every 0.3 s at least)"
    body = [LINE.fullmatch(ln) for ln in lines[1:]]
    assert all(body), lines  # each a whole line: never wrapped at the console's 80 columns
    counts = [(m.group(1), m.group(3)) for m in body if m]
    assert counts[0] == ("1", "1") and counts[-1] == ("100", "120"), lines
    beats = counts[1:-1]
    assert 2 <= len(beats) <= 4 and set(beats) == {("49", "49")}, lines
    assert len(lines) == 2 + len(beats) + 1
