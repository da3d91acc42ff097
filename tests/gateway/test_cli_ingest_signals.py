"""``loopgate ingest`` stopped by a signal (issue 19): a real ingest of real files in a
subprocess — parse and embed worker processes running — gets SIGTERM (to the parent alone, as
``docker stop`` or a CI timeout sends it) or SIGINT (to the whole process group, as Ctrl-C in a
terminal does) mid-way. It must exit 143 / 130 within seconds, leave no process of its own
behind, say what it did, and leave a collection that opens, holds every document it reported
complete (all its chunks, nothing staged) and that a rerun of the same command completes,
skipping those documents as unchanged."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus.catalogue import Catalogue
from corpus.qdrant_store import QdrantChunkStore

pytestmark = pytest.mark.integration

LOOPGATE = Path(sys.executable).parent / "loopgate"
#: small real filings (4-14 pages each): four files so that two parse workers start
FILES = (
    "FOOTLOCKER_2022_8K_dated-2022-05-20.pdf",
    "PEPSICO_2023_8K_dated-2023-05-05.pdf",
    "AMCOR_2022_8K_dated-2022-07-01.pdf",
    "ULTABEAUTY_2023Q4_EARNINGS.pdf",
    "AMCOR_2023Q4_EARNINGS.pdf",
)


def _session(sid: int) -> list[int]:
    """Pids of the live processes of session ``sid`` (zombies, already ended, left out)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # state ppid pgrp session …
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def _env(data: Path, model: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
    env.update(
        {
            "LOOPGATE_DATA_DIR": str(data),
            "LOOPGATE_EMBED_MODEL_PATH": str(model),
            "LOOPGATE_OCR_LANGUAGES": "",
        }
    )
    return env


def _ingest(docs: list[Path], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            str(LOOPGATE),
            "ingest",
            *map(str, docs),
            "--collection",
            "sig",
            "--json",
            "--workers",
            "2",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _signal_mid_way(
    docs: list[Path], env: dict[str, str], sig: signal.Signals
) -> tuple[subprocess.Popen[bytes], bytes, bytes, float]:
    """Start the ingest, wait until its 2 parse and 2 embed workers run, give them a moment of
    work, send ``sig``; the process, its stdout and stderr and the seconds it took to exit."""
    proc = _ingest(docs, env)
    try:
        deadline = time.monotonic() + 180
        while len(_session(proc.pid)) < 5:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the workers did not start"
            time.sleep(0.1)
        time.sleep(2.0)
        assert proc.poll() is None, "the ingest ended before the signal: use larger files"
        t0 = time.monotonic()
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)  # Ctrl-C: the terminal signals the whole group
        else:
            proc.send_signal(sig)  # docker stop, a CI timeout: the parent alone
        out, err = proc.communicate(timeout=60)
        return proc, out, err, time.monotonic() - t0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _none_left(sid: int) -> None:
    """No process of session ``sid`` runs within 5 s (multiprocessing's resource tracker ends
    once the last holder of its pipe is gone)."""
    left = _session(sid)
    for _ in range(50):
        if not left:
            return
        time.sleep(0.1)
        left = _session(sid)
    assert left == [], f"processes of the stopped ingest still running: {left}"


def _rerun(docs: list[Path], env: dict[str, str]) -> dict[str, str]:
    """The same command again: it completes; each file's status."""
    again = subprocess.run(
        [str(LOOPGATE), "ingest", *map(str, docs), "--collection", "sig", "--json"]
        + ["--workers", "2"],
        env=env,
        capture_output=True,
        timeout=900,
    )
    assert again.returncode == 0, again.stderr.decode(errors="replace")
    return {f["path"]: f["status"] for f in json.loads(again.stdout)["files"]}


def _whole(data: Path) -> set[str]:
    """The collection opens and every document it lists is whole (all its chunks visible, no
    visible chunk outside them); the paths it lists."""
    store = QdrantChunkStore.embedded(data / "qdrant")
    try:
        entries = Catalogue(store).entries("sig")
        for e in entries.values():
            assert store.count_chunks("sig", e.info.doc_id) == e.info.chunk_count
        assert store.count_chunks("sig") == sum(e.info.chunk_count for e in entries.values())
        return set(entries)
    finally:
        store.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_workers_and_a_rerun_completes(
    sig: signal.Signals, eval_dir: Path, embed_model_path: Path, tmp_path: Path
) -> None:
    docs = [eval_dir / "en/docs/financebench" / name for name in FILES]
    env = _env(tmp_path / "data", embed_model_path)
    proc, out, err, stop_s = _signal_mid_way(docs, env, sig)
    assert proc.returncode == 128 + sig, err.decode(errors="replace")
    assert stop_s < 30
    _none_left(proc.pid)
    report = json.loads(out)
    assert report["stopped_by"] == sig.name
    finished = {f["path"] for f in report["files"] if f["status"] == "ingested"}
    assert len(report["files"]) < len(FILES)
    print(
        f"\n{sig.name}: exit {proc.returncode} after {stop_s:.1f} s, {len(finished)} of "
        f"{len(FILES)} files finished before it"
    )
    assert f"stopped by {sig.name}" in err.decode(errors="replace")
    assert _whole(tmp_path / "data") == finished
    store = QdrantChunkStore.embedded(tmp_path / "data" / "qdrant")
    try:
        assert store.purge_staged("sig") == 0  # a document being written was rolled back
    finally:
        store.close()
    status = _rerun(docs, env)
    assert sorted(status) == sorted(FILES)
    assert {p for p, s in status.items() if s == "unchanged"} == finished
    assert {p for p, s in status.items() if s == "ingested"} == set(FILES) - finished


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_sigkill_of_the_parent_ends_its_workers_too(
    eval_dir: Path, embed_model_path: Path, tmp_path: Path
) -> None:
    """SIGKILL cannot be handled: the workers notice the parent is gone and end (else they
    would finish their task and wait for work forever); the next run purges what the parent
    left staged and completes."""
    docs = [eval_dir / "en/docs/financebench" / name for name in FILES]
    env = _env(tmp_path / "data", embed_model_path)
    proc, _, _, _ = _signal_mid_way(docs, env, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL
    _none_left(proc.pid)
    status = _rerun(docs, env)
    assert sorted(status) == sorted(FILES)
    assert set(status.values()) <= {"ingested", "unchanged"}
    assert _whole(tmp_path / "data") == set(FILES)
