"""One bottleneck everywhere: the busiest resource stage; a project that holds its offered rate shows headroom."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.panels.results import limit_html
from app.stages import node_loads
from engine import projectfile
from engine.limit import limit_of
from engine.perf.result import Prediction, StageResult
from engine.predict import predict_project

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def _prediction(stages, bottleneck):
    return Prediction(
        "qrep",
        {"apply_rows_per_s": 30000.0},
        {"apply_rows_per_s": "rows/s"},
        tuple(StageResult(n, 1.0, u) for n, u in stages),
        bottleneck,
    )


def test_the_busiest_stage_is_the_bottleneck_whatever_the_engine_named():
    p = _prediction([("qapply_browser", 0.95), ("qapply_agents", 0.94), ("qapply_cpu", 0.86)], "qapply_cpu")
    limit = limit_of(p)
    assert (limit.stage, limit.holds_offered) == ("qapply_browser", False)
    assert "bottleneck" in limit_html(limit, None) and "Q Apply browser" in limit_html(limit, None)


def test_a_held_offered_rate_is_headroom_not_a_workload_bottleneck():
    p = _prediction([("source_workload", 1.0), ("qcapture", 0.5), ("qapply_agents", 0.74)], "source_workload")
    limit = limit_of(p)
    assert limit.holds_offered and limit.stage == "qapply_agents"
    assert limit.headroom_pct == pytest.approx(35.1, abs=0.1)
    text = limit_html(limit, ("apply_rows_per_s", 30000.0, "rows/s"))
    assert "holds 30,000 rows/s" in text and "headroom <b>35%</b> at Q Apply agents" in text
    assert "source_workload" not in text and "bottleneck" not in text


def test_held_rate_marks_no_node_and_leaves_the_source_uncoloured():
    project = projectfile.load(str(SAMPLES / "dw2005-zos-unidirectional.json"))
    prediction = predict_project(project)
    loads = node_loads(project, prediction)
    if limit_of(prediction).holds_offered:
        assert not any(load.bottleneck for load in loads.values())
    source = project.nodes_of("source_db2")[0].id
    assert "source_workload" not in loads.get(source).stages if source in loads else True


def test_the_mq_mover_carries_one_bottleneck_tag():
    project = projectfile.load(str(SAMPLES / "mq-buffer-pool-mover.json"))
    loads = node_loads(project, predict_project(project))
    assert sum(load.bottleneck for load in loads.values()) == 1
