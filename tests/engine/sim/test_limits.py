"""Work and memory of a simulation are bounded before it starts; deep pre-loaded queues are streamed."""

import math

import numpy as np
import pytest

from engine.errors import ValueRangeError
from engine.sim import profiles, simulate_config
from engine.sim.limits import (
    MAX_SIMULATED_TXNS,
    MAX_TIME_BINS,
    RunSize,
    check_simulation_budget,
    estimate_budget,
)


def test_an_ordinary_run_is_within_the_budget():
    b = check_simulation_budget(RunSize(600.0, 5, 1.0), profiles.constant(43_660.0))
    assert b.txns == pytest.approx(43_660.0 * 600 / 5)
    assert b.time_bins == 600
    assert b.memory_bytes < 1e9


@pytest.mark.parametrize("duration_s", [math.inf, math.nan, 1e308, 360_000_000.0, -1.0, 0.0])
def test_a_duration_beyond_what_is_reported_is_refused_naming_the_field(duration_s):
    with pytest.raises(ValueRangeError) as e:
        check_simulation_budget(RunSize(duration_s, 5, 2.0), profiles.constant(1.0))
    assert e.value.path == "duration"
    assert "s" in e.value.allowed


@pytest.mark.parametrize("rate", [1e308, 2e7])
def test_a_rate_above_the_registry_maximum_is_refused(rate):
    with pytest.raises(ValueRangeError) as e:
        check_simulation_budget(RunSize(600.0, 5, 1.0), profiles.constant(rate))
    assert "--rate" in e.value.path and "10,000,000 rows/s" in e.value.allowed


def test_too_many_transactions_are_refused_with_the_rate_and_duration_that_fit():
    rate = 10_000_000.0
    with pytest.raises(ValueRangeError) as e:
        check_simulation_budget(RunSize(600.0, 5, 1.0), profiles.constant(rate))
    fits = MAX_SIMULATED_TXNS * 5 / 600.0
    assert f"{fits:,.6g} rows/s" in e.value.allowed
    assert estimate_budget(RunSize(600.0, 5, 1.0), fits).txns == pytest.approx(MAX_SIMULATED_TXNS)


def test_a_preloaded_queue_too_deep_to_simulate_is_refused_before_anything_is_allocated():
    with pytest.raises(ValueRangeError) as e:
        check_simulation_budget(
            RunSize(600.0, 5, 1.0, initial_msgs=1_000_000_000, trans_batch_sz=10_000), profiles.constant(0.0)
        )
    assert "INITIAL_DEPTH_MSGS" in e.value.path and e.value.value == 1_000_000_000


def test_the_bins_limit_follows_the_bin_width():
    check_simulation_budget(RunSize(MAX_TIME_BINS * 2.0, 5, 2.0), profiles.constant(0.0))
    with pytest.raises(ValueRangeError):
        check_simulation_budget(RunSize(MAX_TIME_BINS * 2.0 + 2.0, 5, 2.0), profiles.constant(0.0))


def test_simulate_refuses_an_extreme_depth_without_allocating(cfg):
    with pytest.raises(ValueRangeError):
        simulate_config(cfg, 60.0, profile=profiles.constant(0.0), initial_recvq_msgs=1_000_000_000)


def test_a_preloaded_queue_streamed_in_parts_is_applied_as_in_one(cfg):
    import dataclasses

    cfg = dataclasses.replace(cfg, dependent_share=0.3, commit_count=2)
    kw = {"profile": profiles.constant(0.0), "initial_recvq_msgs": 5_000, "trace": True}
    whole = simulate_config(cfg, 30.0, **kw)
    parts = simulate_config(cfg, 30.0, chunk_txns=999, **kw)
    assert np.allclose(np.sort(whole.trace["done"]), np.sort(parts.trace["done"]), rtol=0, atol=1e-9)
    assert whole.summary["initial_queue_applied_s"] == pytest.approx(parts.summary["initial_queue_applied_s"])
    assert whole.summary["rows_applied"] == parts.summary["rows_applied"] > 0


@pytest.mark.parametrize("duration_s, rate", [(1e308, 10.0), (360_000_000.0, 10.0), (600.0, 1e308)])
def test_the_db2_mirror_simulation_has_the_same_bounds(duration_s, rate):
    from engine.sim.mirror import simulate_mirror_rates

    with pytest.raises(ValueRangeError):
        simulate_mirror_rates(rate, 100.0, duration_s)


def test_stationary_stretches_copied_are_not_counted_against_the_limit():
    six_hours = RunSize(21_600.0, 5, 2.0)
    with pytest.raises(ValueRangeError):  # every transaction of six hours at the baseline's rate: too many
        check_simulation_budget(six_hours, profiles.constant(43_000.0))
    copied = 0.9 * 43_000.0 * 21_600.0
    b = check_simulation_budget(six_hours, profiles.constant(43_000.0), copied_rows=copied)
    assert b.txns == pytest.approx(0.1 * 43_000.0 * 21_600.0 / 5)
