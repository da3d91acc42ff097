"""Question loading and gold-location matching (evals.questions / evals.gold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.types import Chunk, Citation, SearchHit
from evals import (
    QuestionFormatError,
    chunk_hits_gold,
    doc_matches,
    gold_level,
    load_questions,
    location_hits_gold,
    parse_question,
    section_hits_gold,
)

PDF_Q = {
    "id": "financebench:1",
    "question": "net PPNE?",
    "answer": "$8.70",
    "doc": "en/docs/financebench/3M_2018_10K.pdf",
    "page": 58,
    "pages": [58, 60],
    "section": None,
    "source_dataset": "FinanceBench",
    "lang": "en",
    "tags": [],
}
DRCD_Q = {
    "id": "drcd:1147-2-1",
    "question": "哪一門語言？",
    "answer": "梵語",
    "doc": "zh/docs/drcd/drcd_1147_梵文.md",
    "page": None,
    "section": "1147-2",
    "source_dataset": "DRCD",
    "lang": "zh-Hant",
    "answer_aliases": ["梵語", "梵文"],
    "tags": ["wikipedia"],
}
GITLAB_Q = {
    "id": "deep-rag-benchmark:x:0",
    "question": "And for the next one?",
    "answer": "loc_",
    "doc": "en/docs/gitlab-handbook/content/handbook/communication/chat.md",
    "page": None,
    "section": "Channels > Channel Categories > Location Channels (loc_)",
    "source_dataset": "deep-rag-benchmark (GitLab Handbook)",
    "lang": "en",
    "tags": ["multi_doc", "assumes_current_date:2025-11-11"],
    "context": "What is the prefix for Group Channels in Slack?",
}
ZHPDF_Q = {
    "id": "zhpdf:1",
    "question": "两处？",
    "answer": "x",
    "doc": "zh/docs/pdf/a.pdf",
    "page": 3,
    "pages": [3],
    "section": None,
    "source_dataset": "zh-pdf-authored",
    "lang": "zh-Hans",
    "tags": ["multi_hop"],
    "evidence_pages": [
        {"doc": "zh/docs/pdf/a.pdf", "page": 3},
        {"doc": "zh/docs/pdf/b.pdf", "page": 9},
    ],
}
UNANS_Q = {**PDF_Q, "id": "mm:1", "page": None, "pages": [], "tags": ["unanswerable"]}


def test_pdf_page_span_and_path_roots() -> None:
    q = parse_question(PDF_Q)
    assert gold_level(q) == "page"
    for root_path in (
        "en/docs/financebench/3M_2018_10K.pdf",
        "financebench/3M_2018_10K.pdf",
        "3M_2018_10K.pdf",
        "/abs/eval/en/docs/financebench/3M_2018_10K.pdf",
    ):
        assert chunk_hits_gold(q, root_path, 57, 58, ())
    assert chunk_hits_gold(q, "financebench/3M_2018_10K.pdf", 60, 0, ())  # page_end 0 = start
    assert not chunk_hits_gold(q, "financebench/3M_2018_10K.pdf", 59, 59, ())
    assert not chunk_hits_gold(q, "financebench/3M_2019_10K.pdf", 58, 58, ())
    assert not chunk_hits_gold(q, "other/3M_2018_10K.pdf", 58, 58, ())


def test_drcd_section_id() -> None:
    q = parse_question(DRCD_Q)
    assert gold_level(q) == "section"
    assert chunk_hits_gold(q, "drcd/drcd_1147_梵文.md", 1, 1, ["梵文", "1147-2"])
    assert not chunk_hits_gold(q, "drcd/drcd_1147_梵文.md", 1, 1, ["梵文", "1147-3"])
    assert not chunk_hits_gold(q, "drcd/drcd_1148_x.md", 1, 1, ["1147-2"])
    assert q.gold_answers == ("梵語", "梵文")


def test_gitlab_document_and_section() -> None:
    q = parse_question(GITLAB_Q)
    assert gold_level(q) == "document"
    assert q.is_follow_up and q.current_date == "2025-11-11"
    path = "gitlab-handbook/content/handbook/communication/chat.md"
    assert chunk_hits_gold(q, path, 1, 1, ["Introduction"])
    assert doc_matches(q, "content/handbook/communication/chat.md")
    assert not doc_matches(q, "content/handbook/chat.md")
    deeper = [
        "GitLab Communication Chat",
        "Channels",
        "Channel Categories",
        "Location Channels (loc_) {#loc}",
        "Sub",
    ]
    assert section_hits_gold(q, path, deeper)
    assert not section_hits_gold(q, path, ["Channels", "Channel Categories", "Group Channels (g_)"])


def test_evidence_pages_other_document_and_unanswerable() -> None:
    q = parse_question(ZHPDF_Q)
    assert chunk_hits_gold(q, "pdf/b.pdf", 8, 9, ())
    assert doc_matches(q, "pdf/b.pdf")
    assert not chunk_hits_gold(q, "pdf/b.pdf", 3, 3, ())
    u = parse_question(UNANS_Q)
    assert u.unanswerable and gold_level(u) == "none"
    assert not chunk_hits_gold(u, "financebench/3M_2018_10K.pdf", 1, 500, ())


def test_location_objects() -> None:
    q = parse_question(PDF_Q)
    chunk = Chunk(
        "c1", "d", "financebench/3M_2018_10K.pdf", "t", ("Balance",), 58, 58, 1, 9, 0, 9, "x"
    )
    cit = Citation("c1", "financebench/3M_2018_10K.pdf", (), 60, (1, 2), "x")
    assert location_hits_gold(q, chunk)
    assert location_hits_gold(q, SearchHit(chunk, 0.5))
    assert location_hits_gold(q, cit)
    assert location_hits_gold(q, cit.to_dict())
    assert not location_hits_gold(q, {"path": "financebench/3M_2018_10K.pdf", "page": 2})


def test_load_errors_name_file_and_line(tmp_path: Path) -> None:
    good = tmp_path / "q.jsonl"
    good.write_text(json.dumps(PDF_Q) + "\n\n" + json.dumps(DRCD_Q) + "\n", encoding="utf-8")
    assert [q.id for q in load_questions([good])] == ["financebench:1", "drcd:1147-2-1"]
    assert len(load_questions([good], limit=1)) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(PDF_Q) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(QuestionFormatError, match=r"bad.jsonl:2"):
        load_questions([bad])
    missing = tmp_path / "m.jsonl"
    missing.write_text(json.dumps({"id": "a", "question": "q"}) + "\n", encoding="utf-8")
    with pytest.raises(QuestionFormatError, match="missing field"):
        load_questions([missing])
    with pytest.raises(QuestionFormatError, match="duplicate"):
        load_questions([good, good])


def test_empty_or_blank_required_fields_are_named_line_by_line(tmp_path: Path) -> None:
    """``"question": ""`` (or blank, or not text) is an error naming its line, every such line
    of the file at once, and ``loopgate eval`` stops with exit 2 before asking anything (found
    by a new-user trial: a file with an empty question ran, scored and wrote its report)."""
    from typer.testing import CliRunner

    from gateway.cli import app

    f = tmp_path / "q.jsonl"
    lines = [PDF_Q, {**DRCD_Q, "question": ""}, {**DRCD_Q, "id": "drcd:2", "question": "  \t"},
             {**DRCD_Q, "id": "drcd:3", "lang": ""}, {**DRCD_Q, "id": "drcd:4", "question": ["q"]},
             {**DRCD_Q, "id": "drcd:5", "answer": "", "tags": ["unanswerable"]},
             {**DRCD_Q, "id": "drcd:6", "answer": 42}]
    f.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines),
                 encoding="utf-8")
    with pytest.raises(QuestionFormatError) as err:
        load_questions([f])
    assert err.value.where == f"{f}:2"
    assert err.value.problems == (
        f"{f}:2: field 'question' is empty", f"{f}:3: field 'question' is empty",
        f"{f}:4: field 'lang' is empty", f"{f}:5: field 'question' must be a string, got list")
    assert str(err.value).startswith("4 bad question lines:")
    ok = tmp_path / "ok.jsonl"
    ok.write_text("".join(json.dumps(r) + "\n" for r in (lines[0], lines[5], lines[6])),
                  encoding="utf-8")
    assert [q.answer for q in load_questions([ok])] == [PDF_Q["answer"], "", "42"]
    res = CliRunner().invoke(app, ["eval", str(f), "--collection", "t", "-m", "rag",
                                   "-o", str(tmp_path / "run")])
    assert res.exit_code == 2, res.output
    assert "q.jsonl:2: field 'question' is empty" in res.output
    assert "q.jsonl:3: field 'question' is empty" in res.output
    assert not (tmp_path / "run").exists()


def test_shared_question_files_load(eval_dir: Path) -> None:
    qs = load_questions([eval_dir / "en/questions.jsonl", eval_dir / "zh/questions.jsonl"])
    assert len(qs) == 514
    assert sum(q.unanswerable for q in qs) == 40
