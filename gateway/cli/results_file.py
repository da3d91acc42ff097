"""Reading an eval run's results file (``loopgate eval`` ``results.jsonl``, or the records of
``benchmarks/retrieval_eval.py --out``) for ``loopgate calibrate``: one JSON object per line;
anything else is a clear one-line error, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

__all__ = ["as_dict", "as_list", "find_features", "read_jsonl"]


def find_features(obj: Any) -> dict[str, float] | None:
    """The first ``features`` dict holding ``dense_top`` anywhere inside ``obj``."""
    if isinstance(obj, dict):
        feats = obj.get("features")
        if isinstance(feats, dict) and "dense_top" in feats:
            return feats
        for v in obj.values():
            found = find_features(v)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = find_features(v)
            if found is not None:
                return found
    return None


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON rows of a JSON Lines file (blank lines skipped).

    :raises typer.BadParameter: unreadable file, not UTF-8 text, or a line that is not a JSON
        object (an eval run writes one object per line).
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise typer.BadParameter(f"cannot read {path}: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise typer.BadParameter(f"{path}: not UTF-8 text ({exc.reason} at byte "
                                 f"{exc.start})") from exc
    rows = []
    for n, line in enumerate(lines, 1):
        if line.strip():
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise typer.BadParameter(f"{path}:{n}: not JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise typer.BadParameter(f"{path}:{n}: not a JSON object (a "
                                         f"{type(row).__name__}): not an eval results row")
            rows.append(row)
    return rows


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a dict, else an empty one (a results row's optional parts)."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty one."""
    return value if isinstance(value, list) else []
