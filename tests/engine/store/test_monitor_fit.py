"""Fitting coefficients to monitor intervals: recovery of known coefficients, held-out error, CLI.

The monitor rows come from the steady-state model (tests/engine/store/fit_fakes.py) run with
known coefficients plus 3 % noise, written as CSV exports with the real column names and
imported like a user's: the time-domain simulator and the Q Replication engine had not landed
when this was written.
"""

from __future__ import annotations

import json
import subprocess
import sys

import fit_fakes
import numpy as np
import pytest
from store_fakes import ROOT

from engine.fit import engine_fit_model, fit_coefficients, intervals_from_monitor, split, synthesize_intervals
from engine.monitor_import import load_monitor_rows, parse_file, to_csv_text, write_parsed
from engine.scenario import project_to_scenario
from engine.store import FitError, Store

OFFERED = np.concatenate([np.linspace(300, 2200, 24), np.linspace(2200, 300, 24)])


@pytest.fixture
def imported(db, tmp_path, baseline):
    settings = project_to_scenario(baseline)
    model = engine_fit_model(settings, "fit_fakes")
    rows = synthesize_intervals(model, settings, fit_fakes.TRUE, OFFERED, 10.0, np.random.default_rng(7), 0.03)
    files = []
    for table, table_rows in rows.items():
        f = tmp_path / f"{table}.csv"
        f.write_text(to_csv_text(table, table_rows))
        files.append(f)
    with Store.open(db) as s:
        write_parsed(s, [parse_file(f) for f in files], baseline.name)
    return db, settings, model


def test_intervals_from_imported_rows(imported, baseline):
    db, settings, model = imported
    with Store.open(db, read_only=True) as s:
        ivs = intervals_from_monitor(load_monitor_rows(s, baseline.name))
    assert len(ivs) == len(OFFERED)
    assert all(iv.interval_s == 10.0 for iv in ivs)
    assert ivs[0].offered_rows_per_s == pytest.approx(OFFERED[0], rel=0.15)
    assert set(ivs[0].measured) >= {"apply_rows_per_s", "apply_latency_ms", "qlatency_ms", "capture_latency_ms",
                                    "end2end_latency_ms", "capture_rows_per_s", "msg_size_kb"}
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


def test_interval_length_from_monitor_time_when_column_missing(baseline):
    from datetime import datetime, timedelta

    t = np.array([datetime(2024, 1, 1) + timedelta(seconds=30 * k) for k in range(3)], dtype="datetime64[us]")
    tables = {"IBMQREP_APPLYMON": {"monitor_time": t, "queue": np.array(["Q"] * 3, dtype=object),
                                   "ROWS_APPLIED": np.array([300.0, 600.0, 0.0])}}
    ivs = intervals_from_monitor(tables, default_interval_s=10.0)
    assert [iv.interval_s for iv in ivs] == [10.0, 30.0]  # the first falls back to the default
    assert [iv.measured["apply_rows_per_s"] for iv in ivs] == [30.0, 20.0]  # the idle interval is left out


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


def test_fit_command_records_the_fit(imported, env_with_fakes, baseline):
    db, _, _ = imported
    out = subprocess.run([sys.executable, "-m", "engine", "fit", "sample_runs/redpaper-baseline.json", "--db",
                          str(db), "--model", "fit_fakes", "--json"], cwd=ROOT, env=env_with_fakes,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["fitted"]["apply_ms_per_txn"] == pytest.approx(12.0, rel=0.08)
    assert doc["holdout_error_after"]["median_pct"] < doc["holdout_error_before"]["median_pct"]
    with Store.open(db, read_only=True) as s:
        fit = s.latest_fit(baseline.name)
    assert fit["id"] == doc["fit_id"] and fit["coefficients"]["mq_ms_per_msg"] == pytest.approx(3.0, rel=0.08)
    table = subprocess.run([sys.executable, "-m", "engine", "fit", "sample_runs/redpaper-baseline.json", "--db",
                            str(db), "--model", "fit_fakes"], cwd=ROOT, env=env_with_fakes, capture_output=True,
                           text=True, timeout=120)
    assert "error on held-out intervals" in table.stdout and "apply_ms_per_txn" in table.stdout
