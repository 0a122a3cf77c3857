"""Q Apply's parallelism: dependency chains within the browser's look-ahead, and agent contention."""

from __future__ import annotations

import pytest
from qrep_test_helpers import with_setting

from engine.perf.qrep import apply_parallel, predict, solve_settings


def _agents(sol):
    return {s.name: s for s in sol.stages}["qapply_agents"]


def test_chains_within_the_lookahead_keep_every_agent_busy_and_beyond_it_starve_them():
    # 99% dependent: chains of 100 transactions on average
    assert apply_parallel.chain_txns(0.99, 10_000) == pytest.approx(100.0)
    assert apply_parallel.graph_parallelism(16, 0.99, 10_000) == 16  # 100 chains fit in the look-ahead
    assert apply_parallel.graph_parallelism(16, 0.99, 400) == pytest.approx(4.0)  # four chains fit
    assert apply_parallel.graph_parallelism(16, 0.99, 50) == 1.0  # not even one: applied in order
    assert apply_parallel.graph_parallelism(16, 0.0, 8) == 8  # the memory holds 8 transactions
    assert apply_parallel.graph_parallelism(1, 0.99, 10_000) == 1
    # a transaction waits half a service per transaction ahead of it in its chain
    assert apply_parallel.chain_wait_services(0.5, 10_000) == pytest.approx(0.5)
    assert apply_parallel.chain_wait_services(0.99, 50) == pytest.approx(24.5)
    assert apply_parallel.chain_wait_services(0.0, 10) == 0.0


def test_memory_limit_bounds_the_lookahead():
    assert apply_parallel.lookahead_txns(1.0, 1048576.0 / 200) == pytest.approx(200.0)
    assert apply_parallel.lookahead_txns(4.0, 1048576.0 / 200) == pytest.approx(800.0)


def test_ten_percent_dependent_transactions_cost_latency_not_half_the_capacity(baseline):
    free = solve_settings(baseline)
    dep = solve_settings(with_setting(baseline, "workload.dependent_txn_pct", 10.0))
    # the browser passes over a dependent transaction to the independent ones behind it
    assert dep.rows_per_s == pytest.approx(free.rows_per_s, rel=1e-9)
    light = with_setting(baseline, "workload.offered_rows_per_s", 10_000)
    assert (
        solve_settings(with_setting(light, "workload.dependent_txn_pct", 10.0)).apply_latency_ms
        > solve_settings(light).apply_latency_ms
    )
    one = with_setting(baseline, "qapply.num_apply_agents", 1)
    assert solve_settings(with_setting(one, "workload.dependent_txn_pct", 50.0)).rows_per_s == pytest.approx(
        solve_settings(one).rows_per_s, rel=0.02
    )  # one agent applies in order anyway


def test_long_chains_starve_the_agents_only_when_memory_limit_cuts_the_lookahead(baseline):
    # 80% of 3-transaction messages dependent: chains of about 125 target transactions
    chains = with_setting(baseline, "workload.dependent_txn_pct", 80.0)
    free = solve_settings(baseline).rows_per_s
    wide = solve_settings(chains)
    assert wide.rows_per_s == pytest.approx(free, rel=1e-9)  # 200 MB holds every chain the agents need
    narrow = solve_settings(with_setting(chains, "qapply.memory_limit_mb", 1))
    assert narrow.rows_per_s < 0.5 * free
    held = narrow.rows_per_s / free
    one_agent = solve_settings(with_setting(baseline, "qapply.num_apply_agents", 1)).rows_per_s / free
    assert held > one_agent  # still more than one chain in 1 MB
    assert _agents(narrow).utilisation > 0.9  # the agents limit, through the graph


def test_agents_scale_sub_linearly_and_cost_more_cpu_per_row_as_more_work_at_once(baseline):
    counts = (1, 2, 4, 6)
    preds = [predict(with_setting(baseline, "qapply.num_apply_agents", n)).metrics for n in counts]
    rates = [m["apply_rows_per_s"] for m in preds]
    cpu = [m["apply_cpu_us_per_row"] for m in preds]
    for n, r in zip(counts[1:], rates[1:]):
        assert rates[0] < r < n * rates[0]
    assert all(b > a for a, b in zip(cpu, cpu[1:]))
    # at 10 rows/s the agents hardly ever work at once: 16 cost a row what one costs
    light = with_setting(baseline, "workload.offered_rows_per_s", 10)
    alone = predict(with_setting(light, "qapply.num_apply_agents", 1)).metrics["apply_cpu_us_per_row"]
    many = predict(with_setting(light, "qapply.num_apply_agents", 16)).metrics["apply_cpu_us_per_row"]
    assert many == pytest.approx(alone, rel=1e-9)


def test_contention_cpu_is_charged_to_the_apply_lpar(baseline):
    sol = solve_settings(baseline)
    assert sol.agent_contention_row_ref_us > 0.0
    apply_lpar = next(lp for lp in sol.lpars if "A" in lp.roles)
    none = solve_settings(with_setting(baseline, "qapply.num_apply_agents", 1))
    none_lpar = next(lp for lp in none.lpars if "A" in lp.roles)
    assert none.agent_contention_row_ref_us == 0.0
    assert apply_lpar.cpu_us_per_row > none_lpar.cpu_us_per_row
