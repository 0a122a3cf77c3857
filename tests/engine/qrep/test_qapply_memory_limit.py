"""Q Apply MEMORY_LIMIT: a commit's burst beyond what the browser holds waits on the receive queue."""

from __future__ import annotations

from qrep_test_helpers import with_setting

from engine.perf.qrep import solve_settings


def _end2end_ms(sol):
    return sol.capture_latency_ms + sol.qlatency_ms + sol.apply_latency_ms


def test_a_small_memory_limit_moves_the_wait_to_the_receive_queue(baseline):
    big = solve_settings(baseline)
    small = solve_settings(with_setting(baseline, "qapply.memory_limit_mb", 1))
    assert small.qlatency_ms > big.qlatency_ms + 20.0
    assert small.apply_latency_ms < big.apply_latency_ms
    assert _end2end_ms(small) >= _end2end_ms(big) - 1e-9
    assert _end2end_ms(small) >= _end2end_ms(big)  # moved, never removed
