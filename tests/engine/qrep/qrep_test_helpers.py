"""Helpers of the Q Replication engine tests: the published scenarios and a settings editor."""

import copy
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
#: The published scenarios bundled with qrtune.
CALIBRATION = ROOT / "assets" / "validation" / "calibration.json"
#: The Redpaper baseline as a project file.
BASELINE_PROJECT = ROOT / "sample_runs" / "redpaper-baseline.json"


def _scenarios():
    doc = json.loads(CALIBRATION.read_text())
    # SQL Replication scenarios (the comparison baseline) have their own tests (tests/engine/topologies)
    return {
        s["id"]: s for s in doc["scenarios"] if s["kind"] == "qrep" and s.get("topology") != "sql-replication"
    }


SCENARIOS = _scenarios()


def with_setting(settings: dict, path: str, value):
    """A deep copy of ``settings`` with dotted ``path`` set to ``value``."""
    out = copy.deepcopy(settings)
    *groups, last = path.split(".")
    cur = out
    for g in groups:
        cur = cur.setdefault(g, {})
    cur[last] = value
    return out
