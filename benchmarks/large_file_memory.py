"""Peak memory of ingesting one large generated file (issue 20 item 4: memory bounded by the
write batch, not by the file). Prints figures; it is not a test.

A deterministic text file (paragraphs of varied sentences, no headings: one section, the chunker's
worst case) or Markdown file (``--kind md``: a ``##`` heading every 12 paragraphs) of about
``--mb`` MB is generated in a temporary folder, then ingested keyword-only (no embedding model:
embedding 50 MB on two cores takes hours and its memory is the model's, bounded by the batch)
into a fresh temporary data directory by ``loopgate ingest`` under ``/usr/bin/time -v``. Printed:
the file's size, chunks, wall seconds, CPU seconds and the maximum resident set size.

``--code DIR`` runs the code of another checkout (e.g. a ``git worktree`` of an older commit),
so a before → after pair runs the same file through two versions.

Usage::

    .venv/bin/python benchmarks/large_file_memory.py --mb 11 [--kind md] [--code /work/base]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_WORDS = (
    "warranty battery pump valve pressure sensor module firmware update calibration torque "
    "voltage circuit housing gasket filter coolant inspection schedule operator manual safety "
    "cabinet rotor bearing spindle controller network logging retention audit policy clause "
    "revenue margin quarter segment guidance dividend liability asset inventory lease"
).split()


def _paragraph(rng: random.Random, i: int) -> str:
    sentences = []
    for _ in range(rng.randint(2, 7)):
        words = [rng.choice(_WORDS) for _ in range(rng.randint(6, 18))]
        words.insert(rng.randint(0, len(words)), f"M-{i}-{rng.randint(0, 999)}")
        sentences.append(" ".join(words).capitalize() + rng.choice((".", ".", ";", "?")))
    return " ".join(sentences)


def generate(path: Path, mb: float, kind: str, seed: int = 20) -> int:
    """Write a file of about ``mb`` MB (10^6 bytes); returns its size in bytes."""
    rng, limit, size, i = random.Random(seed), int(mb * 1_000_000), 0, 0
    with path.open("w", encoding="utf-8") as f:
        if kind == "md":
            f.write("# Generated manual\n\n")
        while size < limit:
            if kind == "md" and i % 12 == 0:
                f.write(f"## Part {i // 12}\n\n")
            para = _paragraph(rng, i) + "\n\n"
            f.write(para)
            size += len(para.encode())
            i += 1
    return path.stat().st_size


_RUN = (
    "import sys; sys.path.insert(0, {code!r}); from gateway.cli import main; "
    "sys.argv = ['loopgate'] + sys.argv[1:]; main()"
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=11.0)
    ap.add_argument("--kind", choices=("txt", "md"), default="txt")
    ap.add_argument("--code", default=str(Path(__file__).resolve().parents[1]),
                    help="checkout whose code runs the ingest (default: this one)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lg-bigfile-") as tmp:
        src = Path(tmp) / "docs"
        src.mkdir()
        path = src / f"big.{args.kind}"
        size = generate(path, args.mb, args.kind)
        env = {k: v for k, v in os.environ.items() if not k.startswith("LOOPGATE_")}
        env["LOOPGATE_DATA_DIR"] = str(Path(tmp) / "data")
        env["PYTHONPATH"] = args.code
        cmd = ["/usr/bin/time", "-v", sys.executable, "-c", _RUN.format(code=args.code),
               "ingest", str(src), "--collection", "big", "--json", "--no-embed"]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        err = proc.stderr

        def field(name: str) -> str:
            m = re.search(rf"{re.escape(name)}: (.+)", err)
            return m.group(1).strip() if m else "?"

        try:
            report = json.loads(proc.stdout[proc.stdout.find("{"):])
            files = report.get("files", [{}])
            chunks, status = files[0].get("chunks"), files[0].get("status")
        except (ValueError, IndexError):
            chunks, status = None, f"exit {proc.returncode}: {err[-800:]}"
        rss_mb = int(field("Maximum resident set size (kbytes)") or 0) / 1024 \
            if field("Maximum resident set size (kbytes)").isdigit() else float("nan")
        cpu = sum(float(field(n)) for n in ("User time (seconds)", "System time (seconds)")
                  if field(n) != "?")
        print(f"code={args.code} kind={args.kind} file={size / 1e6:.1f} MB status={status} "
              f"chunks={chunks} wall={field('Elapsed (wall clock) time (h:mm:ss or m:ss)')} "
              f"cpu={cpu:.1f} s max_rss={rss_mb:.0f} MB")


if __name__ == "__main__":
    main()
