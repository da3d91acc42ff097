"""``loopgate calibrate --support --keep-weights``: the packaged model's weights stay, a refusal
threshold is chosen per path and language from eval results, and one without out-of-sample
lift is dropped (0: that language is never refused by it)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from corpus.answer_support import SupportModel
from gateway.cli import app


def _row(i: int, lang: str, answerable: bool, strong: bool, rng: random.Random) -> dict[str, Any]:
    cov = (0.85 if strong else 0.1) + rng.uniform(0, 0.1)
    zh = 1.0 if lang == "zh" else 0.0
    feats = {"unit_cov": cov, "ctx_cov": cov, "chunk_cov": cov, "name_cov": 1.0 if strong else 0.0,
             "specific_cov": 1.0, "figure_match": 1.0, "doc_cov": cov,
             "doc_name_cov": 1.0 if strong else 0.0, "n_terms": 2.0, "zh": zh, "pdf": 0.0,
             "retrieval": 0.95 if strong else 0.25}
    score = {"refused": False, "evidence_hit": answerable, "evidence_hit_at_k": answerable,
             "refusal_correct": None if answerable else False}
    return {"id": f"{lang}{i}", "lang": "zh-Hans" if zh else "en", "dataset": "d", "mode": "rag",
            "score": score, "record": {"route_record": {"support": feats, "flags": []}}}


def test_keep_weights_chooses_per_language_thresholds(tmp_path: Path) -> None:
    rng = random.Random(7)
    # Chinese: unanswerable answers weak, answerable ones strong; English: both mixed alike
    rows = [_row(i, "zh", True, True, rng) for i in range(60)]
    rows += [_row(i, "zh", False, False, rng) for i in range(60, 90)]
    rows += [_row(i, "en", True, i % 2 == 0, rng) for i in range(60)]
    rows += [_row(i, "en", False, i % 2 == 0, rng) for i in range(60, 90)]
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "support.json"
    got = CliRunner().invoke(app, ["calibrate", "--support", "--keep-weights", str(results),
                                   "--out", str(out)])
    assert got.exit_code == 0, got.output
    assert "rag zh threshold" in got.output and "rag en threshold" in got.output
    fitted, packaged = SupportModel.load(out), SupportModel.load()
    assert fitted is not None and packaged is not None
    assert fitted.weights == packaged.weights  # kept
    assert fitted.languages["zh"].weights == packaged.languages["zh"].weights
    weak = rows[60]["record"]["route_record"]["support"]
    assert fitted.languages["zh"].threshold > 0 and not fitted.answers(weak)
    assert fitted.languages["en"].threshold == 0.0  # English: no lift, nothing refused
    assert json.loads(out.read_text())["meta"]["threshold_dropped"]


def test_records_take_the_language_of_the_eval_row(tmp_path: Path) -> None:
    """The eval tags Chinese questions zh-Hans / zh-Hant: a record without support features (no
    evidence) counts in the Chinese budget, not the English one (it counted as English)."""
    from gateway.cli.calibrate_support import support_records

    rng = random.Random(3)
    rows = [_row(0, "zh", True, True, rng), {**_row(1, "zh", True, True, rng), "lang": "zh-Hant"}]
    rows[1]["record"]["route_record"]["support"] = {}
    rows.append({**_row(2, "en", True, True, rng)})
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert [r.language for r in support_records(results)] == ["zh", "zh", "en"]
