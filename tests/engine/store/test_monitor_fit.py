"""Fitting coefficients to monitor intervals: recovery of known coefficients, held-out error, CLI.

The monitor rows come from the small steady-state model of tests/engine/store/fit_fakes.py run
with known coefficients plus 3 % noise, written as CSV exports with the real column names and
imported like a user's, so recovery of the known coefficients is exact and independent of the
real engine's costs. The Q Replication engine's own fit (rows from the time-domain simulator)
is tested in test_fit_qrep_contract.py.
"""

from __future__ import annotations

import csv
import json
import re
import types

import fit_fakes
import numpy as np
import pytest

from engine.calibrate.fit import (
    MAX_PREDICTIONS,
    check_engine_contract,
    engine_fit_model,
    error_pct,
    evenly,
    fit_coefficients,
    fit_sample,
    intervals_from_monitor,
    sample_of,
    split,
    synthesize_intervals,
)
from engine.cli import main as qrtune_main
from engine.monitor.importer import load_monitor_rows, parse_file, write_exports, write_parsed
from engine.scenario import project_to_scenario
from engine.store import FitError, Store

OFFERED = np.concatenate([np.linspace(300, 2200, 24), np.linspace(2200, 300, 24)])


@pytest.fixture
def imported(db, tmp_path, baseline):
    settings = project_to_scenario(baseline)
    model = engine_fit_model(settings, "fit_fakes")
    rows = synthesize_intervals(
        model, settings, fit_fakes.TRUE, OFFERED, 10.0, np.random.default_rng(7), 0.03
    )
    with Store.open(db) as s:
        write_parsed(s, [parse_file(f) for f in write_exports(rows, tmp_path)], baseline.name)
    return db, settings, model


def test_intervals_from_imported_rows(imported, baseline):
    db, _, _ = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    assert len(ivs) == len(OFFERED)
    assert all(iv.interval_s == 10.0 for iv in ivs)
    assert ivs[0].offered_rows_per_s == pytest.approx(OFFERED[0], rel=0.15)
    assert set(ivs[0].measured) >= {
        "apply_rows_per_s",
        "apply_latency_ms",
        "qlatency_ms",
        "capture_latency_ms",
        "end2end_latency_ms",
        "capture_rows_per_s",
        "msg_size_kb",
    }
    fit_set, held = split(ivs, 4)
    assert len(held) == len(OFFERED) // 4 and not set(map(id, fit_set)) & set(map(id, held))


def test_fit_recovers_known_coefficients_and_lowers_held_out_error(imported, baseline):
    db, settings, model = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    result = fit_coefficients(model, settings, ivs)
    for name, true in fit_fakes.TRUE.items():
        assert result.base[name] != pytest.approx(true, rel=0.2)  # the start is really off
        assert result.fitted[name] == pytest.approx(true, rel=0.08), name
    before = result.before["by_metric"]
    after = result.after["by_metric"]
    assert after["apply_latency_ms"] < 10 < before["apply_latency_ms"]
    assert after["qlatency_ms"] < before["qlatency_ms"]
    assert result.after["median_pct"] < result.before["median_pct"]
    assert result.before["mean_metric_pct"] == pytest.approx(np.mean(list(before.values())))
    assert result.after["mean_metric_pct"] < 5 < result.before["mean_metric_pct"]


def test_long_imports_are_fitted_on_evenly_spaced_intervals(imported, baseline):
    db, settings, model = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    result = fit_coefficients(model, settings, ivs, max_intervals=10)
    assert (result.n_fit, result.n_holdout, result.n_fit_total, result.n_holdout_total) == (10, 10, 36, 12)
    assert result.fitted["apply_ms_per_txn"] == pytest.approx(fit_fakes.TRUE["apply_ms_per_txn"], rel=0.1)
    picked = evenly(list(range(36)), 10)
    assert picked[0] == 0 and picked[-1] == 35 and len(set(picked)) == 10


def test_interval_length_from_monitor_time_when_column_missing(baseline):
    from datetime import datetime, timedelta

    t = np.array([datetime(2024, 1, 1) + timedelta(seconds=30 * k) for k in range(3)], dtype="datetime64[us]")
    tables = {
        "IBMQREP_APPLYMON": {
            "monitor_time": t,
            "queue": np.array(["Q"] * 3, dtype=object),
            "ROWS_APPLIED": np.array([300.0, 600.0, 0.0]),
        }
    }
    ivs = intervals_from_monitor(tables, default_interval_s=10.0)
    assert [iv.interval_s for iv in ivs] == [30.0, 30.0]  # the first takes the spacing, not the default
    assert [iv.measured["apply_rows_per_s"] for iv in ivs] == [10.0, 20.0]  # the idle interval is left out
    single = {
        "IBMQREP_APPLYMON": {
            "monitor_time": t[:1],
            "queue": np.array(["Q"], dtype=object),
            "ROWS_APPLIED": np.array([300.0]),
        }
    }
    assert [iv.interval_s for iv in intervals_from_monitor(single, default_interval_s=10.0)] == [10.0]


def test_fit_errors(imported, baseline):
    db, settings, model = imported
    with pytest.raises(FitError, match="no imported IBMQREP_APPLYMON"):
        intervals_from_monitor({})
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    with pytest.raises(FitError, match="at least 4"):
        fit_coefficients(model, settings, ivs[:3])
    with pytest.raises(FitError, match="not fittable; the engine offers: capture_ms_per_txn"):
        fit_coefficients(model, settings, ivs, only=["nope"])


def test_fit_command_records_the_fit_and_predict_uses_it(imported, baseline, capsys):
    db, settings, _ = imported
    args = ["sample_runs/redpaper-baseline.json", "--db", str(db)]
    assert qrtune_main(["fit", *args, "--model", "fit_fakes", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["fitted"]["apply_ms_per_txn"] == pytest.approx(12.0, rel=0.08)
    assert doc["holdout_error_after"]["median_pct"] < doc["holdout_error_before"]["median_pct"]
    with Store.open(db, read_only=True) as s:
        fit = s.latest_fit(baseline.name)
    assert fit["id"] == doc["fit_id"] and fit["coefficients"]["mq_ms_per_msg"] == pytest.approx(3.0, rel=0.08)
    # what-ifs with the fitted coefficients: qrtune predict --fitted (the engine the fit was made with)
    assert qrtune_main(["predict", *args, "--fitted", "--json"]) == 0
    pred = json.loads(capsys.readouterr().out)
    expected = fit_fakes.predict(settings, fit["coefficients"]).metrics
    assert pred["metrics"]["apply_latency_ms"] == pytest.approx(expected["apply_latency_ms"])
    assert pred["metrics"]["apply_latency_ms"] != pytest.approx(
        fit_fakes.predict(settings).metrics["apply_latency_ms"]
    )
    with Store.open(db, read_only=True) as s:
        (run,) = s.list_runs(kind="predict")
    assert run.id == pred["run_id"] and run.label == f"fitted (fit {fit['id']})"
    assert run.coefficients_version == f"fitfake-1+fit{fit['id']}"  # not mistaken for a plain run
    assert fit["error_after_pct"] == pytest.approx(doc["holdout_error_after"]["mean_metric_pct"])


def test_fit_table_output_and_overlay_export(imported, capsys, tmp_path):
    db, _, _ = imported
    export = tmp_path / "overlay.csv"
    assert (
        qrtune_main(
            [
                "fit",
                "sample_runs/redpaper-baseline.json",
                "--db",
                str(db),
                "--model",
                "fit_fakes",
                "--only",
                "apply_ms_per_txn",
                "--export",
                str(export),
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "error on held-out intervals" in out and "apply_ms_per_txn" in out
    rows = list(csv.DictReader(export.open()))
    assert len({r["monitor_time"] for r in rows}) == len(OFFERED)
    assert (
        sum(r["held_out"] == "True" for r in rows if r["metric"] == "apply_latency_ms") == len(OFFERED) // 4
    )
    lat = [r for r in rows if r["metric"] == "apply_latency_ms"]
    after = np.median([abs(float(r["predicted_after"]) / float(r["measured"]) - 1) for r in lat])
    before = np.median([abs(float(r["predicted_before"]) / float(r["measured"]) - 1) for r in lat])
    assert after < 0.1 < before  # the fitted model overlays the measured latencies


def test_predict_fitted_without_a_fit_says_what_to_do(db, capsys):
    Store.open(db).close()
    assert qrtune_main(["predict", "sample_runs/redpaper-baseline.json", "--db", str(db), "--fitted"]) == 2
    err = capsys.readouterr().err
    assert "no fit of project 'Redpaper baseline" in err and "qrtune import-monitor" in err


def test_engine_contract_check_accepts_a_conforming_engine(baseline):
    params = check_engine_contract(fit_fakes, project_to_scenario(baseline))
    assert params["apply_ms_per_txn"] == (8.0, 0.1, 1000.0, "ms/txn")


def _engine(parameters, predict):
    return types.SimpleNamespace(
        __name__="engine.perf.fake", fit_parameters=lambda settings: parameters, predict=predict
    )


def test_engine_contract_entries_in_coefficient_file_layout(baseline):
    settings = project_to_scenario(baseline)
    layout = {
        "apply_ms_per_txn": {"value": 8.0, "bounds": [0.1, 1000.0], "unit": "ms/txn"},
        "mq_ms_per_msg": {"value": 5.0, "low": 0.05, "high": 100.0},
    }
    params = check_engine_contract(_engine(layout, fit_fakes.predict), settings)
    assert params == {
        "apply_ms_per_txn": (8.0, 0.1, 1000.0, "ms/txn"),
        "mq_ms_per_msg": (5.0, 0.05, 100.0, ""),
    }


@pytest.mark.parametrize(
    "parameters, predict, fragment",
    [
        (
            {"apply_ms_per_txn": (8.0, 9.0, 20.0, "ms")},
            fit_fakes.predict,
            "expected 0 < low <= value <= high",
        ),
        ({"apply_ms_per_txn": (8.0, 0.1)}, fit_fakes.predict, "expected (value, low, high, unit)"),
        ({"apply_ms_per_txn": (9.0, 0.1, 100.0, "ms")}, fit_fakes.predict, "must be the ones in use"),
        (
            {"apply_ms_per_txn": (8.0, 0.1, 100.0, "ms")},
            lambda s, c=None: fit_fakes.predict(s),
            "ignores coefficient",
        ),
        ({}, fit_fakes.predict, "offers no coefficient"),
    ],
)
def test_engine_contract_violations_are_named(baseline, parameters, predict, fragment):
    with pytest.raises(FitError) as e:
        check_engine_contract(_engine(parameters, predict), project_to_scenario(baseline))
    assert fragment in str(e.value) and "engine.perf.fake" in str(e.value)


def test_fit_converges_within_its_budget(imported, baseline):
    db, settings, model = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    result = fit_coefficients(model, settings, ivs)
    assert result.stopped_at == "" and 0 < result.n_predictions <= MAX_PREDICTIONS
    doc = result.to_json()
    assert doc["stopped_at_budget"] == "" and doc["n_predictions"] == result.n_predictions


def test_fit_stopped_at_its_prediction_budget_keeps_the_best_point(imported, baseline):
    db, settings, model = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    sample = sample_of(ivs)
    full = fit_sample(model, settings, sample)
    # room for the start, one Jacobian (one column per coefficient) and a few steps, not for convergence
    evaluations = len(model.parameters) + 4
    result = fit_sample(model, settings, sample, max_predictions=evaluations * len(sample.fit))
    assert "engine predictions (the budget is" in result.stopped_at
    assert result.n_predictions <= evaluations * len(sample.fit) < full.n_predictions
    base_train = error_pct(model, settings, sample.fit, result.base)["mean_metric_pct"]
    assert result.train_after["mean_metric_pct"] < base_train  # the steps made are kept, not the start
    assert result.fitted != result.base


def test_fit_stopped_at_its_time_budget_returns_the_start(imported, baseline):
    db, settings, model = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    progress = []
    result = fit_sample(
        model, settings, sample_of(ivs), budget_s=1e-9, progress=lambda f, t: progress.append(f)
    )
    assert "(the budget is 1e-09 s)" in result.stopped_at and result.fitted == result.base
    assert result.n_predictions == 0 and progress == []
    progressed = []
    fit_sample(model, settings, sample_of(ivs), progress=lambda f, t: progressed.append((f, t)))
    assert progressed and all(0 < f <= 1 for f, _ in progressed) and "engine predictions" in progressed[-1][1]
    with pytest.raises(FitError, match="budget_s 0 and max_predictions 5: both must be positive"):
        fit_sample(model, settings, sample_of(ivs), budget_s=0, max_predictions=5)


def test_fit_command_says_it_stopped_at_its_budget(imported, capsys, monkeypatch):
    import itertools

    import engine.calibrate.fit

    db, _, _ = imported
    args = ["fit", "sample_runs/redpaper-baseline.json", "--db", str(db), "--model", "fit_fakes"]
    assert qrtune_main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stopped_at_budget"] == ""  # converged: says nothing
    clock = itertools.count(0.0, 1.0)  # every look at the clock is one second later
    monkeypatch.setattr(engine.calibrate.fit, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    assert qrtune_main([*args, "--budget-s", "2.5"]) == 0
    out = capsys.readouterr().out
    assert "stopped at its budget after 3.0 s (the budget is 2.5 s)" in out
    assert "error on held-out intervals" in out
    with pytest.raises(SystemExit) as e:
        qrtune_main([*args, "--budget-s", "0"])
    assert e.value.code == 2
    assert "--budget-s: 0 is not allowed; expected a number from 0.1 to 86,400 s" in capsys.readouterr().err


def test_qrtune_fit_marks_a_coefficient_at_a_bound_and_names_metrics_as_ibm_does():
    from engine.calibrate.fit import FitResult
    from engine.cli.fit import format_fit

    result = FitResult(
        base={"ch_batch_us": 6154.0, "class2_commit_ms": 0.746, "maxtrans_per_commit": 129.7},
        fitted={"ch_batch_us": 20000.0, "class2_commit_ms": 0.0747, "maxtrans_per_commit": 130.7},
        units={"ch_batch_us": "us", "class2_commit_ms": "ms", "maxtrans_per_commit": "txns"},
        n_fit=300,
        n_holdout=107,
        before={"mean_metric_pct": 30.3, "by_metric": {"apply_latency_ms": 128.8, "qlatency_ms": 73.5}},
        after={"mean_metric_pct": 11.0, "by_metric": {"apply_latency_ms": 14.7}},
        train_after={},
        bounds={
            "ch_batch_us": (0.0, 20000.0),
            "class2_commit_ms": (0.0746, 10.0),
            "maxtrans_per_commit": (1, 1000),
        },
    )
    text = "\n".join(format_fit(result))
    assert re.search(r"ch_batch_us\s+us\s+6,154\s+20,000\s+\+225\.0%  at its upper bound", text)
    assert re.search(r"class2_commit_ms\s+ms\s+0\.746\s+0\.0747\s+-90\.0%  at its lower bound", text)
    assert re.search(r"maxtrans_per_commit\s+txns\s+129\.7\s+130\.7\s+\+0\.8%$", text, re.MULTILINE)
    assert "Check the project's settings" in text
    assert re.search(r"APPLY_LATENCY\s+128\.8% ->  14\.7%", text) and re.search(
        r"QLATENCY\s+73\.5% ->\s+-$", text, re.MULTILINE
    )
