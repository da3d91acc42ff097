"""deploy/grafana/loopgate-migration-dashboard.json: valid JSON, and every metric its panels query
is one the migration code really exports (names read from the live Prometheus registry)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from prometheus_client import REGISTRY

import gateway.migration.agreement  # noqa: F401 - registers the migration metrics

REPO = Path(__file__).resolve().parents[2]


def test_panels_query_exported_metrics() -> None:
    board = json.loads((REPO / "deploy/grafana/loopgate-migration-dashboard.json").read_text())
    exported: set[str] = set()
    for family in REGISTRY.collect():
        if family.type == "counter":
            exported.add(family.name + "_total")
        elif family.type == "histogram":
            exported |= {family.name + suffix for suffix in ("_bucket", "_sum", "_count")}
    assert board["uid"] == "loopgate-migration" and board["panels"]
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in board["panels"]:
        for target in panel["targets"]:
            names = set(re.findall(r"\b(loopgate_migration_[a-z_]+)", target["expr"]))
            assert names, target["expr"]
            missing = names - exported
            assert not missing, f"{panel['title']}: {missing} not exported"
