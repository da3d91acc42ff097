"""``loopgate calibrate RESULTS.jsonl [--out FILE]``: refit the RAG confidence calibration.

Reads an eval run's per-question records — ``loopgate eval`` ``results.jsonl`` rows (label
``score.evidence_hit_at_k``, features found under the record's route record) or the records of
``benchmarks/retrieval_eval.py --out`` (``hit`` and ``features``) — fits the logistic model
(``rag.confidence.refit_calibration``) and writes it (default: the packaged
``rag/calibration.json``), printing the in-sample AUROC overall and per language. Exit code 1
when the file has too few usable records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

__all__ = ["calibrate_command", "calibration_records", "register"]


def _find_features(obj: Any) -> dict[str, float] | None:
    """The first ``features`` dict holding ``dense_top`` anywhere inside ``obj``."""
    if isinstance(obj, dict):
        feats = obj.get("features")
        if isinstance(feats, dict) and "dense_top" in feats:
            return feats
        for v in obj.values():
            found = _find_features(v)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = _find_features(v)
            if found is not None:
                return found
    return None


def calibration_records(path: Path) -> list[dict[str, Any]]:
    """``{"features", "hit", "lang"}`` per usable row of an eval results file.

    :raises typer.BadParameter: unreadable file or a line that is not JSON.
    """
    out = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc}") from exc
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise typer.BadParameter(f"{path}:{n}: not JSON ({exc.msg})") from exc
        hit = row.get("hit")
        if hit is None and isinstance(row.get("score"), dict):
            hit = row["score"].get("evidence_hit_at_k")
        feats = _find_features(row)
        if isinstance(hit, bool) and feats:
            lang = str(row.get("lang", ""))
            out.append({"features": feats, "hit": hit, "lang": "en" if lang == "en" else "zh"})
    return out


def calibrate_command(
    results: Annotated[Path, typer.Argument(help="results.jsonl of an eval run.")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write (default: rag/calibration.json).")
    ] = None,
    l2: Annotated[float, typer.Option(min=0.0, help="L2 regularisation strength.")] = 1.0,
) -> None:
    """Refit the RAG confidence calibration from an eval run."""
    from rag.confidence import refit_calibration
    from rag.errors import CalibrationError

    records = calibration_records(results)
    try:
        model, report = refit_calibration(records, out=out, l2=l2, meta={"source": results.name})
    except CalibrationError as exc:
        typer.echo(f"error: {exc} ({len(records)} usable records in {results})", err=True)
        raise typer.Exit(1) from None
    typer.echo(
        f"fitted on {model.meta['n']} records ({model.meta['positives']} hits); "
        f"wrote {out or 'rag/calibration.json'}"
    )
    for name, auc in report.items():
        typer.echo(f"  AUROC {name}: {auc:.3f}")
    for name, w in zip(model.names, model.weights, strict=True):
        typer.echo(f"  {name:>18} {w:+.3f}")


def register(app: typer.Typer) -> None:
    """Add ``calibrate`` to the ``loopgate`` command line."""
    app.command("calibrate")(calibrate_command)
