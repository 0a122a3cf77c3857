"""The one limit every view names (engine.limit): the busiest resource stage, or the headroom of a held rate.

Checked on the engine's own figures and in ``qrtune predict``, ``qrtune advise`` and the report
(a project predicted for it and the same run read back from a store): the sample
``sql-replication-vs-q`` holds its offered 3,000 rows/s, the baseline is driven to its maximum.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import projectfile
from engine.cli.advise import format_advice
from engine.cli.predict import format_prediction
from engine.limit import (
    RATE_HELD,
    bottleneck_label,
    limit_of,
    limit_of_stages,
    limit_text,
    stored_bottleneck,
)
from engine.metrics.stages import stage_label
from engine.predict import predict_project
from engine.report import run_from_project, runs_from_store

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"


def test_a_held_rate_names_no_bottleneck_and_the_headroom_of_the_busiest_resource():
    limit = limit_of_stages(
        [("source_workload", 1.0), ("qcapture", 0.1), ("qapply_cpu", 0.2)], "source_workload"
    )
    assert (limit.stage, limit.holds_offered, limit.bottleneck) == ("qapply_cpu", True, None)
    assert limit.headroom_pct == pytest.approx(400.0)
    assert (
        limit.text("3,000 rows/s") == "none: holds 3,000 rows/s; headroom 400% at Q Apply LPAR CPU (20% busy)"
    )


def test_a_saturated_resource_is_the_bottleneck_and_ties_go_to_the_engines_pick():
    saturated = limit_of_stages([("source_workload", 1.0), ("qapply_agents", 1.0)], "source_workload")
    assert (saturated.bottleneck, saturated.text()) == ("qapply_agents", "Q Apply agents (100% busy)")
    tie = limit_of_stages([("mq_channel", 0.95), ("qapply_agents", 0.95)], "qapply_agents")
    assert tie.bottleneck == "qapply_agents"
    assert limit_of_stages([], None).text() == "none"


def test_a_cause_the_engine_names_for_its_busiest_stage_is_the_bottleneck():
    limit = limit_of_stages([("qapply_agents", 0.95), ("qapply_cpu", 0.5)], "target_db2")
    assert (limit.bottleneck, limit.text()) == ("target_db2", "target Db2 (95% busy)")


@pytest.mark.parametrize("name", sorted(p.stem for p in SAMPLES.glob("*.json")))
def test_predict_json_and_text_name_the_same_bottleneck_on_every_sample(name):
    """``qrtune predict --json`` prints ``Prediction.to_json()``; the text its limit line."""
    project = _project(name)
    pred = predict_project(project)
    text = format_prediction(pred, project.name, project)
    said = next(line for line in text.splitlines() if line.startswith("  bottleneck: "))
    assert said == f"  bottleneck: {limit_text(pred)}"
    limit = limit_of(pred)
    assert pred.bottleneck == limit.bottleneck
    assert said.startswith("  bottleneck: none") == (pred.bottleneck is None)
    if pred.bottleneck is not None:
        assert said.startswith(f"  bottleneck: {stage_label(pred.bottleneck)} (")
    assert pred.to_json()["bottleneck"] == pred.bottleneck


def _project(name: str):
    return projectfile.load(SAMPLES / f"{name}.json")


def test_predict_and_advise_name_the_held_rate_and_the_bottleneck_alike():
    held, driven = _project("sql-replication-vs-q"), _project("redpaper-baseline")
    held_pred, driven_pred = predict_project(held), predict_project(driven)
    held_text = format_prediction(held_pred, held.name, held)
    assert "<- bottleneck" not in held_text
    assert "bottleneck: none: holds 3,000 rows/s; headroom" in held_text
    busiest = limit_of(held_pred).stage
    assert any(
        line.strip().startswith(stage_label(busiest) + " ") and line.endswith("<- busiest")
        for line in held_text.splitlines()
    )
    driven_text = format_prediction(driven_pred, driven.name, driven)
    assert "bottleneck: Q Apply agents (95% busy)" in driven_text
    assert any(
        line.strip().startswith("Q Apply agents ") and line.endswith("<- bottleneck")
        for line in driven_text.splitlines()
    )

    class _Advice:  # what format_advice reads of an Advice with no recommendation
        project, prediction, recommendations, checked = held, held_pred, (), ()

    first_line = format_advice(_Advice()).splitlines()[0]
    assert first_line.endswith(f"(qrep)  bottleneck: {limit_text(held_pred)}")
    assert limit_text(held_pred).startswith("none: holds 3,000 rows/s; headroom ")


def test_the_report_marks_no_stage_of_a_held_rate_predicted_or_read_back(tmp_path):
    from engine.store import Store

    held = _project("sql-replication-vs-q")
    pred = predict_project(held)
    with Store.open(tmp_path / "runs.duckdb") as store:
        run_id = store.record_prediction(held, pred)
    with Store.open(tmp_path / "runs.duckdb", read_only=True) as store:
        stored = runs_from_store(store, [run_id])[0]
    for run in (run_from_project(held), stored):
        assert run.bottleneck is None and run.holds_offered
        assert not any(run.is_bottleneck(s) for s in run.stages)
        assert run.limit_text == limit_of(pred).text("3,000 rows/s")
    driven = run_from_project(_project("redpaper-baseline"))
    assert driven.bottleneck == "qapply_agents" and not driven.holds_offered
    assert [s.name for s in driven.stages if driven.is_bottleneck(s)] == ["qapply_agents"]


def test_stored_runs_that_held_their_rate_read_as_such_in_runs_and_compare(tmp_path, capsys):
    from engine.cli import main

    assert bottleneck_label("source_workload") == RATE_HELD
    assert (bottleneck_label("qapply_agents"), bottleneck_label(None)) == ("Q Apply agents", "")
    db = str(tmp_path / "runs.duckdb")
    for name in ("sql-replication-vs-q", "redpaper-baseline"):
        assert main(["predict", str(SAMPLES / f"{name}.json"), "--db", db]) == 0
    capsys.readouterr()
    assert main(["runs", "--db", db]) == 0
    listed = capsys.readouterr().out
    assert f"[{RATE_HELD}]" in listed and "[Q Apply agents]" in listed and "source_workload" not in listed
    assert main(["compare", "1", "2", "--db", db]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("bottleneck"))
    assert row.split()[1:] == ["none", "(rate", "held)", "Q", "Apply", "agents"]


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_the_engines_bottleneck_is_the_limits_stage_so_stored_runs_name_it_alike(sample):
    """``qrtune runs`` shows the bottleneck a run stored; live views show the limit. On every
    sample they name the same stage (the Db2 Mirror engine named the secondary's CPU 'cpu')."""
    pred = predict_project(projectfile.load(SAMPLES / sample))
    limit = limit_of(pred)
    if limit.holds_offered:
        assert pred.bottleneck is None and bottleneck_label(stored_bottleneck(pred)) == RATE_HELD
    else:
        assert pred.bottleneck == limit.stage
