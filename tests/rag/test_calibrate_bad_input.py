"""``loopgate calibrate`` on files that are not clean eval results: a clear error (exit code and
one message), never a traceback, and never a model with non-finite weights written.

Found by a hostile-input trial: a JSON line that is a list, a file that is not UTF-8, a feature
``"abc"`` or a list ended the command with an AttributeError / UnicodeDecodeError / ValueError
traceback; features of 1e308 wrote a calibration whose weights were all NaN; a ``--router`` row
without ``score`` raised KeyError and a ``--support`` row with ``flags: 5`` a TypeError.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gateway.cli import app
from rag.confidence import readable_features
from rag.confidence_fit import fit_logistic
from rag.errors import CalibrationError


def _clean_rows(n: int = 40) -> list[dict[str, Any]]:
    rng = random.Random(5)
    rows = []
    for i in range(n):
        hit = i % 3 != 0
        rows.append({"lang": "en", "hit": hit, "dataset": "d",
                     "features": {"dense_top": 0.8 + 0.1 * hit + rng.gauss(0, 0.03),
                                  "coverage": rng.random()}})
    return rows


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _run(*argv: str) -> Any:
    return CliRunner().invoke(app, ["calibrate", *argv])


@pytest.mark.parametrize("extra", [[], ["--support"], ["--router", "SELF"]])
@pytest.mark.parametrize(("content", "message"), [
    ('{"hit": true}\n[1, 2]\n', "not a JSON object (a list)"),
    ('"text"\n', "not a JSON object (a str)"),
    ("null\n", "not a JSON object (a NoneType)"),
    (b"\xff\xfe junk \x80", "not UTF-8 text"),
])
def test_a_file_that_is_no_results_is_one_error(tmp_path: Path, content: str | bytes,
                                                message: str, extra: list[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content, encoding="utf-8")
    argv = [str(bad), "--out", str(tmp_path / "out.json"),
            *[str(bad) if a == "SELF" else a for a in extra]]
    res = _run(*argv)
    assert res.exit_code == 2, res.output
    assert isinstance(res.exception, SystemExit)
    assert message in " ".join(res.output.replace("│", " ").split())
    assert not (tmp_path / "out.json").exists()


def test_rows_with_unreadable_features_are_skipped(tmp_path: Path) -> None:
    rows: list[Any] = _clean_rows()
    junk = [{"dense_top": "abc"}, {"dense_top": [1, 2]}, {"dense_top": float("nan")},
            {"coverage": float("inf")}, {"dense_top": None}, "not a dict"]
    rows += [{"hit": i % 2 == 0, "features": f} for i, f in enumerate(junk)]
    out = tmp_path / "cal.json"
    res = _run(str(_write(tmp_path / "r.jsonl", rows)), "--out", str(out))
    assert res.exit_code == 0, res.output
    assert "fitted on 40 records" in res.output
    model = json.loads(out.read_text())
    assert all(math.isfinite(v) for k in ("weights", "means", "stds") for v in model[k])


def test_features_too_large_to_fit_write_nothing(tmp_path: Path) -> None:
    rows = _clean_rows()
    for i, r in enumerate(rows):
        r["features"]["dense_top"] = 1e308 * (i % 3)
    out = tmp_path / "cal.json"
    res = _run(str(_write(tmp_path / "r.jsonl", rows)), "--out", str(out))
    assert res.exit_code == 1, res.output
    assert isinstance(res.exception, SystemExit)
    assert "finite numbers" in res.output
    assert not out.exists()


def test_router_and_support_rows_of_the_wrong_shape_are_skipped(tmp_path: Path) -> None:
    rows = [{"id": 1}, {"id": 2, "score": 5},
            *({"id": 10 + i, "question": "q", "score": {"refused": True, "evidence_hit": True},
               "record": {"confidence": "high", "candidates": "abc",
                          "route_record": {"flags": 5, "support": {"coverage": "x"},
                                           "features": {"dense_top": "x"}}}}
              for i in range(12))]
    path = _write(tmp_path / "r.jsonl", rows)
    for extra in (["--support"], ["--router", str(path)]):
        res = _run(str(path), "--out", str(tmp_path / "o.json"), *extra)
        assert res.exit_code == 1, res.output
        assert isinstance(res.exception, SystemExit)
        assert res.output.startswith("error: ")


def test_readable_features_and_a_fit_on_non_finite_values() -> None:
    assert readable_features({"dense_top": 0.5, "unknown": "x"}) is not None
    assert readable_features({"dense_top": "0.5"}) is not None
    for bad in ({}, None, [], {"dense_top": "abc"}, {"dense_top": float("nan")},
                {"coverage": 1e999}):
        assert readable_features(bad) is None
    y = [i % 2 for i in range(20)]
    with pytest.raises(CalibrationError):
        fit_logistic([[float("nan")] if i == 3 else [float(i)] for i in range(20)], y)
    with pytest.raises(CalibrationError):
        fit_logistic([[1e308 * (i % 3)] for i in range(20)], y)
