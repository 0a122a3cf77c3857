"""CPU models: every registry choice has a stored rating with its source, newer z generations rate higher."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engine import projectfile
from engine.calibrate.qrep import CPU_MODELS as FIT_CPU_MODELS
from engine.perf.qrep import predict
from engine.perf.qrep.coefficients import load
from engine.registry.kinds import CPU_MODELS
from engine.scenario import project_to_scenario

ROOT = Path(__file__).resolve().parents[3]
Z_GENERATIONS = ("z13-2964", "z14-3906", "z15-8561", "z16-3931", "z17-9175")


def test_every_cpu_model_choice_has_a_stored_rating_with_its_source():
    stored = load().cpu_models
    assert set(CPU_MODELS) == set(stored) == set(FIT_CPU_MODELS)
    for name in CPU_MODELS:
        assert stored[name]["mips_per_cp"] > 0.0
        assert stored[name]["note"]  # where the rating comes from
    assert stored == FIT_CPU_MODELS  # the asset is what the fit script writes


def test_z14_to_z17_rate_each_above_the_one_before():
    stored = load().cpu_models
    ratings = [stored[name]["mips_per_cp"] for name in Z_GENERATIONS]
    assert ratings == sorted(ratings) and len(set(ratings)) == len(ratings)


@pytest.mark.parametrize("older,newer", list(zip(Z_GENERATIONS, Z_GENERATIONS[1:])))
def test_a_newer_processor_costs_less_cpu_per_row(older, newer):
    s = project_to_scenario(projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json"))
    per_row = {}
    for model in (older, newer):
        t = copy.deepcopy(s)
        t.setdefault("hardware", {})["cpu_model"] = model
        per_row[model] = predict(t).metrics["capture_cpu_us_per_row"]
    assert per_row[newer] < per_row[older]
