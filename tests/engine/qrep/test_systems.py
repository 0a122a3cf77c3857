"""Figures per system of bidirectional and peer-to-peer predictions (engine.perf.qrep.systems).

Identities checked (see the module docstring), with O rows/s originated and A applied on a system:

* parts:  cpu * (O + A) = source * O + capture * O + apply * A + trigger * (O + A) + recursion * A
* flow:   replication * (O + A) = total_cpu_us_per_row * O       (symmetric systems, O = A)
* solver: both systems' CPU per second = the rate times the CPU per row the solver charged
          every LPAR: cpu * (O + A) = rate * sum of the LPARs' cpu_us_per_row
"""

import json

import pytest

from engine import projectfile
from engine.perf.qrep import predict, solve_settings
from engine.perf.qrep.coefficients import load
from engine.perf.qrep.systems import (
    FIGURE_NAMES,
    contention_cpu_us_per_row,
    metric_name,
    system_metrics,
    systems_of,
)
from engine.predict import predict_project
from engine.scenario import flow_differences, project_to_scenario
from engine.two_way_note import symmetry_note

TWO_WAY = (
    "redpaper-bidirectional",
    "redpaper-peer-to-peer",
    "dw2005-zos-bidirectional",
    "dw2005-zos-peer-to-peer",
)


def _project(root, name):
    return projectfile.load(root / "sample_runs" / f"{name}.json")


def _system(metrics, k=1):
    return {f: metrics[metric_name(k, f)] for f in FIGURE_NAMES}


def _contention_us_per_row(root, name):
    """CPU per applied row (CP us) the busy agents of sample ``name`` spend contending."""
    return contention_cpu_us_per_row(solve_settings(project_to_scenario(_project(root, name))), load())


@pytest.mark.parametrize("name", TWO_WAY)
def test_system_cpu_adds_up_to_its_parts_the_flow_total_and_the_solver_lpars(root, name):
    project = _project(root, name)
    settings = project_to_scenario(project)
    sol = solve_settings(settings)
    m = predict(settings).metrics
    s = _system(m)
    o, a = s["originated_rows_per_s"], s["applied_rows_per_s"]
    assert o == pytest.approx(m["capture_rows_per_s"]) and a == pytest.approx(m["apply_rows_per_s"]) and o > 0
    parts = (
        s["source_cpu_us_per_row"] * o
        + s["capture_cpu_us_per_row"] * o
        + s["apply_cpu_us_per_row"] * a
        + s["trigger_cpu_us_per_row"] * (o + a)
        + s["recursion_cpu_us_per_row"] * a
    )
    assert s["cpu_us_per_row"] * (o + a) == pytest.approx(parts, rel=1e-12)
    assert s["replication_cpu_us_per_row"] * (o + a) == pytest.approx(m["total_cpu_us_per_row"] * o, rel=1e-9)
    assert s["cpu_us_per_row"] * (o + a) == pytest.approx(
        sol.rows_per_s * sum(lp.cpu_us_per_row for lp in sol.lpars), rel=1e-9
    )
    busiest = max(min(lp.busy, 1.0) for lp in sol.lpars)
    assert s["busiest_lpar_busy_pct"] == pytest.approx(100 * busiest)
    assert 0 < s["lpar_busy_pct"] <= s["busiest_lpar_busy_pct"] + 1e-9


@pytest.mark.parametrize("study", ("redpaper", "dw2005-zos"))
def test_peer_to_peer_costs_each_system_its_triggers_more_than_bidirectional(root, study):
    bidir = _system(predict_project(_project(root, f"{study}-bidirectional")).metrics)
    p2p = _system(predict_project(_project(root, f"{study}-peer-to-peer")).metrics)
    assert bidir["trigger_cpu_us_per_row"] == 0.0
    trigger = p2p["trigger_cpu_us_per_row"]
    assert trigger > 0
    # the rest of the work per row is the same model; the MQ commit's share may move a little with
    # the rate, and the agents' contention with how many work at once (each system applies half its rows)
    c_bidir = _contention_us_per_row(root, f"{study}-bidirectional")
    c_p2p = _contention_us_per_row(root, f"{study}-peer-to-peer")
    assert c_bidir > 0.0 and c_p2p > 0.0
    for figure in ("cpu_us_per_row", "replication_cpu_us_per_row"):
        assert p2p[figure] - bidir[figure] == pytest.approx(trigger + 0.5 * (c_p2p - c_bidir), rel=0.01)
    for figure in ("source_cpu_us_per_row", "recursion_cpu_us_per_row"):
        assert p2p[figure] == pytest.approx(bidir[figure], rel=1e-12)
    assert p2p["apply_cpu_us_per_row"] - c_p2p == pytest.approx(
        bidir["apply_cpu_us_per_row"] - c_bidir, rel=1e-12
    )
    assert bidir["recursion_cpu_us_per_row"] > 0
    # the synchronous triggers slow each system's own workload down
    assert p2p["originated_rows_per_s"] < bidir["originated_rows_per_s"]


def test_redpaper_samples_differ_by_exactly_the_trigger_cost(root):
    """Both Redpaper runs fill their MQ commits alike, so the triggers are the whole difference but
    for the agents' contention (the triggers lengthen a transaction: more agents work at once)."""
    bidir = _system(predict_project(_project(root, "redpaper-bidirectional")).metrics)
    p2p = _system(predict_project(_project(root, "redpaper-peer-to-peer")).metrics)
    contention = _contention_us_per_row(root, "redpaper-peer-to-peer") - _contention_us_per_row(
        root, "redpaper-bidirectional"
    )
    assert p2p["cpu_us_per_row"] - bidir["cpu_us_per_row"] == pytest.approx(
        p2p["trigger_cpu_us_per_row"] + 0.5 * contention, rel=1e-9
    )


@pytest.mark.parametrize("name", TWO_WAY)
def test_symmetric_samples_give_equal_systems_named_after_their_source_db2(root, name):
    project = _project(root, name)
    pred = predict_project(project)
    assert _system(pred.metrics, 1) == _system(pred.metrics, 2)
    systems = systems_of(pred.metrics, project)
    assert [(s.index, s.node_id, s.label) for s in systems] == [
        (1, "ab-0-source-db2", "Db2 A"),
        (2, "ba-0-source-db2", "Db2 B"),
    ]
    assert systems[0].values == systems[1].values and list(systems[0].values) == list(FIGURE_NAMES)
    assert flow_differences(project) == []
    assert "set up alike" in symmetry_note(project)
    assert all(pred.units[metric_name(k, f)] for k in (1, 2) for f in FIGURE_NAMES)
    assert [s.label for s in systems_of(pred.metrics)] == ["system 1", "system 2"]  # without the project


def test_unidirectional_and_drain_runs_have_no_systems(root, baseline):
    assert not any(k.startswith("system") for k in predict(baseline).metrics)
    project = _project(root, "redpaper-baseline")
    assert systems_of(predict_project(project).metrics, project) == ()
    assert symmetry_note(project) == ""
    drain = dict(
        project_to_scenario(_project(root, "redpaper-bidirectional")),
        run={"mode": "drain", "initial_receive_queue_depth": 10000},
    )
    assert system_metrics(solve_settings(drain), load()) == {}


def test_a_second_flow_set_up_differently_is_named_in_the_note(root):
    project = _project(root, "redpaper-peer-to-peer")
    changed = project.with_param("ba-5-qapply", "num_apply_agents", 12).with_param(
        "ba-0-source-db2", "jobs", 4
    )
    assert flow_differences(changed) == [("qapply.num_apply_agents", 6, 12), ("workload.jobs", None, 4)]
    note = symmetry_note(changed)
    assert "Db2 B -> Db2 A" in note and "qapply.num_apply_agents (12 vs 6)" in note and "not used" in note
    # the engine mirrors the first flow: the prediction does not move
    assert predict_project(changed).metrics == predict_project(project).metrics


def test_system_figures_survive_json_and_the_cli(root, capsys):
    from engine.cli import main

    path = root / "sample_runs" / "redpaper-peer-to-peer.json"
    project = projectfile.load(path)
    pred = predict_project(project)
    back = json.loads(json.dumps(pred.to_json()))
    assert systems_of(back["metrics"], project) == systems_of(pred.metrics, project)
    assert main(["predict", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["label"] for s in doc["systems"]] == ["Db2 A", "Db2 B"]
    first = doc["systems"][0]
    assert first["id"] == "ab-0-source-db2" and first["metric_prefix"] == "system1_"
    for figure in FIGURE_NAMES:
        assert first[figure] == pytest.approx(doc["metrics"]["system1_" + figure])
        assert doc["units"]["system1_" + figure]
    assert "set up alike" in doc["systems_note"]
    assert main(["predict", str(path)]) == 0
    text = capsys.readouterr().out
    assert "  Systems (" in text and "peer-to-peer triggers per changed row" in text
    assert "system1_" not in text  # not repeated under "Other"
    assert main(["predict", str(root / "sample_runs" / "redpaper-baseline.json")]) == 0
    assert "Systems" not in capsys.readouterr().out


def test_stored_runs_compare_system_by_system(root, tmp_path):
    from engine.compare import compare_runs, format_csv, format_table
    from engine.store import Store

    runs = []
    with Store.open(tmp_path / "runs.duckdb") as store:
        for name in ("redpaper-bidirectional", "redpaper-peer-to-peer"):
            project = _project(root, name)
            runs.append(
                (store.record_prediction(project, predict_project(project)), predict_project(project))
            )
        cmp = compare_runs(store, [r for r, _ in runs])
    assert not any(m.metric.startswith("system") for m in cmp.metrics)
    assert [m.system for m in cmp.systems] == ["Db2 A"] * len(FIGURE_NAMES) + ["Db2 B"] * len(FIGURE_NAMES)
    trig = next(m for m in cmp.systems if m.metric == "system1_trigger_cpu_us_per_row")
    assert trig.values == (0.0, pytest.approx(runs[1][1].metrics["system1_trigger_cpu_us_per_row"]))
    assert trig.abs_delta[1] == pytest.approx(trig.values[1]) and trig.pct_delta[1] is None
    cpu = next(m for m in cmp.systems if m.metric == "system2_cpu_us_per_row")
    contention = _contention_us_per_row(root, "redpaper-peer-to-peer") - _contention_us_per_row(
        root, "redpaper-bidirectional"
    )
    assert cpu.abs_delta[1] == pytest.approx(trig.values[1] + 0.5 * contention, rel=1e-9)
    doc = json.loads(json.dumps(cmp.to_json()))
    assert (
        doc["systems"][0]["system"] == "Db2 A"
        and doc["systems"][0]["metric"] == "system1_originated_rows_per_s"
    )
    assert "Db2 B   peer-to-peer triggers per changed row" in format_table(cmp)
    assert "system,system2_cpu_us_per_row,us/row" in format_csv(cmp)
