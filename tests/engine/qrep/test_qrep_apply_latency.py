"""APPLY_LATENCY mechanisms: agent service and M/M/c wait, batch arrivals of an MQ commit, and their limits."""

from __future__ import annotations

import heapq
import math
import random

import pytest
from qrep_test_helpers import with_setting

from engine.perf.qrep import solve_settings
from engine.perf.qrep.latency import burst_wait
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


def _batch_poisson_sojourn_ms(burst: int, agents: int, service_ms: float, rho: float, bursts: int) -> float:
    """Mean time in system (ms) of a transaction when bursts of ``burst`` arrive as a Poisson stream at
    ``agents`` first-come-first-served agents with exponential services (event simulation, seeded)."""
    rnd = random.Random(7)
    mean_gap_ms = burst * service_ms / agents / rho
    free = [0.0] * agents
    t = total = 0.0
    counted = 0
    for b in range(bursts):
        t += rnd.expovariate(1.0 / mean_gap_ms)
        for _ in range(burst):
            start = max(t, heapq.heappop(free))
            end = start + rnd.expovariate(1.0 / service_ms)
            heapq.heappush(free, end)
            if b >= bursts // 10:  # past the warm-up
                total += end - t
                counted += 1
    return total / counted


def test_one_agent_burst_wait_is_the_exact_batch_poisson_queue():
    # M^X/M/1 with fixed batches of K: Wq = S (K - 1 + 2 rho) / (2 (1 - rho)), of which rho S / (1 - rho)
    # is the single-arrival (M/M/1) wait the agents' stage latency carries
    k, s, rho = 43.0, 0.33, 0.9
    w = burst_wait(k, s, rho, math.inf)
    assert w.on_queue_ms == 0.0
    assert w.in_memory_ms + rho * s / (1 - rho) == pytest.approx(s * (k - 1 + 2 * rho) / (2 * (1 - rho)))


@pytest.mark.parametrize("burst, agents, rho", [(24, 4, 0.7), (12, 4, 0.8)])
def test_burst_wait_agrees_with_an_event_simulation_of_agents(burst, agents, rho):
    service_ms = 1.0
    pooled_ms = service_ms / agents
    model = (
        service_ms
        + mmc_wait(agents, rho, service_ms)
        + burst_wait(burst, pooled_ms, rho, math.inf).in_memory_ms
    )
    simulated = _batch_poisson_sojourn_ms(burst, agents, service_ms, rho, 20_000)
    assert model == pytest.approx(simulated, rel=0.10)


def test_a_burst_of_one_transaction_adds_no_wait():
    assert burst_wait(1.0, 0.5, 0.99, 100.0) == (0.0, 0.0)
    assert burst_wait(0.2, 0.5, 0.5, 100.0) == (0.0, 0.0)  # less than a transaction counts as one


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.995, 1.0, 3.0])
def test_memory_limit_moves_the_burst_wait_and_never_removes_it(rho):
    total = sum(burst_wait(130.0, 0.2, rho, math.inf))
    assert math.isfinite(total) and total > 0.0
    for lookahead in (0.0, 1.0, 50.0, 1e6):
        w = burst_wait(130.0, 0.2, rho, lookahead)
        assert w.in_memory_ms >= 0.0 and w.on_queue_ms >= 0.0
        assert w.in_memory_ms <= lookahead * 0.2 + 1e-12
        assert w.in_memory_ms + w.on_queue_ms == pytest.approx(total)


def test_the_burst_follows_the_commit_period(baseline):
    # 1,000 rows/s of 5-row transactions: COMMIT_INTERVAL ends each period, a longer one sends bigger
    # bursts; 10,000 rows/s: the transaction limit ends it first and COMMIT_INTERVAL does not matter
    def apply_ms(rate, interval_ms):
        s = with_setting(baseline, "workload.offered_rows_per_s", rate)
        return solve_settings(with_setting(s, "qcapture.commit_interval_ms", interval_ms)).apply_latency_ms

    assert apply_ms(1_000, 800) > apply_ms(1_000, 200)
    assert apply_ms(10_000, 800) == pytest.approx(apply_ms(10_000, 200), rel=1e-9)


@pytest.mark.parametrize(
    "path, values",
    [
        ("qcapture.commit_interval_ms", (100, 500, 5_000)),
        ("qapply.memory_limit_mb", (1, 200, 2_000)),
        ("qapply.num_apply_agents", (1, 6, 64)),
        ("qcapture.trans_batch_sz", (1, 3, 100)),
    ],
)
@pytest.mark.parametrize("rate", [1, 100])
def test_light_load_latencies_stay_finite_and_positive(baseline, path, values, rate):
    s = with_setting(baseline, "workload.offered_rows_per_s", rate)
    for value in values:
        sol = solve_settings(with_setting(s, path, value))
        parts = (sol.capture_latency_ms, sol.qlatency_ms, sol.apply_latency_ms)
        assert all(math.isfinite(p) and p > 0.0 for p in parts), (path, value, parts)
        assert sol.apply_latency_ms < 50.0  # nothing queues at a light load: the agents' service
