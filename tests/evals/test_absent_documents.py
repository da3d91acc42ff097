"""``benchmarks/absent_documents.py``: which documents it deletes and which questions it turns
into unanswerable ones (the pure part; the deleting runs against a served copy of an index)."""

from __future__ import annotations

import sys
from pathlib import Path

from evals.questions import parse_question

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import absent_documents as ad  # noqa: E402  (a script: its folder is its import root)


def _q(qid: str, doc: str, ds: str = "MMLongBench-Doc", **extra: object) -> dict[str, object]:
    return {"id": qid, "question": f"question {qid}?", "answer": "42", "doc": doc,
            "pages": [3], "evidence": ["…"], "source_dataset": ds, "lang": "en", **extra}


RECORDS = {
    "a": _q("a", "en/docs/mmlongbench/one.pdf"),
    "b": _q("b", "en/docs/mmlongbench/two.pdf", context="an earlier turn"),
    "c": _q("c", "en/docs/mmlongbench/one.pdf",
            evidence_pages=[{"doc": "en/docs/mmlongbench/two.pdf", "page": 1}]),
    "d": _q("d", "zh/docs/drcd/x.txt", ds="DRCD"),
    "u": {**_q("u", "en/docs/mmlongbench/one.pdf"), "answer": "Not answerable",
          "tags": ["unanswerable"]},
}
PATHS = ["mmlongbench/one.pdf", "mmlongbench/two.pdf", "mmlongbench/three.pdf", "drcd/x.txt"]


def test_picks_a_share_of_each_datasets_gold_documents_the_same_way_each_time() -> None:
    qs = [parse_question(r) for r in RECORDS.values()]
    picks = ad.pick_documents(qs, PATHS, 0.5, seed=15)
    assert set(picks) == {"MMLongBench-Doc", "DRCD"}
    assert len(picks["MMLongBench-Doc"]) == 1  # half of one.pdf, two.pdf (three.pdf: no gold)
    assert picks["DRCD"] == ["drcd/x.txt"]  # at least one per dataset
    assert picks == ad.pick_documents(qs, PATHS, 0.5, seed=15)


def test_a_question_becomes_unanswerable_only_when_every_gold_document_is_gone() -> None:
    qs = [parse_question(r) for r in RECORDS.values()]
    rows = ad.absent_questions(qs, {"mmlongbench/two.pdf", "drcd/x.txt"}, RECORDS)
    assert [r["id"] for r in rows] == ["b#absent", "d#absent"]  # c still has one.pdf
    back = [parse_question(r) for r in rows]
    assert all(q.unanswerable and not q.gold_docs and "absent_document" in q.tags for q in back)
    assert back[0].context == "an earlier turn"  # a follow-up is still asked as one
    both = ad.absent_questions(qs, {"mmlongbench/one.pdf", "mmlongbench/two.pdf"}, RECORDS)
    assert [r["id"] for r in both] == ["a#absent", "b#absent", "c#absent"]  # u was already
