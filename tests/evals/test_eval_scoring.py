"""Scoring, aggregation, baseline comparison, reports: a hand-made question set whose right
figures are worked out by hand (see the comments beside each expectation)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evals import (
    AnswerRecord,
    Location,
    answer_contains,
    auroc,
    compare_summaries,
    is_refusal,
    parse_question,
    run_eval,
)
from evals.harness import history_for

Q = [
    {
        "id": "fb:1",
        "question": "capex?",
        "answer": "$1,577",
        "doc": "en/docs/financebench/a.pdf",
        "page": 58,
        "pages": [58],
        "source_dataset": "FinanceBench",
        "lang": "en",
        "tags": [],
    },
    {
        "id": "fb:2",
        "question": "ppne?",
        "answer": "$8.70",
        "doc": "en/docs/financebench/a.pdf",
        "page": 10,
        "pages": [10],
        "source_dataset": "FinanceBench",
        "lang": "en",
        "tags": [],
    },
    {
        "id": "drcd:1-2-1",
        "question": "哪一門語言？",
        "answer": "梵語",
        "answer_aliases": ["梵文"],
        "doc": "zh/docs/drcd/d_1.md",
        "section": "1-2",
        "source_dataset": "DRCD",
        "lang": "zh-Hant",
        "tags": [],
    },
    {
        "id": "fb:3",
        "question": "CEO's cat?",
        "answer": "Not answerable",
        "doc": "en/docs/financebench/a.pdf",
        "page": None,
        "source_dataset": "FinanceBench",
        "lang": "en",
        "tags": ["unanswerable"],
    },
    {
        "id": "gl:1",
        "question": "And the next one?",
        "answer": "loc_",
        "doc": "en/docs/gitlab-handbook/content/chat.md",
        "section": "Channels > Location Channels (loc_)",
        "source_dataset": "GitLab",
        "lang": "en",
        "context": "Prefix of group channels?",
        "tags": ["assumes_current_date:2025-11-11"],
    },
    {
        "id": "mm:1",
        "question": "colour of the logo?",
        "answer": "blue",
        "doc": "en/docs/mm/b.pdf",
        "page": 2,
        "pages": [2],
        "source_dataset": "MMLongBench-Doc",
        "lang": "en",
        "tags": ["answer_needs_image"],
    },
]
QUESTIONS = [parse_question(q) for q in Q]
PDF = "financebench/a.pdf"


def loc(path: str, page: int = 1, section: tuple[str, ...] = ()) -> Location:
    return Location(path=path, page_start=page, page_end=page, section_path=section)


RECORDS = {
    # evidence hit (p58), hit@k at rank 2, "1577.00" contains "$1,577" numerically
    "fb:1": AnswerRecord(
        "Capex was 1577.00 million",
        True,
        [loc(PDF, 58)],
        [loc(PDF, 3), loc(PDF, 58)],
        0.9,
        "rag",
        latency_ms=100,
    ),
    # wrong page everywhere, wrong number; escalated with 2 LLM calls
    "fb:2": AnswerRecord(
        "8.1 billion",
        True,
        [loc(PDF, 11)],
        [loc(PDF, 11)],
        0.2,
        "loop",
        escalated=True,
        llm_calls=2,
        tokens=500,
        latency_ms=200,
    ),
    # Simplified answer for a Traditional gold; citation in section 1-2
    "drcd:1-2-1": AnswerRecord(
        "是梵语",
        True,
        [loc("drcd/d_1.md", 1, ("D", "1-2"))],
        [loc("drcd/d_1.md", 1, ("D", "1-2"))],
        0.8,
        "rag",
        latency_ms=300,
    ),
    # explicit not found on an unanswerable question
    "fb:3": AnswerRecord(
        "Not found in the documents.", False, [], [loc(PDF, 5)], 0.1, "rag", latency_ms=400
    ),
    # right document (doc-level hit), wrong section; gold candidate only at rank 6 (> k=5)
    "gl:1": AnswerRecord(
        "The prefix is loc_",
        True,
        [loc("gitlab-handbook/content/chat.md", 1, ("Intro",))],
        [loc("x.md")] * 5 + [loc("content/chat.md")],
        0.85,
        "fallback_to_rag",
        escalated=True,
        unverified_citations=1,
        llm_calls=1,
        tokens=100,
        latency_ms=500,
    ),
    "mm:1": AnswerRecord("no idea", None, [], [], None, "rag", latency_ms=50),
}
BASELINE = [
    {"id": "fb:1", "hit@1": False, "hit@5": True, "rank": 2},
    {"id": "fb:2", "hit@1": False, "hit@5": True, "rank": 4},
    {"id": "drcd:1-2-1", "hit@1": True, "hit@5": True, "rank": 1},
    {"id": "fb:3", "hit@1": None, "hit@5": None, "rank": None},
    {"id": "gl:1", "hit@1": False, "hit@5": False, "rank": None},
]


class ScriptedAnswerer:
    """Replays the hand-built records above and remembers what it was asked."""

    mode = "rag"

    def __init__(self) -> None:
        self.calls: dict[str, tuple[list[dict[str, str]], str | None]] = {}

    async def answer(self, question, collection, *, history, current_date):  # type: ignore[no-untyped-def]
        self.calls[question.id] = (history, current_date)
        await asyncio.sleep(0)
        if question.id == "mm:1":
            raise RuntimeError("boom")
        return RECORDS[question.id]


def test_answer_contains_rules() -> None:
    assert answer_contains(["$1,577"], "1577.00")
    assert answer_contains(["$8.70"], "about 8.7 billion")
    assert not answer_contains(["$8.70"], "8.738")
    assert answer_contains(["約1138公頃"], "约1138公顷")
    assert answer_contains(["3.0 V ~ 3.6 V"], "3.0V 至 3.6V")
    assert not answer_contains(["no"], "not at all")
    assert not answer_contains(["8"], "地址为18")
    # Chinese writes no spaces: a figure right after a Chinese character is still a figure
    assert answer_contains(["20%"], "P3/M3 职级：绩效工资占比为总薪酬的20%；")
    assert answer_contains(["8"], "出厂时默认地址为8，地址值可")
    assert answer_contains(["A"], "等级A对应") and not answer_contains(["3"], "P3/M3 职级")
    assert not answer_contains(["x"], "")
    assert answer_contains(["['$35,000', '$40,684']"], "35000 and then 40,684")
    assert not answer_contains(["['$35,000', '$40,684']"], "only 35,000")
    assert is_refusal("anything", False) and not is_refusal("", True)
    assert is_refusal("未找到相关内容", None) and not is_refusal("It is 5", None)


def test_auroc_rank_statistic() -> None:
    assert auroc([0.9, 0.85, 0.8, 0.2], [True, False, True, False]) == 0.75
    assert auroc([0.5, 0.5], [True, False]) == 0.5
    assert auroc([1, 2], [True, True]) is None


def test_run_scores_and_summary(tmp_path: Path) -> None:
    base = tmp_path / "B3.jsonl"
    base.write_text("".join(json.dumps(b) + "\n" for b in BASELINE), encoding="utf-8")
    answerer = ScriptedAnswerer()
    out = tmp_path / "runs" / "rag"
    run = asyncio.run(
        run_eval(
            QUESTIONS,
            answerer,
            collection="c",
            mode="rag",
            k=5,
            concurrency=3,
            out_dir=out,
            baseline_path=base,
            progress=False,
        )
    )
    # follow-up asked with its previous turn; the assumed date passed through
    assert answerer.calls["gl:1"] == (
        [{"role": "user", "content": "Prefix of group channels?"}],
        "2025-11-11",
    )
    assert history_for(QUESTIONS[0]) == []
    s = run.summary
    assert s["n"] == 5 and s["n_total"] == 6  # image question apart
    assert s["evidence_hit"] == 0.75  # fb1, drcd, gl1 of 4
    assert s["evidence_hit_at_k"] == 0.5  # fb1, drcd of 4
    assert s["section_hit"] == 0.5  # drcd yes, gl1 no
    assert s["answer_contains"] == 0.75  # fb1, drcd, gl1 of 4
    assert s["refusal_accuracy"] == 1.0 and s["false_refusal_rate"] == 0.0
    assert s["unverified_citations"] == 1
    assert s["latency_ms"] == {"p50": 300.0, "p95": 480.0, "max": 500.0, "mean": 300.0}
    assert s["route_mix"] == {"fallback_to_rag": 0.2, "loop": 0.2, "rag": 0.6}
    assert s["escalation_rate"] == 0.4
    assert (s["llm_calls"], s["tokens"]) == (3, 600)
    assert s["confidence_auroc"] == 0.75 and s["confidence_n"] == 4
    fb = s["by_dataset"]["FinanceBench"]
    assert (fb["n"], fb["evidence_hit"], fb["refusal_accuracy"]) == (3, 0.5, 1.0)
    assert s["by_lang"]["zh-Hant"]["answer_contains"] == 1.0
    assert s["image"]["n"] == 1 and s["image"]["errors"] == 1  # the answerer raised
    b = s["baseline"]
    assert b["all"]["n"] == 4
    assert b["all"]["baseline_hit_at_1"] == 0.25 and b["all"]["baseline_hit_at_5"] == 0.75
    assert b["all"]["diff_evidence_hit_vs_hit_at_1"] == 0.5
    assert b["all"]["diff_hit_at_k_vs_hit_at_5"] == -0.25
    assert [m["id"] for m in b["missed"]] == ["fb:2"]
    # files
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == [q.id for q in QUESTIONS]  # question order
    assert rows[4]["score"]["evidence_rank"] == 6
    assert rows[5]["record"]["error"].startswith("RuntimeError")
    saved = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert saved["by_dataset"]["DRCD"]["evidence_hit"] == 1.0
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Plotly.newPlot" in report and "cdn.plot.ly" not in report.split("<body>")[0]
    assert "fb:2" in report and "Confidence vs hit" in report


def test_compare_summaries() -> None:
    a = {
        "mode": "rag",
        "n": 4,
        "evidence_hit": 0.5,
        "latency_ms": {"p50": 10.0},
        "by_dataset": {"X": {"n": 4, "evidence_hit": 0.5}},
        "by_lang": {},
    }
    b = {
        "mode": "auto",
        "n": 4,
        "evidence_hit": 0.75,
        "latency_ms": {"p50": 25.0},
        "by_dataset": {"X": {"n": 4, "evidence_hit": 0.25}, "Y": {"n": 1}},
        "by_lang": {},
    }
    d = compare_summaries(a, b)
    assert d["all"]["evidence_hit"]["delta"] == 25.0
    assert d["all"]["latency_p50"]["delta"] == 15.0
    assert d["by_dataset"]["X"]["evidence_hit"]["delta"] == -25.0 and "Y" not in d["by_dataset"]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="concurrency"):
        asyncio.run(
            run_eval(
                QUESTIONS,
                ScriptedAnswerer(),
                collection="c",
                mode="rag",
                concurrency=0,
                progress=False,
            )
        )
    with pytest.raises(ValueError, match="no questions"):
        asyncio.run(run_eval([], ScriptedAnswerer(), collection="c", mode="rag", progress=False))


def test_evidence_kind_from_real_mmlongbench_tags() -> None:
    """The text/table split issue 15 asks for, from the tags the dev questions carry."""
    from evals.summary import evidence_kind, summarise

    assert evidence_kind(["Financial report", "evidence:['Table']", "format:Float"]) == "text_table"
    assert evidence_kind(["evidence:['Pure-text (Plain-text)', 'Table']"]) == "text_table"
    assert evidence_kind(["evidence:['Figure', 'Pure-text (Plain-text)']"]) == "visual"
    assert evidence_kind(["evidence:['Pure-text (Plain-text)', 'Generalized-text (Layout)']"]) == "visual"
    assert evidence_kind(["evidence:[]", "unanswerable"]) == "none"
    assert evidence_kind(["assumes_current_date:2025-11-11"]) is None
    rows = [
        {"id": "a", "dataset": "MMLongBench-Doc", "tags": ["evidence:['Table']"],
         "score": {"evidence_hit": True}, "record": {}},
        {"id": "b", "dataset": "MMLongBench-Doc", "tags": ["evidence:['Chart']"],
         "score": {"evidence_hit": False}, "record": {}},
        {"id": "c", "dataset": "GitLab", "tags": [], "score": {"evidence_hit": True}, "record": {}},
    ]
    kinds = summarise(rows)["by_evidence_kind"]
    assert set(kinds) == {"MMLongBench-Doc/text_table", "MMLongBench-Doc/visual"}
    assert kinds["MMLongBench-Doc/text_table"]["n"] == 1


def test_summary_counts_answers_with_a_step_out_of_time() -> None:
    """An answer whose embedding, a search, a router stage or a tool call ran out of time is
    counted (``timed_out``): on a loaded machine such answers measure the load (keyword-only
    retrieval after ``embed_timeout``), so runs are compared fairly only where both are 0."""
    from evals.summary import summarise_group

    def row(route: dict) -> dict:
        return {"score": {"evidence_hit": True, "evidence_hit_at_k": True},
                "record": {"route": "rag", "route_record": route}}

    rows = [row({"flags": ["embed_timeout", "keyword_only"]}),
            row({"flags": [], "timeouts": [{"stage": "retrieve", "limit_s": 2.0}]}),
            row({"steps": [{"tool": "search", "status": "timeout"}]}),
            row({"flags": ["presence_error"], "steps": [{"tool": "read", "status": "ok"}]}),
            row({})]
    assert summarise_group(rows)["timed_out"] == 3
