"""Parser fidelity on FinanceBench: is each question's evidence text in the chunks of its gold page?

Criterion (issue 2 acceptance, "parser fidelity"). FinanceBench's ``evidence`` strings come
from another PDF extractor (different spacing, ``Shee t``, cell order, page furniture), so an
exact substring test would measure the extractors' whitespace, not our parser. Instead:

- text → tokens: NFKC, lower case, maximal runs of letters/digits (``$2,853`` → ``2``, ``853``);
- for an evidence item ``E`` on gold page ``g``, the candidate text ``T`` is the tokens of every
  chunk whose page span covers ``g`` (``page_start <= g <= page_end``), in chunk order;
- coverage = tokens of ``E`` matched **in order** in ``T`` (``difflib.SequenceMatcher`` matching
  blocks on the token lists, no autojunk) / ``len(E)``;
- an item is **found** when coverage ≥ 0.90; a question counts when all its evidence items are
  found (item ``i`` belongs to ``pages[i]`` when the counts agree, else to any gold page).

Also printed: the stricter "single chunk" figure (one chunk alone reaches 0.90; long
evidence such as a whole balance sheet cannot, by design of 500-1500-character chunks), and a
control: the same coverage against the chunks of page ``g + 7`` (should be far below 0.90, to
show the criterion is not loose).

Run: ``.venv/bin/python benchmarks/parser_fidelity.py [--eval-dir ../shared/eval] [--show-misses]``
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from difflib import SequenceMatcher
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.chunker import chunk_document  # noqa: E402
from corpus.parsers import parse_file  # noqa: E402
from corpus.types import Chunk  # noqa: E402

THRESHOLD = 0.90
_TOKEN = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """NFKC, lower-cased runs of letters and digits."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def coverage(evidence: list[str], text: list[str]) -> float:
    """Share of ``evidence`` tokens matched in order inside ``text`` (0..1)."""
    if not evidence:
        return 1.0
    sm = SequenceMatcher(None, evidence, text, autojunk=False)
    return sum(b.size for b in sm.get_matching_blocks()) / len(evidence)


def page_tokens(chunks: list[Chunk], page: int) -> list[str]:
    """Tokens of every chunk whose page span covers ``page``, in chunk order."""
    out: list[str] = []
    for c in chunks:
        if c.page_start <= page <= c.page_end:
            out.extend(tokens(c.text))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--eval-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "eval"
    )
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()
    qfile = args.eval_dir / "en" / "questions.jsonl"
    if not qfile.exists():
        print(f"evaluation material not found: {qfile}")
        return 2
    qs = [json.loads(x) for x in qfile.open(encoding="utf-8")]
    qs = [q for q in qs if q["source_dataset"] == "FinanceBench"]
    cache: dict[str, list[Chunk]] = {}
    hits = single_hits = 0
    control: list[float] = []
    misses: list[str] = []
    t0 = time.perf_counter()
    for q in qs:
        doc = q["doc"]
        if doc not in cache:
            parsed = parse_file(args.eval_dir / doc)
            cache[doc] = chunk_document(parsed, rel_path=doc)
        chunks = cache[doc]
        pages = q.get("pages") or [q["page"]]
        items = q["evidence"] if isinstance(q["evidence"], list) else [q["evidence"]]
        ok = single_ok = True
        worst = (1.0, 0, "")
        for i, ev in enumerate(items):
            etoks = tokens(ev)
            cand = [pages[i]] if len(items) == len(pages) else pages
            cov = max(coverage(etoks, page_tokens(chunks, g)) for g in cand)
            one = max(
                (
                    coverage(etoks, tokens(c.text))
                    for c in chunks
                    for g in cand
                    if c.page_start <= g <= c.page_end
                ),
                default=0.0,
            )
            control.append(coverage(etoks, page_tokens(chunks, cand[0] + 7)))
            if cov < THRESHOLD:
                ok = False
                if cov < worst[0]:
                    worst = (cov, cand[0], ev[:160].replace("\n", " "))
            single_ok &= one >= THRESHOLD
        hits += ok
        single_hits += single_ok
        if not ok:
            misses.append(
                f"{q['id']}  {doc}  page {worst[1]}  coverage {worst[0]:.2f}  «{worst[2]}»"
            )
    n = len(qs)
    print(f"FinanceBench questions: {n} over {len(cache)} PDFs  ({time.perf_counter() - t0:.1f} s)")
    print(
        f"fidelity (evidence found in the chunks covering the gold page, coverage >= {THRESHOLD}):"
        f" {hits}/{n} = {100 * hits / n:.1f} %"
    )
    print(
        f"stricter, one chunk alone holds >= {THRESHOLD} of the evidence: "
        f"{single_hits}/{n} = {100 * single_hits / n:.1f} %"
    )
    if control:
        print(
            f"control, same evidence vs chunks of page+7: mean coverage {sum(control) / len(control):.2f},"
            f" found {sum(c >= THRESHOLD for c in control)}/{len(control)}"
        )
    if args.show_misses or misses:
        print("misses:")
        for m in misses:
            print("  " + m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
