"""Every stage an engine names on the samples reads as a user's words (no internal stage name in a view)."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.limit import bottleneck_label, limit_of
from engine.metrics import label as metric_label
from engine.metrics.stages import STAGE_LABELS, is_known_stage, stage_label
from engine.predict import predict_project

SAMPLES = sorted((Path(__file__).resolve().parents[3] / "sample_runs").glob("*.json"))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.stem)
def test_every_stage_of_every_sample_has_a_label(sample):
    prediction = predict_project(projectfile.load(sample))
    for stage in prediction.stages:
        assert is_known_stage(stage.name), f"{sample.name}: stage {stage.name} has no label in STAGE_LABELS"
        assert "_" not in stage_label(stage.name)
        assert stage.name not in metric_label(f"{stage.name}_utilisation_pct")
    if prediction.stages:
        limit = limit_of(prediction)
        assert limit.stage is None or stage_label(limit.stage) in limit.text()
        assert "_" not in limit.text()


def test_derived_stage_labels():
    assert stage_label("qapply_browser_map2") == "Q Apply browser, queue map 2"
    assert stage_label("system2_qapply_cpu") == "system 2: Q Apply LPAR CPU"
    assert stage_label("no_such_stage") == "no_such_stage" and not is_known_stage("no_such_stage")
    assert bottleneck_label("qapply_agents") == "Q Apply agents"
    assert bottleneck_label("source_workload") == "none (rate held)"
    assert all("_" not in text for text in STAGE_LABELS.values())


def test_the_simulators_stages_have_labels():
    from engine.scenario import project_to_scenario
    from engine.sim.run import simulate_settings

    project = projectfile.load(SAMPLES[0].parent / "redpaper-baseline.json")
    util = simulate_settings(project_to_scenario(project), duration_s=5.0, seed=1).summary["utilisation"]
    assert util and all(is_known_stage(name) for name in util), sorted(util)
