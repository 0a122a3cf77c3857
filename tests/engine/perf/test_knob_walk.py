"""Every knob of every sample either changes a result or is reported in ``ignored`` with a reason.

The walk sets each registry knob that feeds the sample's scenario to other values across its
registry range (both ends, the geometric middle, and +-10% / x2 of the sample's value) and
compares all metrics and the bottleneck with the sample's own prediction. A knob that never
changes them must be in the prediction's ``ignored`` with a reason in ``ignored_reasons``; a
value the engine rejects must be rejected with a message naming a setting (never a traceback).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest

from engine import projectfile
from engine.errors import FieldError
from engine.predict import predict_settings
from engine.registry import scenario_specs
from engine.scenario import get_path, project_to_scenario, set_path

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = sorted(p.stem for p in (ROOT / "sample_runs").glob("*.json"))


def _candidates(spec, current) -> list:
    if spec.type == "bool":
        return [not bool(current)]
    if spec.type == "enum":
        return [c for c in spec.choices if c != current]
    if spec.type == "int_pair" and isinstance(current, (list, tuple)):
        return [[current[0] - 10, current[1] - 5]]
    if spec.type == "column_map" and isinstance(current, dict):
        return [{k: v * 2 for k, v in current.items()}]
    if spec.type not in ("int", "float") or spec.minimum is None or spec.maximum is None:
        return []
    lo, hi = spec.minimum, spec.maximum
    out = [lo, hi, math.sqrt(lo * hi) if lo > 0 else hi / 100]
    if isinstance(current, (int, float)) and not isinstance(current, bool):
        out += [current * 2, current / 2 if current else 1, current * 1.1, current * 0.9]
    if spec.type == "int":
        out = [int(round(v)) for v in out]
    return [v for v in out if v != current and lo <= v <= hi]


def _signature(p) -> tuple:
    return {k: round(v, 9) for k, v in p.metrics.items()}, p.bottleneck


def _walk(scenario: dict, base, path: str, spec) -> str:
    """'changes', 'rejected' (every value refused with a message) or 'dead'."""
    current = get_path(scenario, path)
    tried = rejected = 0
    for value in _candidates(spec, current):
        s = copy.deepcopy(scenario)
        set_path(s, path, value)
        tried += 1
        try:
            p = predict_settings(s)
        except (FieldError, ValueError) as e:  # ValueRangeError is a ValueError
            assert "." in str(e) or ":" in str(e), f"{path}={value!r}: unclear message {e}"
            rejected += 1
            continue
        if _signature(p) != _signature(base):
            return "changes"
    return "rejected" if tried and rejected == tried else "dead"


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_knob_changes_a_result_or_is_reported_with_a_reason(sample):
    scenario = project_to_scenario(projectfile.load(ROOT / "sample_runs" / f"{sample}.json"))
    base = predict_settings(scenario)
    dead = []
    for path, spec in scenario_specs(scenario["kind"]).items():
        try:
            get_path(scenario, path)
        except (KeyError, TypeError):
            continue
        if path in base.ignored:
            assert base.ignored_reasons.get(path), f"{sample}: {path} is ignored without a reason"
            continue
        if _walk(scenario, base, path, spec) == "dead":
            dead.append(path)
    assert not dead, f"{sample}: knobs that change nothing and are not reported in ignored: {dead}"


def test_the_bottleneck_has_one_name_in_predict_the_stage_table_and_the_advisor():
    """The busiest stage names the bottleneck; only ``qrtune evaluate`` translates it to the
    published vocabulary (``capture_cpu`` -> ``cpu``)."""
    from engine.advise import advise
    from engine.evaluate import published_bottleneck
    from engine.predict import predict_project

    for sample in ("redpaper-baseline", "dw2005-zos-unidirectional"):
        project = projectfile.load(ROOT / "sample_runs" / f"{sample}.json")
        p = predict_project(project)
        marked = [s.name for s in p.stages if getattr(s, "is_bottleneck", False)]
        assert marked == [p.bottleneck]
        assert max(p.stages, key=lambda s: s.utilisation).name == p.bottleneck
        assert advise(project).prediction.bottleneck == p.bottleneck
        assert published_bottleneck(p) in {
            "cpu",
            "qcapture",
            "mq_log",
            "mq_channel",
            "qapply_agents",
            "qapply_cpu",
            "qapply_browser",
            "source_workload",
        }
