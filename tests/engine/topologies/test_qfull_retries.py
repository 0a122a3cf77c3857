"""Q Capture's retries on a full CF structure: QFULL_RETRY_DELAY apart, QFULL_NUM_RETRIES of them,
then it stops; in a walk, a catch-up and a simulation."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from engine import projectfile
from engine.perf.qrep.cf_structure import CfStructure
from engine.perf.qrep.qfull_retry import walk
from engine.scenario import project_to_scenario
from engine.settings import set_path

ROOT = Path(__file__).resolve().parents[3]
KB = 1024.0
RULES_OFF = ((0.7, 64 * KB), (0.8, 64 * KB), (0.9, 64 * KB))
OFFLOAD_OFF = {"mq.offld1sz": 64, "mq.offld2sz": 64, "mq.offld3sz": 64}


def _cf() -> CfStructure:
    topo = SimpleNamespace(offload_rules=RULES_OFF, cf_structure_mb=16.0, scm_mb=0.0)
    return CfStructure.of(topo, SimpleNamespace(cf_entry_overhead_bytes=1024.0), 25 * KB)


def _capacity_msgs() -> float:
    cf = _cf()
    return cf.real_bytes / cf.full_entry_bytes


def _fill_then(get_rate: float, delay_s: float, retries: int, steps: int = 2000, dt: float = 0.01):
    """Puts at twice the structure per second from an empty structure, gets at ``get_rate``."""
    put_rate = 2.0 * _capacity_msgs()
    return walk(_cf(), dt, np.full(steps, put_rate * dt), np.full(steps, get_rate * dt), delay_s, retries)


def test_with_no_gets_q_capture_stops_after_its_retries_at_the_documented_time():
    w = _fill_then(0.0, 0.25, 30)
    first_fail = 0.5 * 1.0  # twice the capacity per second: full after half a second
    assert w.stopped_s == pytest.approx(first_fail + 30 * 0.25, abs=0.01)
    assert w.failed_puts.sum() == pytest.approx(1 + 30, abs=1)
    after = w.t_s > w.stopped_s
    assert np.all(w.put_msgs[after] == 0.0) and w.held_msgs[-1] > w.held_msgs[after][0]
    assert _fill_then(0.0, 0.25, 4).stopped_s == pytest.approx(first_fail + 4 * 0.25, abs=0.01)


def test_zero_retries_stop_q_capture_at_the_first_failed_put():
    w = _fill_then(0.5 * _capacity_msgs(), 0.25, 0)
    assert w.stopped_s == pytest.approx(1.0 / (2.0 - 0.5), abs=0.01)  # full after C / (2 C - C / 2)
    assert w.failed_puts.sum() == 1.0


def test_q_capture_stops_only_when_the_gets_free_less_than_a_message_through_its_retries():
    # room for one message every 1/rate s: within 3 retries of 10 ms at 50 messages/s, not at 20
    assert _fill_then(50.0, 0.01, 3).stopped_s is None
    slow = _fill_then(20.0, 0.01, 3)
    assert slow.stopped_s is not None and slow.stopped_s < 0.5 + 1.0 / 20.0 + 0.03 + 0.01


def test_a_retry_delay_longer_than_the_structure_takes_to_empty_starves_the_gets():
    get_rate = _capacity_msgs()  # the gets empty a full structure in 1 s
    quick = _fill_then(get_rate, 0.25, 30, steps=1000)
    slow = _fill_then(get_rate, 4.0, 30, steps=1000)
    late = slice(500, None)
    assert quick.put_msgs[late].sum() == pytest.approx(get_rate * 5.0, rel=0.02)
    # every 4 s a retry fills the structure again: one structure's worth per retry delay
    assert slow.put_msgs[late].sum() == pytest.approx(_capacity_msgs() * 5.0 / 4.0, rel=0.3)
    assert slow.put_msgs[late].sum() < 0.5 * quick.put_msgs[late].sum()


# -- a catch-up --------------------------------------------------------------------------------


def _catch_up(**paths):
    from engine.predict import predict_settings

    s = copy.deepcopy(
        project_to_scenario(projectfile.load(ROOT / "sample_runs" / "qsg-shared-capture-queue.json"))
    )
    base = {
        "qcapture.trans_batch_sz": 1,
        "qapply.num_apply_agents": 2,
        "workload.offered_rows_per_s": None,
        "run.mode": "catch-up",
        "run.initial_receive_queue_depth": 1000,
        "run.catch_up_payload_msgs": 200_000,
        "mq.cf_structure_size_mb": 64,
        **OFFLOAD_OFF,
    }
    for path, value in {**base, **paths}.items():
        set_path(s, path, value)
    return predict_settings(s)


def test_a_catch_up_with_no_retries_stops_q_capture_when_the_structure_fills_and_reports_no_end():
    stops = _catch_up(**{"qcapture.qfull_num_retries": 0})
    m = stops.metrics
    rows = m["rows_per_msg"]
    unhindered = _catch_up(**{"mq.cf_structure_size_mb": 4096}).metrics["capture_rows_per_s"]
    capture, apply = unhindered / rows, m["apply_rows_per_s"] / rows
    capacity = 64 * 1048576.0 / (m["msg_size_kb"] * KB + 1024.0)  # messages kept whole, offload off
    fills_s = (capacity - 1000) / (capture - apply)
    assert m["qcapture_stopped_s"] == pytest.approx(fills_s, rel=0.01)
    assert m["capture_rows_per_s"] == pytest.approx(unhindered, rel=0.01)  # until it stopped
    for name in ("elapsed_s", "catch_up_capture_s", "catch_up_apply_s", "cf_capture_wait_ms"):
        assert name not in m
    assert "qcapture.qfull_num_retries" not in stops.ignored


def test_with_retries_enough_a_small_structure_catches_up_later_than_a_big_one():
    small = _catch_up().metrics
    big = _catch_up(**{"mq.cf_structure_size_mb": 4096}).metrics
    assert "qcapture_stopped_s" not in small and small["cf_put_failures"] > 0
    assert small["catch_up_capture_s"] > 1.5 * big["catch_up_capture_s"]
    assert small["elapsed_s"] >= big["elapsed_s"]
    assert small["capture_latency_ms"] > big["capture_latency_ms"]


def test_the_retry_delay_changes_the_catch_up_course():
    quick = _catch_up().metrics
    slow = _catch_up(**{"qcapture.qfull_retry_delay_ms": 5000}).metrics
    # a full structure empties in ~2 s at Q Apply's rate: with 5 s between retries Q Capture puts one
    # structure's worth per retry and Q Apply waits for it
    capacity = 64 * 1048576.0 / (quick["msg_size_kb"] * KB + 1024.0)
    assert slow["catch_up_capture_s"] == pytest.approx(200_000 / (capacity / 5.0), rel=0.1)
    assert slow["elapsed_s"] > 2.0 * quick["elapsed_s"]
    assert slow["cf_put_failures"] < quick["cf_put_failures"]


def test_the_retry_knobs_are_ignored_with_reasons_where_no_put_fails():
    roomy = _catch_up(**{"mq.cf_structure_size_mb": 4096})
    for path in ("qcapture.qfull_num_retries", "qcapture.qfull_retry_delay_ms"):
        assert path in roomy.ignored and "never retries" in roomy.ignored_reasons[path]
        assert path not in _catch_up().ignored


# -- a simulation --------------------------------------------------------------------------------


def _simulated(**paths):
    from engine.sim.events import parse_event
    from engine.sim.run import simulate_settings

    s = copy.deepcopy(
        project_to_scenario(projectfile.load(ROOT / "sample_runs" / "qsg-shared-capture-queue.json"))
    )
    for path, value in {
        "workload.offered_rows_per_s": 4000.0,
        "qcapture.trans_batch_sz": 1,
        "mq.cf_structure_size_mb": 16,
        **OFFLOAD_OFF,
        **paths,
    }.items():
        set_path(s, path, value)
    return simulate_settings(s, 60.0, events=[parse_event("channel-stop@10+20")])


def test_a_simulated_q_capture_stops_when_the_channel_stop_outlasts_its_retries():
    res = _simulated(**{"qcapture.qfull_retry_delay_ms": 250, "qcapture.qfull_num_retries": 30})
    m = res.metrics()[0]
    stop = m["qcapture_stopped_s"]
    # the structure fills within a few seconds of the stop at 10 s; nothing is deleted until 30 s
    assert 10.0 + 30 * 0.25 < stop < 10.0 + 5.0 + 30 * 0.25
    assert any("QFULL_NUM_RETRIES (30)" in note for note in res.summary["notes"])
    applied_after = res.timeseries["qapply.rows_per_s"][res.timeseries["t_s"] > 40.0]
    assert applied_after.max() == 0.0  # replication stopped: nothing more reaches Q Apply


def test_a_simulated_q_capture_held_back_by_a_full_structure_puts_no_more_than_it_holds():
    held = _simulated(**{"qcapture.qfull_num_retries": 1000})
    big = _simulated(**{"mq.cf_structure_size_mb": 512, "qcapture.qfull_num_retries": 1000})
    h, b = held.metrics()[0], big.metrics()[0]
    assert "qcapture_stopped_s" not in h and h["cf_put_failures"] > 0
    holds = 16 * 1048576.0 / (25 * KB + 1024.0)
    assert h["peak_xmitq_depth_msgs"] <= 1.05 * holds < 0.1 * b["peak_xmitq_depth_msgs"]
    assert h["capture_latency_ms"] > 10.0 * b["capture_latency_ms"]
    slower = _simulated(**{"qcapture.qfull_num_retries": 1000, "qcapture.qfull_retry_delay_ms": 2000})
    assert slower.metrics()[0]["capture_latency_ms"] > h["capture_latency_ms"]


@pytest.mark.parametrize("seed", range(6))
def test_a_walk_of_bursty_puts_and_gets_keeps_its_books(seed):
    rng = np.random.default_rng(seed)
    steps, dt = 600, 0.05
    cap = _capacity_msgs()
    wanted = rng.exponential(0.5 * cap * dt, steps) * (rng.random(steps) < 0.7)
    gets = rng.exponential(0.4 * cap * dt, steps) * (rng.random(steps) < 0.5)
    if seed % 2:  # Q Apply deletes nothing for 15 s
        gets[200:500] = 0.0
    delay, retries = float(rng.choice([0.01, 0.25, 1.0])), int(rng.integers(0, 40))
    w = walk(_cf(), dt, wanted, gets, delay, retries)
    for arr in (w.put_msgs, w.held_msgs, w.depth_msgs, w.failed_puts, w.full_s, w.used_pct):
        assert np.all(np.isfinite(arr)) and np.all(arr >= -1e-9)
    # every message wanted is put or still held; the structure never holds more than it can
    assert w.put_msgs.sum() + w.held_msgs[-1] == pytest.approx(wanted.sum(), rel=1e-9)
    assert w.depth_msgs.max() <= cap * (1 + 1e-9) and w.peak_used_pct <= 100.0 + 1e-9
    assert np.all(w.full_s <= dt + 1e-9)
    assert w.failed_puts.sum() > 0
    assert (w.stopped_s is not None) == bool(seed % 2)  # 15 s is longer than any 40 retries here
    if w.stopped_s is not None:
        assert np.all(w.put_msgs[w.t_s > w.stopped_s + dt] == 0.0)
        assert w.stopped_s >= w.first_time(w.failed_puts > 0) - dt
