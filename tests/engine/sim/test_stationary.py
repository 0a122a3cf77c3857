"""Copied stationary windows (engine.sim.stationary) against the per-transaction simulation of the same run.

Ten simulated minutes of the Redpaper baseline, once with every transaction simulated and once
with stationary windows represented by copies of a simulated one: the figures the journeys
read (throughput, each latency, the END2END 99th percentile, the monitor rows, an outage's
peak backlog and catch-up time) agree, while the copied run simulates a fraction of the
transactions.
"""

from pathlib import Path

import numpy as np
import pytest

from engine import projectfile
from engine.scenario import project_to_scenario
from engine.sim import Event, profiles, simulate_settings
from engine.sim.stationary import Plan, TimeMap

ROOT = Path(__file__).resolve().parents[3]


def _pair(rate, events=(), duration_s=600.0):
    project = projectfile.load(ROOT / "sample_runs" / "redpaper-baseline.json")
    settings = project_to_scenario(project)
    kw = dict(project=project, seed=5, profile=profiles.constant(rate), events=events)
    every = simulate_settings(settings, duration_s, stationary_windows=False, **kw)
    copied = simulate_settings(settings, duration_s, **kw)
    return every, copied


@pytest.mark.slow
def test_copied_windows_give_the_figures_of_the_per_transaction_run():
    every, copied = _pair(30_000.0)
    a, b = every.summary, copied.summary
    assert b["replicated_s"] >= 300.0  # most of the run is copies ...
    assert b["txns_simulated"] < 0.5 * a["txns_simulated"]  # ... and not simulated
    assert b["txns_generated"] == pytest.approx(a["txns_generated"], rel=0.01)
    assert b["throughput_rows_per_s"] == pytest.approx(a["throughput_rows_per_s"], rel=0.005)
    for key in ("capture_latency_ms", "qlatency_ms", "apply_latency_ms"):
        assert b[key] == pytest.approx(a[key], rel=0.05), key
    for q in ("mean", "p50", "p95", "p99"):
        assert b["end2end_latency_ms"][q] == pytest.approx(a["end2end_latency_ms"][q], rel=0.03), q
    ma, mb = every.monitor["IBMQREP_APPLYMON"], copied.monitor["IBMQREP_APPLYMON"]
    assert len(ma["ROWS_APPLIED"]) == len(mb["ROWS_APPLIED"])
    # every monitor interval after the first carries about the offered rows (no hole, no double count)
    assert np.allclose(mb["ROWS_APPLIED"][1:], ma["ROWS_APPLIED"][1:].mean(), rtol=0.03)
    assert np.allclose(mb["END2END_LATENCY"][1:], ma["END2END_LATENCY"][1:].mean(), rtol=0.03)
    # queue depths stay at their steady level (the copies do not drift)
    assert mb["QDEPTH"].max() <= 2.0 * ma["QDEPTH"].max()


@pytest.mark.slow
def test_an_outage_is_simulated_transaction_by_transaction():
    outage = [Event("channel_stop", 240.0, 90.0)]
    every, copied = _pair(30_000.0, outage)
    a, b = every.summary["events"][0], copied.summary["events"][0]
    assert copied.summary["replicated_s"] > 0
    assert b["peak_backlog_rows"] == pytest.approx(a["peak_backlog_rows"], rel=0.02)
    assert b["catch_up_s"] == pytest.approx(a["catch_up_s"], abs=10.0)
    # no copy touches the outage or the window before it
    for w in copied.summary["replicated_windows"]:
        assert w["start_s"] + w["length_s"] <= 240.0 or w["start_s"] >= 330.0 + 30.0


def test_the_time_map_moves_times_after_each_stretch():
    tmap = TimeMap()
    tmap.insert(60.0, 30.0)
    tmap.insert(60.0, 30.0)  # a second copy in a row: one stretch of 60 s
    tmap.insert(90.0, 30.0)
    t = tmap.real(np.array([10.0, 60.0, 61.0, 90.0, 91.0]))
    assert t.tolist() == [10.0, 60.0, 121.0, 150.0, 181.0]
    at, start, end = tmap.gaps()
    assert at.tolist() == [60.0, 90.0] and start.tolist() == [60.0, 150.0] and end.tolist() == [120.0, 180.0]


def test_windows_with_a_rate_change_a_batch_window_or_an_event_are_never_copies():
    steps = profiles.from_dict({"kind": "steps", "steps": [[0, 1000], [300, 5000]]})
    plan = Plan(steps, [Event("apply_stop", 600.0, 60.0)], 1200.0, 30.0, 50_000.0)
    eligible = [k for k in range(plan.n_windows) if plan.eligible(k)]
    assert 0 not in eligible and 1 not in eligible  # warm-up
    assert 10 not in eligible  # first window at the new rate: the one before it has another rate
    assert not any(20 <= k <= 22 for k in eligible)  # the event's windows and the one after it
    assert 11 in eligible and 30 in eligible
    overloaded = Plan(profiles.constant(49_500.0), [], 600.0, 30.0, 50_000.0)
    assert overloaded.static_copies() == 0  # above 98% of capacity queues need not settle
