"""The report's content model carries each system of bidirectional and peer-to-peer runs."""

from pathlib import Path

import pytest

from engine import projectfile
from engine.perf.qrep import solve_settings
from engine.perf.qrep.coefficients import load
from engine.perf.qrep.systems import FIGURE_NAMES, contention_cpu_us_per_row
from engine.predict import predict_project
from engine.report import build_report, run_from_project, runs_from_store
from engine.scenario import project_to_scenario

SAMPLES = Path(__file__).resolve().parents[3] / "sample_runs"


def test_a_peer_to_peer_report_has_its_systems_and_no_loose_system_metrics():
    project = projectfile.load(SAMPLES / "redpaper-peer-to-peer.json")
    run = run_from_project(project)
    assert [(s.label, s.node_id) for s in run.systems] == [
        ("Db2 A", "ab-0-source-db2"),
        ("Db2 B", "ba-0-source-db2"),
    ]
    pred = predict_project(project)
    assert run.systems[1].values == {f: pred.metrics[f"system2_{f}"] for f in FIGURE_NAMES}
    assert "set up alike" in run.systems_note
    assert not any(m.metric.startswith("system") for g in run.groups for m in g.rows)
    uni = run_from_project(projectfile.load(SAMPLES / "redpaper-baseline.json"))
    assert uni.systems == () and uni.systems_note == ""


def test_a_comparison_report_of_stored_runs_puts_the_systems_side_by_side(tmp_path):
    from engine.store import Store

    with Store.open(tmp_path / "runs.duckdb") as store:
        ids = [
            store.record_prediction(p, predict_project(p))
            for p in (
                projectfile.load(SAMPLES / f"redpaper-{t}.json") for t in ("bidirectional", "peer-to-peer")
            )
        ]
        runs = runs_from_store(store, ids)
    assert [s.label for s in runs[1].systems] == ["Db2 A", "Db2 B"]  # named from the stored project
    report = build_report(runs, validation=False)
    cmp = report.comparison
    assert not any(m.metric.startswith("system") for m in cmp.metrics)
    assert [m.system for m in cmp.systems] == ["Db2 A"] * len(FIGURE_NAMES) + ["Db2 B"] * len(FIGURE_NAMES)
    trig = next(m for m in cmp.systems if m.metric == "system1_trigger_cpu_us_per_row")
    cpu = next(m for m in cmp.systems if m.metric == "system1_cpu_us_per_row")
    assert trig.values[0] == 0 and trig.values[1] > 0
    # the triggers, and the agents' contention they add by lengthening a transaction (half the rows applied)
    c_bidir, c_p2p = (
        contention_cpu_us_per_row(solve_settings(project_to_scenario(projectfile.load(SAMPLES / f))), load())
        for f in ("redpaper-bidirectional.json", "redpaper-peer-to-peer.json")
    )
    assert cpu.abs_delta[1] == pytest.approx(trig.values[1] + 0.5 * (c_p2p - c_bidir), rel=1e-9)
