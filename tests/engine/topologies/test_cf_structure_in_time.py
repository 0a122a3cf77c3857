"""Shared queues in time: the CF structure fills with the depth, offloads by OFFLDnTH / OFFLDnSZ,
extends into SCM from 90% and fails puts (MQRC 2192) when full; a catch-up's Q Capture retries."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from engine import projectfile
from engine.perf.qrep.cf_structure import SCM_FROM_SHARE, CfStructure, offload_from
from engine.perf.qrep.qfull_retry import walk
from engine.predict import predict_settings
from engine.scenario import project_to_scenario
from engine.settings import set_path

ROOT = Path(__file__).resolve().parents[3]
KB = 1024.0
MB = 1048576.0
DEFAULT_RULES = ((0.7, 32 * KB), (0.8, 4 * KB), (0.9, 0.0))
RULES_OFF = ((0.7, 64 * KB), (0.8, 64 * KB), (0.9, 64 * KB))


def _topo(rules=DEFAULT_RULES, real_mb=64.0, scm_mb=0.0):
    return SimpleNamespace(offload_rules=rules, cf_structure_mb=real_mb, scm_mb=scm_mb)


def _cf(msg_kb=25.0, **kw) -> CfStructure:
    return CfStructure.of(_topo(**kw), SimpleNamespace(cf_entry_overhead_bytes=1024.0), msg_kb * KB)


def _fill_one_by_one(cf: CfStructure, n: int):
    """Put ``n`` messages one at a time: (usage before each accepted put, offloaded share of each,
    puts failing)."""
    usage, off, failed = [], [], 0
    for _ in range(n):
        before = cf.real_used_share
        kept, o = cf.put(1.0)
        if kept < 1.0 - 1e-9:
            failed += 1
            continue
        usage.append(before)
        off.append(o)
    return np.array(usage), np.array(off), failed


def test_the_offload_threshold_of_a_message_follows_its_size_and_the_rules():
    assert offload_from(_topo(), 25 * KB) == 0.8  # above OFFLD2SZ 4 KB, not OFFLD1SZ 32 KB
    assert offload_from(_topo(), 40 * KB) == 0.7
    assert offload_from(_topo(), 2 * KB) == 0.9  # OFFLD3SZ 0 KB: every size
    assert offload_from(_topo(), 70 * KB) == 0.0  # over 63 KB: always offloaded
    assert offload_from(_topo(RULES_OFF), 25 * KB) is None
    assert offload_from(_topo(((1.0, 0.0),) * 3), 25 * KB) is None  # OFFLDnTH 100%: the rule never fires


def test_as_the_depth_grows_usage_rises_puts_offload_past_the_threshold_and_fail_when_full():
    usage, off, failed = _fill_one_by_one(_cf(), 20_000)
    assert np.all(np.diff(usage) >= 0.0) and usage[-1] == pytest.approx(1.0, abs=1e-3)
    # offloaded exactly when the usage at the put had reached OFFLD2TH (80%), kept whole before
    assert np.all(off[usage < 0.8 - 1e-3] == 0.0) and np.all(off[usage >= 0.8] == 1.0)
    assert failed > 0  # the structure fills with entries: MQRC 2192


def test_with_offload_turned_off_nothing_is_offloaded_and_the_structure_fills_sooner():
    usage, off, failed = _fill_one_by_one(_cf(rules=RULES_OFF), 20_000)
    assert off.sum() == 0.0 and failed > 0
    with_rules = _fill_one_by_one(_cf(), 20_000)[2]
    assert failed > with_rules


def test_scm_takes_the_entries_from_90_percent_on_and_puts_fail_only_when_it_is_full_too():
    cf = _cf(rules=RULES_OFF, scm_mb=32.0)
    per_msg = cf.full_entry_bytes
    cf.put(0.85 * cf.real_bytes / per_msg)
    assert cf.scm_used_bytes == 0.0
    cf.put(0.10 * cf.real_bytes / per_msg)
    assert cf.scm_used_bytes > 0.0 and cf.real_used_share == pytest.approx(SCM_FROM_SHARE)
    assert cf.scm_msgs() == pytest.approx(cf.scm_used_bytes / per_msg)
    kept, _ = cf.put(1e9)
    assert cf.scm_used_bytes == pytest.approx(32.0 * MB) and kept < 1e9
    assert cf.real_used_share == pytest.approx(1.0)


def test_gets_empty_the_structure_oldest_first_and_free_room_for_puts():
    cf = _cf(rules=RULES_OFF)
    held = cf.put(1e9)[0]
    assert cf.put(1.0)[0] == 0.0  # full
    cf.get(0.5 * held)
    assert cf.real_used_share == pytest.approx(0.5, rel=1e-6)
    assert cf.put(1.0)[0] == 1.0


def test_a_full_structure_makes_q_capture_retry_and_put_only_what_the_gets_free():
    cf = _cf(rules=RULES_OFF)
    capacity = cf.put(1e9)[0]
    cf.get(capacity)
    steps, dt, put_rate, get_rate = 400, 0.25, 4 * capacity / 100.0, capacity / 100.0
    w = walk(
        cf,
        dt,
        np.full(steps, put_rate * dt),
        np.full(steps, get_rate * dt),
        retry_delay_s=0.25,
        num_retries=30,
    )
    full = w.full_s > 0
    assert full.any() and w.failed_puts.sum() >= full.sum()
    late = slice(steps // 2, None)  # once full, puts keep pace with the gets
    assert w.put_msgs[late].mean() == pytest.approx(get_rate * dt, rel=1e-6)
    assert w.held_msgs[-1] > 0 and w.wait_msg_s > 0
    faster = walk(
        _cf(rules=RULES_OFF), dt, np.full(steps, put_rate * dt), np.full(steps, get_rate * dt), 0.05, 30
    )
    assert faster.failed_puts.sum() > w.failed_puts.sum()


# -- a catch-up on shared queues ---------------------------------------------------------------


def _catch_up(**paths) -> dict:
    s = project_to_scenario(projectfile.load(ROOT / "sample_runs" / "qsg-shared-capture-queue.json"))
    s = copy.deepcopy(s)
    base = {
        "qcapture.trans_batch_sz": 1,  # ~25 KB messages
        "qapply.num_apply_agents": 2,  # Q Apply slower than capture: the queue deepens
        "workload.offered_rows_per_s": None,
        "run.mode": "catch-up",
        "run.initial_receive_queue_depth": 1000,
        "run.catch_up_payload_msgs": 200_000,
    }
    for path, value in {**base, **{k.replace("__", "."): v for k, v in paths.items()}}.items():
        set_path(s, path, value)
    return predict_settings(s)


def test_a_catch_up_that_fills_the_structure_fails_puts_slows_capture_and_grows_capture_latency():
    roomy = _catch_up(mq__cf_structure_size_mb=4096)
    tight = _catch_up(mq__cf_structure_size_mb=64)
    r, t = roomy.metrics, tight.metrics
    assert r["cf_put_failures"] == 0 and r["cf_structure_peak_used_pct"] < 100.0
    assert t["cf_put_failures"] > 0 and t["cf_full_s"] > 0
    assert t["cf_structure_peak_used_pct"] == pytest.approx(100.0)
    assert t["capture_rows_per_s"] < r["capture_rows_per_s"]
    assert t["catch_up_capture_s"] > r["catch_up_capture_s"]
    assert (
        t["capture_latency_ms"]
        > r["capture_latency_ms"] + t["cf_capture_wait_ms"] - 1e-6
        > r["capture_latency_ms"]
    )
    assert t["catch_up_peak_depth_msgs"] < r["catch_up_peak_depth_msgs"]  # the structure caps the depth
    assert "qcapture.qfull_retry_delay_ms" in roomy.ignored
    assert "qcapture.qfull_retry_delay_ms" not in tight.ignored


def test_scm_lets_the_structure_hold_the_catch_up_without_failing_puts():
    tight = _catch_up(mq__cf_structure_size_mb=64).metrics
    scm = _catch_up(mq__cf_structure_size_mb=64, mq__scmmaxsize_gb=1.0).metrics
    assert scm["cf_put_failures"] == 0 < tight["cf_put_failures"]
    assert scm["cf_scm_peak_mb"] > 0 and scm["cf_structure_peak_used_pct"] == pytest.approx(90.0, abs=0.1)


def test_a_catch_up_with_offload_turned_off_offloads_nothing():
    off = _catch_up(mq__cf_structure_size_mb=64, mq__offld1sz=64, mq__offld2sz=64, mq__offld3sz=64).metrics
    assert off["cf_offloaded_msgs"] == 0.0 and off["offloaded_msgs_pct"] == 0.0
    assert off["cf_put_failures"] > 0  # MQ cannot offload: the structure fills and puts fail
    on = _catch_up(mq__cf_structure_size_mb=64).metrics
    assert on["cf_offloaded_msgs"] > 0


def test_a_drain_beyond_the_structure_with_offload_off_holds_messages_back_and_offloads_none():
    p = _catch_up(
        run__mode="drain",
        run__initial_receive_queue_depth=2_000_000,
        mq__cf_structure_size_mb=256,
        mq__offld1sz=64,
        mq__offld2sz=64,
        mq__offld3sz=64,
    )
    assert p.metrics["offloaded_msgs_pct"] == 0.0 and p.metrics["cf_held_back_msgs"] > 0


# -- a simulation on shared queues -------------------------------------------------------------


def _simulated(structure_mb: float, **paths):
    from engine.sim.events import parse_event
    from engine.sim.run import simulate_settings

    s = project_to_scenario(projectfile.load(ROOT / "sample_runs" / "qsg-shared-capture-queue.json"))
    s = copy.deepcopy(s)
    for path, value in {
        "workload.offered_rows_per_s": 4000.0,
        "qcapture.trans_batch_sz": 1,
        "mq.cf_structure_size_mb": structure_mb,
        **{k.replace("__", "."): v for k, v in paths.items()},
    }.items():
        set_path(s, path, value)
    return simulate_settings(s, 60.0, events=[parse_event("channel-stop@10+20")])


def test_a_simulated_structure_fills_while_the_channel_is_stopped_and_empties_after():
    res = _simulated(512)
    used = res.timeseries["cf.used_pct"]
    depth = res.timeseries["xmitq.depth_msgs"] + res.timeseries["recvq.depth_msgs"]
    peak = int(np.argmax(used))
    assert used[peak] > 50.0 and used[-1] < 0.2 * used[peak]  # fills during the stop, empties after
    assert np.corrcoef(used, depth)[0, 1] > 0.9
    m = res.metrics()[0]
    assert m["cf_put_failures"] == 0.0 and m["cf_offloaded_msgs"] > 0  # past OFFLD2TH 80%


def test_a_simulated_structure_too_small_for_the_outage_fails_puts_and_offload_off_offloads_none():
    small = _simulated(16).metrics()[0]
    assert small["cf_put_failures"] > 0 and small["cf_full_s"] > 0
    assert small["cf_structure_peak_used_pct"] == pytest.approx(100.0)
    off = _simulated(16, mq__offld1sz=64, mq__offld2sz=64, mq__offld3sz=64).metrics()[0]
    assert off["cf_offloaded_msgs"] == 0.0 and off["cf_put_failures"] > small["cf_put_failures"]
    scm = _simulated(16, mq__scmmaxsize_gb=1.0).metrics()[0]
    assert scm["cf_put_failures"] == 0.0 and scm["cf_scm_peak_mb"] > 0


def test_a_growing_catch_up_fills_the_structure_and_capture_then_keeps_pace_with_q_apply():
    m = _catch_up(mq__cf_structure_size_mb=64, run__catch_up_payload_msgs=0).metrics
    assert m["backlog_growth_rows_per_s"] > 0 and m["cf_full_after_s"] > 0
    assert m["capture_rows_per_s"] == pytest.approx(m["apply_rows_per_s"])
    assert "cf_put_failures" not in m  # a count over an open-ended catch-up would measure nothing


def test_a_catch_up_past_an_offload_threshold_pays_the_offload_of_every_new_message_from_the_start():
    def catch_up(depth):
        return _catch_up(
            mq__cf_structure_size_mb=512,
            qapply__num_apply_agents=12,  # Q Apply ahead: the backlog shrinks
            run__initial_receive_queue_depth=depth,
            run__catch_up_payload_msgs=0,
        ).metrics

    below, past = catch_up(1000), catch_up(20_000)  # ~5% and ~81% of the structure, OFFLD2TH 80%
    assert below["cf_structure_used_pct"] < 80.0 < past["cf_structure_used_pct"]
    assert below["smds_ios_per_s"] == 0.0
    # every message Q Capture puts now is offloaded: its two SMDS writes and two reads (at the steady
    # flow's rate, which drives its stages to 95% where the catch-up's capture takes their capacity)
    msgs_per_s = past["capture_rows_per_s"] / past["rows_per_msg"]
    assert past["smds_ios_per_s"] == pytest.approx(4.0 * msgs_per_s, rel=0.06)
    assert past["cf_cpu_us_per_row"] < below["cf_cpu_us_per_row"]  # entries without their data
