"""APPLY_LATENCY mechanisms: agent service and M/M/c wait, batch arrivals of an MQ commit, and their limits."""

from __future__ import annotations

import pytest
from qrep_test_helpers import with_setting

from engine.perf.qrep import solve_settings
from engine.perf.qrep.queueing import mmc_wait


def _agents(sol):
    return {s.name: s for s in sol.stages}["qapply_agents"]


def test_apply_latency_is_service_plus_wait_plus_batch_arrivals(baseline):
    sol = solve_settings(with_setting(baseline, "workload.offered_rows_per_s", 20_000))
    ag = _agents(sol)
    burst_txns = min(sol.msgs_per_commit, baseline["mq"]["batchsz"]) / sol.geometry.msgs_per_target_txn
    expected = (
        ag.service_ms
        + mmc_wait(ag.servers, ag.utilisation, ag.service_ms)
        + sol.geometry.rows_per_target_txn
        * 1000.0
        / ag.capacity_rows_per_s
        * (burst_txns - 1.0)
        / (2.0 * (1.0 - ag.utilisation))
    )
    assert sol.apply_latency_ms == pytest.approx(expected, rel=1e-9)
    assert sol.apply_latency_ms > ag.service_ms


def test_apply_latency_grows_with_load(baseline):
    lat = [
        solve_settings(with_setting(baseline, "workload.offered_rows_per_s", r)).apply_latency_ms
        for r in (5_000, 20_000, 35_000, 42_000)
    ]
    assert lat == sorted(lat) and lat[-1] > 3.0 * lat[1]


def test_more_apply_cps_never_raise_apply_latency_at_the_same_rate(baseline):
    s = with_setting(baseline, "workload.offered_rows_per_s", 35_000)
    lat = [solve_settings(with_setting(s, "hardware.apply_lpar_cps", n)).apply_latency_ms for n in (3, 5, 9)]
    assert lat[0] > lat[1] >= lat[2]


def test_bigger_mq_commits_arrive_as_bigger_bursts(baseline):
    s = with_setting(baseline, "workload.offered_rows_per_s", 20_000)
    small = solve_settings(with_setting(s, "mq.batchsz", 5))  # the channel batch caps the burst
    big = solve_settings(s)
    assert big.msgs_per_commit > 5
    assert small.apply_latency_ms < big.apply_latency_ms


def test_a_drain_has_no_capture_bursts(scenarios):
    drain = dict(scenarios["dw-zos-apply-16-agents"])
    sol = solve_settings(drain)
    ag = _agents(sol)
    expected = ag.service_ms + mmc_wait(ag.servers, ag.utilisation, ag.service_ms)
    assert sol.apply_latency_ms == pytest.approx(expected, rel=1e-9)


def test_apply_memory_limit_caps_the_queued_part(baseline):
    s = with_setting(baseline, "qapply.memory_limit_mb", 1)  # ~170 target transactions of ~6 KB
    sol = solve_settings(s)
    ag = _agents(sol)
    held_txns = 1048576.0 / (sol.geometry.msg_bytes * sol.geometry.msgs_per_target_txn)
    queued = (
        sol.apply_latency_ms - ag.service_ms - mmc_wait(ag.servers, min(ag.utilisation, 0.995), ag.service_ms)
    )
    per_txn_ms = sol.geometry.rows_per_target_txn * 1000.0 / ag.capacity_rows_per_s
    assert queued == pytest.approx(held_txns * per_txn_ms, rel=1e-9)  # the cap binds
    assert sol.apply_latency_ms < solve_settings(baseline).apply_latency_ms
