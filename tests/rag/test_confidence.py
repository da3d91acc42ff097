"""Confidence features, the logistic calibration and its refit, AUROC."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from corpus.types import Chunk, SearchHit
from rag import (
    FEATURE_NAMES,
    CalibrationError,
    ConfidenceFeatures,
    LogisticConfidence,
    auroc,
    compute_features,
    fit_logistic,
    fuse,
    refit_calibration,
)
from tests._support.chunks import make_chunk


def _chunk(doc: str, ordinal: int, text: str) -> Chunk:
    return make_chunk(doc, ordinal, text, chunk_id=f"{doc}-{ordinal}", path=f"{doc}.md",
                      page_start=1, page_end=1)


def test_auroc_known_values() -> None:
    assert auroc([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1]) == 1.0
    assert auroc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == 0.0
    assert auroc([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1]) == 0.5
    assert auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75
    assert auroc([0.1], [1]) != auroc([0.1], [1])  # NaN for one class


def test_features_from_real_lists() -> None:
    a = _chunk("d1", 0, "Warranty: FW-301 units carry a 24 month warranty.")
    b = _chunk("d1", 1, "Shipping takes five days.")
    c = _chunk("d2", 0, "Unrelated text about cafeterias.")
    dense = [SearchHit(a, 0.91), SearchHit(c, 0.85)]
    keyword = [SearchHit(a, 12.0), SearchHit(b, 3.0)]
    items = fuse(dense, keyword, top_k=5, merge=False)
    f = compute_features(dense, keyword, items, ["fw-301", "24", "warranty", "zebra"])
    assert f.dense_top == pytest.approx(0.91) and f.dense_margin == pytest.approx(0.06)
    assert f.keyword_margin == pytest.approx(0.75)
    assert f.top_doc_agreement == 1.0 and f.agreement == pytest.approx(0.2)
    assert f.coverage == pytest.approx(0.75) and f.number_coverage == 1.0
    empty = compute_features([], [], [], [])
    assert empty.dense_top == 0.0 and empty.coverage == 0.0


def test_fit_separates_and_refit_round_trips(tmp_path: Path) -> None:
    rng = random.Random(7)
    records = []
    for i in range(200):
        hit = i % 2 == 0
        feats = ConfidenceFeatures(
            dense_top=0.85 + (0.04 if hit else 0.0) + rng.gauss(0, 0.02),
            coverage=(0.8 if hit else 0.4) + rng.gauss(0, 0.15),
        ).to_dict()
        records.append({"features": feats, "hit": hit, "lang": "en" if i % 4 < 2 else "zh"})
    records.append({"features": {}, "hit": None})  # unanswerable: skipped
    out = tmp_path / "cal.json"
    model, report = refit_calibration(records, out=out, meta={"run": "synthetic"},
                                      features=FEATURE_NAMES)
    assert report["all"] > 0.9 and set(report) == {"all", "en", "zh"}
    loaded = LogisticConfidence.load(out)
    assert loaded.names == FEATURE_NAMES and loaded.meta["n"] == 200
    assert loaded.meta["auroc_cv"]["all"] > 0.85 and set(loaded.meta["auroc_cv"]) == {
        "all", "en", "zh"}
    hi = loaded.score(ConfidenceFeatures(dense_top=0.9, coverage=0.9))
    lo = loaded.score(ConfidenceFeatures(dense_top=0.84, coverage=0.3))
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert json.loads(out.read_text())["model"] == "logistic"


def test_packaged_calibration_loads_and_bad_data_is_refused(tmp_path: Path) -> None:
    model = LogisticConfidence.load()
    assert 0.0 <= model.score(ConfidenceFeatures()) <= 1.0
    with pytest.raises(CalibrationError):
        LogisticConfidence.from_dict(
            {"features": ["nope"], "weights": [1], "means": [0], "stds": [1], "bias": 0}
        )
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError):
        LogisticConfidence.load(bad)
    with pytest.raises(CalibrationError):
        fit_logistic([[0.0]] * 20, [1] * 20)
