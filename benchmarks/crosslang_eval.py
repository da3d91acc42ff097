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

Set ``LOOPGATE_CROSS_LANGUAGE=false`` to measure without the added key terms. With an LLM
(the model translates the question, ``gateway.conversation.llm``): serve one
(``benchmarks/local_llm_server.py``) and set ``LOOPGATE_LLM_BASE_URL``, ``LOOPGATE_LLM_MODEL``
and ``LOOPGATE_LLM_SCOPE=conversation`` (answers stay extractive: a 1.5B model on a CPU thread
is too slow to answer) with budgets that fit the model (``LOOPGATE_CONVERSATION_LLM_TIMEOUT_S``,
``LOOPGATE_REQUEST_DEADLINE_S``). Each set's line then also gives its p50 latency, the questions
with a translation call, their prompt / completion tokens (mean) and the cross-language flags.

Measured (8 zh PDFs, e5 + BM25, Qwen2.5-Coder-1.5B Q4_K_M, xllamacpp 1 thread, a 2-core machine
at load ~6; 30 questions with gold): without LLM, Chinese 90.0 %, English 56.7 % (p50 280 ms),
63.3 % once the answer-support refusal is not applied to a question in another script than its
passages (``rag.decision``; zhpdf-en:24 and :25 had cited the gold page and were refused; the
unanswerable :64 is then answered);
with it, English 80.0 % and 83.3 % in two runs (the model's translations differ a little
between runs), p50 9.5-10.8 s, one call per English question of 72 prompt and 27 completion
tokens (mean); the Chinese originals make no call.
Session 29 (same model and collection, machine quiet, p50 2.2-2.5 s, one call of 72 prompt and
27 completion tokens per English question): English 66.7 % with the translation appended to
the English question, 80.0 % with the translation routed alone (a collection mostly in
Chinese; ``gateway.conversation.cross_stage``); the Chinese originals 90.0 %.
On the whole eval corpus (collection of 301 documents, 54 % Chinese; same model): Chinese
86.7 % with and without the LLM (7 of 33 translated into English, no hit changed), English
20.0 % -> 63.3 % (27 translated; 6 skipped because an English page holds more than half of
their words, ``CrossLanguage.own_document_holds``: none of the 6 hit). Every 6th English dev
question (61: FinanceBench, MMLongBench, GitLab) on the same corpus: 74.5 % -> 72.3 %, 20 of
them got a Chinese translation (39 skipped).
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
    for name in ("zh", "en"):
        print(f"  {name}: {_llm_use(out / name / 'results.jsonl')}")


def _llm_use(results: Path) -> str:
    """p50 latency, translation calls and their tokens, cross-language flags of one run."""
    rows = [json.loads(line)["record"].get("route_record") or {}
            for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
    lat = sorted(float((r.get("latency_ms") or {}).get("total") or 0) for r in rows)
    calls = [r["cross_language_llm"] for r in rows if r.get("cross_language_llm")]
    flags: dict[str, int] = {}
    for r in rows:
        for f in r.get("flags", []):
            if f.startswith("crosslang"):
                flags[f] = flags.get(f, 0) + 1

    def mean(key: str) -> float:
        return sum(c.get(key, 0) for c in calls) / max(1, len(calls))
    p50 = lat[len(lat) // 2] if lat else 0.0
    return (f"p50 {p50:.0f} ms; translation calls {len(calls)}/{len(rows)}, prompt tokens "
            f"{mean('prompt_tokens'):.0f}, completion tokens {mean('completion_tokens'):.0f} "
            f"(mean per call); flags {flags or 'none'}")


if __name__ == "__main__":
    main()
