"""Cross-language evidence hit: the zh-PDF dev questions asked in English (translated by us,
``benchmarks/crosslang/zhpdf_questions_en.jsonl``, with their gold places) against the Chinese
originals (``../shared/eval/zh/questions_pdf.jsonl``), on a collection of the 8 zh PDFs.

The gold answers and evidence are read from ../shared at run time (never copied here) and
joined to the translations by ``translation_of``; both sets then run through ``loopgate eval``
(in-process components, ``--mode auto``, answer cache bypassed) and the evidence hit of each is
printed with the difference.

    LOOPGATE_DATA_DIR=/tmp/x LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
      .venv/bin/loopgate ingest ../shared/eval/zh/docs/pdf --collection zhpdf --root ../shared/eval
    LOOPGATE_DATA_DIR=/tmp/x LOOPGATE_EMBED_MODEL_PATH=../shared/models/multilingual-e5-small \\
      .venv/bin/python benchmarks/crosslang_eval.py --collection zhpdf [--out DIR]

Set ``LOOPGATE_CROSS_LANGUAGE=false`` to measure without the added key terms.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "eval"


def _join(translations: Path, originals: Path, out: Path) -> int:
    gold = {}
    for line in originals.read_text(encoding="utf-8").splitlines():
        if line.strip():
            q = json.loads(line)
            gold[q["id"]] = q
    n = 0
    with out.open("w", encoding="utf-8") as f:
        for line in translations.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            t = json.loads(line)
            g = gold[t["translation_of"]]
            rec = {**g, **{k: v for k, v in t.items() if k != "translation_of"},
                   "source_dataset": "zh-pdf-authored (English)",
                   "evidence_pages": g.get("evidence_pages") or t.get("evidence_pages")}
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            n += 1
    return n


def _run(questions: Path, collection: str, out: Path) -> dict:
    cmd = [sys.executable, "-c", "from gateway.cli import main; main()", "eval", str(questions),
           "--collection", collection, "--mode", "auto", "--out", str(out), "--no-progress"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def main() -> None:
    """Run both sets and print their evidence hit."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="zhpdf")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    originals = SHARED / "zh" / "questions_pdf.jsonl"
    if not originals.exists():
        sys.exit(f"shared evaluation material not found at {originals}")
    out = args.out or Path(tempfile.mkdtemp(prefix="crosslang-"))
    out.mkdir(parents=True, exist_ok=True)
    en = out / "questions_en.jsonl"
    n = _join(HERE / "crosslang" / "zhpdf_questions_en.jsonl", originals, en)
    s_zh = _run(originals, args.collection, out / "zh")
    s_en = _run(en, args.collection, out / "en")
    hz, he = s_zh.get("evidence_hit"), s_en.get("evidence_hit")
    print(f"{n} questions; evidence hit: Chinese originals {hz:.1%}, English {he:.1%}, "
          f"difference {(he - hz) * 100:+.1f} points; runs in {out}")


if __name__ == "__main__":
    main()
