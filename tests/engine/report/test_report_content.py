"""Report content (engine/report): settings with changed-from-default marks, results, comparison, validation.

A deterministic stand-in for the Q Replication engine gives numbers the tests can
derive by hand (apply capacity 800 rows/s per agent, channel 3000 rows/s per
transaction in a batch), so the report is checked against known values.
"""

import json
import math
from pathlib import Path

import pytest

from engine import projectfile, templates
from engine.perf.result import Prediction, StageResult
from engine.registry import KINDS, path_names
from engine.report import (
    build_report,
    compare,
    format_delta,
    format_setting,
    format_value,
    run_from_project,
    runs_from_store,
    score_scenarios,
)
from engine.report.settings import rows_from_project, rows_from_settings
from engine.scenario import project_to_scenario


def fake_predict(settings):
    agents = settings["qapply"]["num_apply_agents"]
    batch = settings["qcapture"]["trans_batch_sz"]
    caps = {"qcapture": 20000.0, "mq_channel": 3000.0 * batch, "qapply_agents": 800.0 * agents}
    rate = min(caps.values())
    stages = tuple(StageResult(n, c, rate / c, "rows/s", 1000.0 / c) for n, c in caps.items())
    metrics = {
        "apply_rows_per_s": rate,
        "capture_latency_ms": 100.0,
        "qlatency_ms": 50.0 * batch,
        "apply_latency_ms": 4000.0 / agents,
        "end2end_latency_ms": 100.0 + 50.0 * batch + 4000.0 / agents,
        "apply_cpu_us_per_row": 40.0 / batch,
    }
    units = {k: "rows/s" if k.endswith("per_s") else "ms" if k.endswith("_ms") else "us/row" for k in metrics}
    return Prediction(
        "qrep",
        metrics,
        units,
        stages,
        min(caps, key=caps.get),
        (),
        "fake-1",
        {"apply_rows_per_s": (0.9 * rate, 1.1 * rate)},
    )


@pytest.fixture
def fake_engine(route_engine):
    route_engine("qrep", fake_predict)


def project(agents=6, batch=3):
    p = templates.unidirectional("Report test")
    p = p.with_param(p.nodes_of("qapply")[0].id, "num_apply_agents", agents)
    return p.with_param(p.nodes_of("qcapture")[0].id, "trans_batch_sz", batch)


def test_settings_rows_mark_exactly_the_knobs_changed_from_the_defaults():
    p = templates.unidirectional("Defaults")
    rows = rows_from_project(p)
    assert len(rows) == sum(len(KINDS[n.kind].params) for n in p.nodes)
    base_changed = {(r.node, r.name) for r in rows if r.changed}
    p2 = p.with_param(p.nodes_of("qapply")[0].id, "num_apply_agents", 3)
    rows2 = rows_from_project(p2)
    newly = {(r.node, r.name) for r in rows2 if r.changed} - base_changed
    assert newly == {(p.nodes_of("qapply")[0].label, "NUM_APPLY_AGENTS")}
    row = next(r for r in rows2 if r.name == "NUM_APPLY_AGENTS")
    assert (row.value, row.default, row.unit) == ("3", "16", "agents")
    # setting a knob back to its default clears the mark
    p3 = p2.with_param(p.nodes_of("qapply")[0].id, "num_apply_agents", 16)
    assert not next(r for r in rows_from_project(p3) if r.name == "NUM_APPLY_AGENTS").changed


def test_settings_rows_from_scenario_settings_agree_with_the_project():
    p = project(agents=4, batch=7)
    from_project = {r.name for r in rows_from_project(p) if r.changed}
    from_settings = {r.name for r in rows_from_settings(project_to_scenario(p), "qrep") if r.changed}
    assert {"NUM_APPLY_AGENTS", "TRANS_BATCH_SZ"} <= from_settings <= from_project
    assert path_names("qrep")["qapply.num_apply_agents"] == "NUM_APPLY_AGENTS"
    assert path_names("qrep")["qcapture.trans_batch_sz"] == "TRANS_BATCH_SZ"


def test_run_from_project_groups_the_engine_results_under_ibm_names(fake_engine):
    run = run_from_project(project(agents=6, batch=3))
    assert run.metrics["apply_rows_per_s"] == 4800.0 and run.bottleneck == "qapply_agents"
    latency = next(g for g in run.groups if g.heading == "Latency")
    assert [(m.label, m.value) for m in latency.rows] == [
        ("CAPTURE_LATENCY", 100.0),
        ("QLATENCY", 150.0),
        ("APPLY_LATENCY", 4000.0 / 6),
        ("END2END_LATENCY", 100.0 + 150.0 + 4000.0 / 6),
    ]
    parts = run.latency_breakdown()
    assert sum(v for _, v in parts) == pytest.approx(run.metrics["end2end_latency_ms"])
    throughput = next(g for g in run.groups if g.heading == "Throughput")
    band = throughput.rows[
        0
    ].band  # the engine's band around the value (bands are attached by predict_settings)
    assert band is None or band[0] <= 4800.0 <= band[1]
    assert [s.name for s in run.stages if run.is_bottleneck(s)] == ["qapply_agents"]
    assert next(s for s in run.stages if s.name == "qapply_agents").utilisation == pytest.approx(1.0)


def test_comparison_deltas_against_the_first_run(fake_engine):
    a, b = run_from_project(project(agents=6, batch=3)), run_from_project(project(agents=3, batch=3))
    cmp = compare([a, b])
    rate = next(m for m in cmp.metrics if m.metric == "apply_rows_per_s")
    assert rate.values == (4800.0, 2400.0)
    assert rate.abs_delta == (0.0, -2400.0) and rate.pct_delta == (0.0, -50.0)
    e2e = next(m for m in cmp.metrics if m.metric == "end2end_latency_ms")
    assert e2e.label == "END2END_LATENCY" and e2e.abs_delta[1] == pytest.approx(4000 / 3 - 4000 / 6)
    assert [(s.name, s.values) for s in cmp.settings] == [("NUM_APPLY_AGENTS", (6, 3))]
    assert cmp.labels == ("A: Report test", "B: Report test")  # same name twice: letters keep them apart


def test_report_reads_stored_runs_back_with_project_and_settings(fake_engine, tmp_path):
    from engine.predict import predict_project
    from engine.store import Store

    p1, p2 = project(agents=6), project(agents=2, batch=1)
    with Store.open(tmp_path / "runs.duckdb") as store:
        ids = [store.record_prediction(p, predict_project(p)) for p in (p1, p2)]
    with Store.open(tmp_path / "runs.duckdb", read_only=True) as store:
        runs = runs_from_store(store, ids)
    assert [r.run_id for r in runs] == ids and runs[0].label == f"run {ids[0]}"
    assert runs[1].metrics["apply_rows_per_s"] == 1600.0 and runs[1].bottleneck == "qapply_agents"
    assert runs[0].project is not None
    assert [(r.node, r.name, r.changed) for r in rows_from_project(p1)] == [
        (r.node, r.name, r.changed) for r in runs[0].setting_rows
    ]
    report = build_report(runs, validation=False)
    assert report.title == "Report test: 2 runs compared" and report.coefficient_versions == ("fake-1",)
    assert next(m for m in report.comparison.metrics if m.metric == "apply_rows_per_s").pct_delta[
        1
    ] == pytest.approx(100.0 * (1600 - 4800) / 4800)


def test_validation_score_from_known_errors(fake_engine, tmp_path):
    base = project_to_scenario(project(agents=10, batch=3))  # fake: 8000 rows/s, END2END 650 ms
    scen = [
        {
            **base,
            "id": "s1",
            "measured": {"apply_rows_per_s": 10000.0, "end2end_latency_ms": 650.0},
            "measured_bottleneck": "qapply_agents",
        },
        {
            **base,
            "id": "s2",
            "measured": {"apply_rows_per_s": 8000.0, "capture_rows_per_s": 1.0},
            "measured_bottleneck": "mq_channel",
        },
    ]
    path = tmp_path / "scen.json"
    path.write_text(json.dumps({"format": "qrtune-scenarios/1", "scenarios": scen}))
    score = score_scenarios(path)
    assert (score.n_scenarios, score.n_measured, score.n_predicted) == (
        2,
        4,
        3,
    )  # no capture rate from the fake
    assert score.rate_median_abs_pct == pytest.approx(10.0)  # errors 20% and 0%
    assert score.latency_median_abs_pct == pytest.approx(0.0)
    assert (score.bottlenecks_right, score.bottlenecks_named) == (1, 2)
    assert score.by_kind[0].kind == "qrep" and score.by_kind[0].n_predicted == 3


def test_report_needs_a_run_and_formats_numbers():
    from engine.errors import QrtuneError

    with pytest.raises(QrtuneError, match="at least one"):
        build_report([], validation=False)
    assert (
        format_value(43404.2) == "43,404"
        and format_value(43.906) == "43.9"
        and format_value(5.8183) == "5.82"
        and format_value(0.0041) == "0.0041"
        and format_value(math.inf) == "unbounded"
        and format_value(math.nan) == "-"
    )
    assert (
        format_value(True) == "yes" and format_value(None) == "not set" and format_value(240000) == "240,000"
    )
    assert format_value({"INTEGER": 10}) == "INTEGER x10" and format_value([75, 85]) == "75 .. 85"
    assert format_delta(-2400.0) == "-2,400" and format_delta(12.34, pct=True) == "+12.3%"
    assert format_delta(None) == "-" and format_delta(math.nan, pct=True) == "-"


def test_a_setting_reads_as_the_user_set_it_a_result_with_fixed_decimals():
    """CORE_GHZ 2.5 is "2.5" in the settings table (a result of 2.5 reads "2.50"); a whole number
    has no decimals and thousands are separated (1,000,000, not 1e+06)."""
    assert [format_setting(v) for v in (2.5, 500.0, 1e6, 2.125, 240000, True, "row")] == [
        "2.5",
        "500",
        "1,000,000",
        "2.125",
        "240,000",
        "yes",
        "row",
    ]
    assert format_value(2.5) == "2.50"
    sample = Path(__file__).resolve().parents[3] / "sample_runs" / "redpaper-baseline.json"
    rows = {r.name: r for r in rows_from_project(projectfile.load(sample))}
    assert rows["Core speed"].value == "2.5" and rows["Client round trip"].value == "500"
