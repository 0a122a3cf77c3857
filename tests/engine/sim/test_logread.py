"""Q Capture's log-read cycle (engine.sim.logread): passes, sleeps and the cycle's length."""

import numpy as np
import pytest

from engine.sim.logread import LogReadState, log_read_passes

SLEEP_S = 0.05


def _passes(avail, work, pieces=1, python=False):
    state = LogReadState(SLEEP_S)
    out = [
        log_read_passes(a, w, SLEEP_S, state, python)
        for a, w in zip(np.array_split(avail, pieces), np.array_split(work, pieces))
    ]
    return [np.concatenate(x) for x in zip(*out)]


def _poisson(n, per_s, seed=1):
    return np.cumsum(np.random.default_rng(seed).exponential(1.0 / per_s, n))


def test_an_instantaneous_reader_wakes_on_the_sleep_interval_grid():
    avail = _poisson(20000, 500.0)
    pass_id, wake, read_end = _passes(avail, np.zeros_like(avail))
    np.testing.assert_allclose(wake, np.ceil(avail / SLEEP_S - 1e-9) * SLEEP_S, rtol=0, atol=1e-9)
    assert np.all(np.diff(pass_id) >= 0) and np.all(read_end == wake)


def test_a_pass_reads_what_is_committed_while_it_runs_and_ends_at_the_end_of_the_log():
    # woken at 0.05, it reads 0.01 and 0.02 (0.06 done), then 0.06 and 0.061 committed meanwhile;
    # 0.2 finds it asleep since 0.07: it wakes at 0.12, sleeps again, reads at 0.22
    pass_id, wake, read_end = _passes(
        np.array([0.01, 0.02, 0.06, 0.061, 0.2]), np.full(5, 0.005), python=True
    )
    assert pass_id.tolist() == [1, 1, 1, 1, 2]
    np.testing.assert_allclose(wake, [0.05, 0.05, 0.05, 0.05, 0.22])
    np.testing.assert_allclose(read_end, [0.055, 0.06, 0.065, 0.07, 0.225])


@pytest.mark.parametrize("python", [False, True])
def test_chunks_give_the_same_passes_as_one_run(python):
    avail = _poisson(30000, 600.0)
    work = np.full_like(avail, 0.8 / 600.0)  # a reader busy 80% of the time: long passes
    whole = _passes(avail, work, 1, python)
    for got, want in zip(_passes(avail, work, 37, python), whole):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("busy", [0.2, 0.5, 0.8])
def test_the_cycle_is_the_sleep_plus_the_pass_and_the_wait_is_half_a_sleep_plus_queueing(busy):
    per_s = 1000.0
    service_s = busy / per_s
    avail = _poisson(400000, per_s)
    pass_id, wake, read_end = _passes(avail, np.full_like(avail, service_s))
    # cycle: SLEEP_INTERVAL / (1 - busy) between wake-ups (exact for a reader that keeps up)
    wakes = wake[np.flatnonzero(np.diff(pass_id, prepend=0))]
    assert np.diff(wakes).mean() == pytest.approx(SLEEP_S / (1.0 - busy), rel=0.03)
    # wait before being read: a multiple-vacation M/D/1 queue (Fuhrmann-Cooper decomposition):
    # the M/D/1 wait plus the mean residual of a SLEEP_INTERVAL vacation, SLEEP_INTERVAL / 2
    wait = (read_end - service_s - avail).mean()
    md1 = busy * service_s / (2.0 * (1.0 - busy))
    assert wait == pytest.approx(SLEEP_S / 2.0 + md1, rel=0.03)
