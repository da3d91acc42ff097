"""End to end over a few real documents: ingest (real PDF, Markdown, TXT; real embedded Qdrant;
real embedding model), then ``loopgate eval`` in each mode, scored against the real gold."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from evals import load_questions, run_eval
from evals.components import build_answerer
from gateway.settings import Settings

pytestmark = [pytest.mark.integration, pytest.mark.eval]

DOCS = [
    "zh/docs/drcd/drcd_1147_梵文.md",
    "zh/docs/drcd/drcd_1160_關島.md",
    "zh/docs/cmrc2018/DEV_12_武藏浦和站.txt",
    "zh/docs/cmrc2018/DEV_21_津蓟铁路.txt",
    "zh/docs/pdf/cybersecurity_law.pdf",
]


@pytest.fixture(scope="module")
def index(eval_dir: Path, embed_model_path: Path, tmp_path_factory: pytest.TempPathFactory):
    """A small collection ``t`` under a fresh data dir, and the questions about its documents."""
    from corpus.ingest import Ingestor
    from corpus.qdrant_store import QdrantChunkStore
    from gateway.wiring import get_tokenizer
    from rag.embedder import FastEmbedEmbedder

    data = tmp_path_factory.mktemp("eval-data")
    store = QdrantChunkStore.embedded(data / "qdrant")
    emb = FastEmbedEmbedder(model_path=embed_model_path, threads=1, batch_size=16)
    try:
        report = Ingestor(store, get_tokenizer(), emb, workers=1).ingest_paths(
            [eval_dir / d for d in DOCS], "t", root=eval_dir / "zh" / "docs"
        )
    finally:
        store.close()
    assert report.counts["failed"] == 0, report.to_dict()
    qs = load_questions([eval_dir / "zh/questions.jsonl", eval_dir / "zh/questions_pdf.jsonl"])
    qs = [q for q in qs if q.doc in DOCS]
    qfile = data / "questions.jsonl"
    qfile.write_text(
        "".join(json.dumps(q.to_dict(), ensure_ascii=False) + "\n" for q in qs), encoding="utf-8"
    )
    return data, qs, qfile, emb


@pytest.mark.parametrize("mode", ["rag", "loop", "auto"])
def test_modes_over_real_documents(
    index, mode: str, eval_dir: Path, embed_model_path: Path
) -> None:
    data, qs, _, _ = index
    settings = Settings(data_dir=data, embed_model_path=embed_model_path)
    built = build_answerer(mode, settings, offline=True)

    async def go():
        try:
            return await run_eval(
                qs,
                built.answerer,
                collection="t",
                mode=mode,
                progress=False,
                baseline_path=eval_dir / "baseline/B3.jsonl",
            )
        finally:
            await built.aclose()

    run = asyncio.run(go())
    s = run.summary
    assert s["n"] == len(qs) >= 8 and s["errors"] == 0
    assert set(s["by_dataset"]) == {"DRCD", "CMRC2018", "zh-pdf-authored"}
    # five documents only: the right document is always among the candidates for CMRC2018
    assert s["by_dataset"]["CMRC2018"]["evidence_hit_at_k"] == 1.0
    assert s["evidence_hit_at_k"] > 0.3 and s["evidence_hit"] is not None
    assert s["baseline"]["all"]["n"] > 0
    assert s["llm_calls"] == 0  # offline: no LLM at all
    routes = set(s["route_mix"])
    if mode == "rag":
        assert routes == {"rag"} and s["confidence_n"] == s["n"] - s["n_unanswerable"]
    if mode == "loop":
        assert routes <= {"loop", "fallback_to_rag"}
    for row in run.rows:
        assert row["record"]["route_record"], row["id"]  # every row carries its route


def test_cli_run_and_compare(
    index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, eval_dir: Path, embed_model_path: Path
) -> None:
    data, qs, qfile, _ = index
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(data))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", str(embed_model_path))
    runner = CliRunner()
    out = tmp_path / "runs"
    res = runner.invoke(
        app,
        [
            "eval",
            str(qfile),
            "--collection",
            "t",
            "--mode",
            "rag",
            "--limit",
            "4",
            "--out",
            str(out / "rag"),
            "--no-progress",
            "--baseline",
            str(eval_dir / "baseline/B3.jsonl"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "LoopGate eval" in res.output and "vs baseline" in res.output
    assert "gold documents that are not in collection" not in res.output
    elsewhere = json.loads(qfile.read_text(encoding="utf-8").splitlines()[0])
    elsewhere["doc"] = "zh/docs/drcd/not_ingested.md"
    (tmp_path / "elsewhere.jsonl").write_text(json.dumps(elsewhere) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["eval", str(tmp_path / "elsewhere.jsonl"), "--collection", "t",
                              "--mode", "rag", "--out", str(out / "elsewhere"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "1 of 1 questions have gold documents that are not in collection 't'" in " ".join(
        res.output.split())
    summary = json.loads((out / "rag" / "summary.json").read_text(encoding="utf-8"))
    assert summary["n"] == 4 and summary["mode"] == "rag"
    assert (out / "rag" / "report.html").stat().st_size > 1_000_000  # plotly.js inline
    assert len((out / "rag" / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 4
    res = runner.invoke(
        app, ["eval", "compare", str(out / "rag" / "summary.json"), str(out / "rag")]
    )
    assert res.exit_code == 0, res.output
    assert "evidence_hit" in res.output
    res = runner.invoke(app, ["eval", "report", str(out / "rag")])
    assert res.exit_code == 0, res.output
    assert "report.html" in res.output
    bad = runner.invoke(app, ["eval", str(tmp_path / "none.jsonl"), "--collection", "t"])
    assert bad.exit_code == 2 and "not found" in bad.output
    missing = runner.invoke(
        app,
        [
            "eval",
            str(qfile),
            "--collection",
            "nope",
            "--mode",
            "rag",
            "--no-progress",
            "--out",
            str(out / "x"),
        ],
    )
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_summary_records_the_tuning_used(
    index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embed_model_path: Path
) -> None:
    """``summary.json`` names the tuned constants the run used (``corpus.tuning``), so two runs
    can be compared knowing what they ran with."""
    from corpus.tuning import TUNING, tuning_record

    data, _, qfile, _ = index
    monkeypatch.setenv("LOOPGATE_DATA_DIR", str(data))
    monkeypatch.setenv("LOOPGATE_EMBED_MODEL_PATH", str(embed_model_path))
    out = tmp_path / "loop"
    res = CliRunner().invoke(app, ["eval", str(qfile), "--collection", "t", "--mode", "loop",
                                   "--limit", "2", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["tuning"] == tuning_record()
    assert summary["tuning"]["evidence"]["rank_decay"] == TUNING.evidence.rank_decay == 0.25
    assert summary["tuning"]["offline"]["max_reads"] == TUNING.offline.max_reads
