"""Simulation studies: knobs x outage scenarios x seeds, recorded run by run, summarised across seeds."""

from __future__ import annotations

import pytest

from engine import projectfile
from engine.errors import FieldError
from engine.store import Store
from engine.studies.study import PERCENTILES, StudyPlan, parse_scenarios, parse_seeds, spread
from engine.studies.study_run import run_study
from engine.studies.sweep import parse_axes


def test_nearest_rank_percentiles_count_a_missing_value_as_the_largest():
    s = spread([10.0, 30.0, 20.0, 40.0])
    assert s.percentiles == {50: 20.0, 95: 40.0} and s.n_missing == 0
    late = spread([10.0] * 19 + [None])  # one seed in 20 not caught up: the 95th percentile is still 10
    assert late.percentiles[95] == 10.0 and late.n_missing == 1
    worse = spread([10.0] * 18 + [None, None])
    assert worse.percentiles[95] is None and worse.percentiles[50] == 10.0


def test_plan_indexes_every_combination_once(root):
    project = projectfile.load(root / "sample_runs" / "redpaper-baseline.json")
    plan = StudyPlan(
        tuple(parse_axes(["qapply.num_apply_agents=2,4,8"], project)),
        parse_scenarios(["none", "channel-stop@1m+1m,apply-stop@3m+30s"]),
        parse_seeds(4),
        60.0,
    )
    points = [plan.point(i) for i in range(plan.n_runs)]
    assert plan.n_runs == 24 and len(set(points)) == 24
    assert plan.scenarios[1] == ("channel-stop@1m+1m", "apply-stop@3m+30s")
    with pytest.raises(FieldError):
        parse_seeds(0)
    with pytest.raises(FieldError):
        parse_scenarios(["channel-go@1m"])


def test_a_small_study_records_each_run_and_reports_catch_up_percentiles(root, tmp_path):
    project = projectfile.load(root / "sample_runs" / "redpaper-baseline.json")
    plan = StudyPlan((), parse_scenarios(["none", "channel-stop@10s+10s"]), parse_seeds(3), 60.0, 30_000.0)
    with Store.open(tmp_path / "s.duckdb") as store:
        first = run_study(project, plan, store, workers=0, progress=False)
        runs = store.list_runs(sweep_id=first.sweep_id)
        again = run_study(project, plan, store, workers=0, progress=False)
    assert (first.n_runs, first.n_run, first.n_failed) == (6, 6, 0)
    assert again.n_run == 0 and again.sweep_id == first.sweep_id  # resumed: nothing left to run
    assert sorted((r.seed, r.kind) for r in runs) == sorted([(s, "simulate") for s in (0, 1, 2)] * 2)
    outage = next(r for r in first.distribution if r["scenario"] == "channel-stop@10s+10s")
    calm = next(r for r in first.distribution if r["scenario"] == "no-outage")
    catch_up = outage["catch_up_s"]
    assert catch_up.n_runs == 3 and catch_up.n_missing == 0
    assert 0 < catch_up.percentiles[50] <= catch_up.percentiles[95] < 50
    assert calm["catch_up_s"].percentiles == dict.fromkeys(PERCENTILES)  # nothing to catch up with
    assert outage["peak_backlog_rows"].percentiles[50] > 10 * calm["peak_backlog_rows"].percentiles[95]


def test_the_study_table_names_figures_and_scales_their_units():
    """END2END_LATENCY p95 of 10,529 ms reads 10.5 s; a catch-up that never happened names no unit."""
    from engine.cli.study import format_distribution
    from engine.studies.study import SUMMARY_METRICS, spread

    values = {
        "catch_up_s": [None, None],
        "peak_backlog_rows": [350_225.0, 350_660.0],
        "end2end_latency_p95_ms": [10_529.0, 10_634.0],
        "end2end_latency_p99_ms": [10_634.0, 10_687.0],
        "throughput_rows_per_s": [28_007.0, 28_169.0],
    }
    row = {"knobs": "qapply.num_apply_agents=4", "scenario": "channel-stop@10s+10s", "n_seeds": 2}
    row.update({name: spread(values[name]) for name in SUMMARY_METRICS})
    lines = format_distribution([row]).splitlines()
    assert (
        lines[1].split()
        == "Catch-up time p50 not caught up, p95 not caught up (2 of 2 not caught up)".split()
    )
    assert lines[3].split() == "END2END_LATENCY p95 p50 10.5, p95 10.6 s".split()
    assert lines[2].split() == "Peak backlog p50 350,225, p95 350,660 rows".split()


def test_a_study_in_the_store_is_listed_and_reported_like_a_sweep(root, tmp_path, capsys):
    from engine import cli
    from engine.report.sweep import sweep_section

    project = projectfile.load(root / "sample_runs" / "redpaper-baseline.json")
    plan = StudyPlan(
        tuple(parse_axes(["qapply.num_apply_agents=4,8"], project)),
        parse_scenarios(["none", "channel-stop@10s+10s"]),
        parse_seeds(2),
        30.0,
        30_000.0,
    )
    db = tmp_path / "s.duckdb"
    with Store.open(db) as store:
        result = run_study(project, plan, store, workers=0, progress=False)
    assert cli.main(["runs", "--sweeps", "--db", str(db)]) == 0
    listing = capsys.readouterr().out
    assert f"{result.sweep_id:>6}" in listing and "8/8" in listing
    assert (
        "qapply.num_apply_agents=4,8 x study.scenario=no-outage,channel-stop@10s+10s x study.seed=0,1"
        in listing
    )
    with Store.open(db, read_only=True) as store:
        section = sweep_section(store, result.sweep_id)
    assert [a.label for a in section.axes] == ["NUM_APPLY_AGENTS", "Outage scenario", "Seed"]
    by_index = {p.index: p.values for p in section.points}
    assert by_index[5] == (8, "no-outage", 1) and by_index[2] == (4, "channel-stop@10s+10s", 0)
    assert section.n_done == 8 and section.n_failed == 0
