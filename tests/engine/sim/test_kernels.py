"""Queueing kernels against theory (M/M/1, M/M/c, Little's law) and against their plain loops."""

import math

import numpy as np
import pytest

from engine.sim.events import Warp
from engine.sim.kernels import (
    MultiServerState,
    erlang_c,
    fifo_departures,
    lindley_waits,
    mmc_mean_wait_s,
    multi_server_memory,
)

N = 1_000_000


def test_mm1_mean_wait_within_3pct_of_theory_over_a_million_customers():
    rng = np.random.default_rng(11)
    lam, mu = 0.7, 1.0
    w = lindley_waits(rng.exponential(1 / lam, N), rng.exponential(1 / mu, N))
    theory = lam / (mu * (mu - lam))  # rho / (mu - lambda)
    assert abs(w.mean() / theory - 1) < 0.03


@pytest.mark.parametrize("servers", [2, 4])
def test_mmc_mean_wait_within_3pct_of_theory_over_a_million_customers(servers):
    rng = np.random.default_rng(100 + servers)
    mu, rho = 1.0, 0.75
    lam = rho * servers * mu
    arr = np.cumsum(rng.exponential(1 / lam, N))
    _, start, _, _, _, _ = multi_server_memory(
        arr, rng.exponential(1 / mu, N), np.ones(N), MultiServerState(servers)
    )
    theory = mmc_mean_wait_s(lam, mu, servers)
    assert abs((start - arr).mean() / theory - 1) < 0.03


def test_erlang_c_known_values():
    assert erlang_c(1, 0.5) == pytest.approx(0.5)  # M/M/1: P(wait) = rho
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3)  # hand-solved: C(2, 1) = (1/2 * 2) / (1 + 1 + 1) = 1/3


def test_littles_law_on_the_fifo_kernel():
    rng = np.random.default_rng(3)
    lam = 0.8
    arr = np.cumsum(rng.exponential(1 / lam, 200_000))
    dep = fifo_departures(arr, rng.exponential(1.0, arr.size))
    horizon = arr[-1]
    # time-average number in system from the sample path = area / horizon
    inside = dep <= horizon
    area = np.sum(dep[inside] - arr[inside]) + np.sum(horizon - arr[~inside])
    l_avg = area / horizon
    assert l_avg == pytest.approx((arr.size / horizon) * np.mean(np.minimum(dep, horizon) - arr), rel=1e-9)
    assert l_avg == pytest.approx(lam / (1 - lam), rel=0.05)  # M/M/1: L = rho / (1 - rho)


def test_fifo_scan_equals_the_plain_recursion_and_chunks_carry_state():
    rng = np.random.default_rng(5)
    arr = np.cumsum(rng.exponential(1.0, 5000))
    s = rng.exponential(0.9, 5000)
    d, last = [], -math.inf
    for a, x in zip(arr, s):
        last = max(a, last) + x
        d.append(last)
    whole = fifo_departures(arr, s)
    np.testing.assert_array_equal(whole, d)  # the compiled loop is the recursion itself
    np.testing.assert_allclose(
        fifo_departures(arr, s, vectorised=True), d, rtol=0, atol=1e-9
    )  # its closed form
    for vectorised in (False, True):
        first = fifo_departures(arr[:1234], s[:1234], vectorised=vectorised)
        second = fifo_departures(arr[1234:], s[1234:], first[-1], vectorised=vectorised)
        np.testing.assert_allclose(np.concatenate((first, second)), whole, rtol=0, atol=1e-9)


@pytest.mark.parametrize("mem_limit", [math.inf, 6.0, 2.5])
def test_compiled_multi_server_equals_its_plain_python_body(mem_limit):
    rng = np.random.default_rng(9)
    n = 3000
    arr = np.cumsum(rng.exponential(0.3, n))
    work = rng.exponential(1.0, n)
    size = rng.uniform(0.5, 3.0, n)
    size[100] = 10.0  # a monster: bigger than the memory
    dependent = rng.random(n) < 0.3  # these wait for the one before them to depart
    read = rng.exponential(0.1, n)  # the reader's work on each once it is in memory
    outs = []
    for python in (False, True):
        st = MultiServerState(3)
        kw = {
            "extra": np.full(n, 0.05),
            "queue_cap": 4.0,  # customers behind 4 waiting ones take the reader 0.05 s longer
            "dependent": dependent,
            "read": read,
        }
        a = multi_server_memory(
            arr[:1000],
            work[:1000],
            size[:1000],
            st,
            mem_limit,
            python=python,
            **{k: (v[:1000] if k in ("extra", "dependent", "read") else v) for k, v in kw.items()},
        )
        b = multi_server_memory(
            arr[1000:],
            work[1000:],
            size[1000:],
            st,
            mem_limit,
            python=python,
            **{k: (v[1000:] if k in ("extra", "dependent", "read") else v) for k, v in kw.items()},
        )
        outs.append([np.concatenate((x, y)) for x, y in zip(a, b)])
    for x, y in zip(*outs):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)
    entry, _start, dep, _block, slow, parsed = outs[0]
    assert (slow.any() and not slow.all()) if mem_limit < math.inf else not slow.any()
    assert np.all(entry >= arr) and np.all(parsed >= entry + read) and np.all(_start >= parsed)
    assert np.all(dep > _start) and np.all(np.diff(parsed) >= read[1:] - 1e-12)
    whole = multi_server_memory(
        arr,
        work,
        size,
        MultiServerState(3),
        mem_limit,
        extra=np.full(n, 0.05),
        queue_cap=4.0,
        dependent=dependent,
        read=read,
    )
    np.testing.assert_allclose(whole[2], dep, rtol=0, atol=1e-12)  # chunking carries the queue state
    assert np.all(
        _start[1:][dependent[1:]] >= dep[:-1][dependent[1:]]
    )  # a dependent one starts after the one before
    if mem_limit < math.inf:
        # memory held at every entry never exceeds the limit, except by a lone monster
        for i in range(0, n, 97):
            held = size[:i][(entry[:i] <= entry[i]) & (dep[:i] > entry[i])].sum()
            assert held + size[i] <= mem_limit + 1e-9 or held == 0


def test_without_dependent_customers_the_multi_server_is_plain_fcfs():
    # Kiefer-Wolfowitz: each customer takes the earliest free of c servers in arrival order
    rng = np.random.default_rng(3)
    n, c = 20000, 4
    arr = np.cumsum(rng.exponential(0.3, n))
    work = rng.exponential(1.0, n)
    free, want = np.zeros(c), []
    for a, w in zip(arr, work):
        k = int(np.argmin(free))
        free[k] = max(free[k], a) + w
        want.append(free[k])
    for dependent in (None, np.zeros(n, bool)):
        dep = multi_server_memory(arr, work, np.ones(n), MultiServerState(c), dependent=dependent)[2]
        np.testing.assert_array_equal(dep, want)


def test_a_dependent_customer_waits_for_the_one_before_without_holding_up_the_next():
    # customer 1 depends on customer 0 (work 5), 2 and 3 do not
    arr, work, size, dependent = [0.0] * 4, [5.0, 1.0, 1.0, 1.0], [1.0] * 4, [False, True, False, False]
    _, start, dep, _, _, _ = multi_server_memory(arr, work, size, MultiServerState(3), dependent=dependent)
    # 1 takes the server free last by 5 (customer 0's), leaving the idle two to 2 and 3, which go first
    assert start.tolist() == [0.0, 5.0, 0.0, 0.0]
    assert dep.tolist() == [5.0, 6.0, 1.0, 1.0]
    # with two servers, 2 and 3 take turns on the other one while 1 waits
    _, start, _, _, _, _ = multi_server_memory(arr, work, size, MultiServerState(2), dependent=dependent)
    assert start.tolist() == [0.0, 5.0, 0.0, 1.0]


def test_memory_limit_blocks_entry_until_a_departure():
    st = MultiServerState(2)
    entry, _start, dep, block, _, _ = multi_server_memory(
        [0.0, 0.0, 0.0], [1.0, 2.0, 1.0], [1.0, 1.0, 1.0], st, 2.0
    )
    assert entry.tolist() == [0.0, 0.0, 1.0]  # the third waits for the first to leave memory
    assert block.tolist() == [0.0, 0.0, 0.0]
    assert dep.tolist() == [1.0, 2.0, 2.0]


def test_a_burst_waits_in_memory_as_far_as_the_memory_limit_holds_it():
    # one channel batch of 200 unit-size customers at once; a reader 0.1 s each, 4 servers of 1 s
    # (pooled 0.25 s: the servers are the bottleneck); a memory of 20 customers, or none
    n, c = 200, 4
    arr, work, size, read = np.zeros(n), np.ones(n), np.ones(n), np.full(n, 0.1)
    free = multi_server_memory(arr, work, size, MultiServerState(c), math.inf, read=read)
    entry, _, dep, _, _, parsed = free
    assert np.all(entry == 0.0)  # all got at once: nothing waits on the queue
    np.testing.assert_allclose(parsed, 0.1 * np.arange(1, n + 1))  # the reader, one after another
    held = multi_server_memory(arr, work, size, MultiServerState(c), 20.0, read=read)
    # customer i enters when customer i - 20 departs: the wait moves onto the queue ...
    np.testing.assert_allclose(held[0][20:], held[2][:-20], atol=1e-12)
    assert held[0].mean() > 20.0
    # ... and is not removed: the servers are the bottleneck either way
    np.testing.assert_allclose(held[2], dep, atol=1e-12)
    np.testing.assert_allclose(dep[c - 1 :: c], 0.1 * c + np.arange(1, n // c + 1), atol=1e-12)


def _memory_limited_fcfs(arr, work, size, c, mem_limit, read):
    """Entry and departure times by the definition: a customer enters when the customers in
    memory (entered, not departed) plus itself fit, or memory is empty; the single reader then
    works ``read`` on it after the one before; then it takes the earliest free server.
    Quadratic, for small inputs."""
    free, entered, entry, dep = np.zeros(c), [], [], []
    last_entry = last_read = 0.0
    for a, w, s, r in zip(arr, work, size, read):
        t = max(a, last_entry)
        while True:
            held = [(d, m) for d, m in entered if d > t]
            if not held or sum(m for _, m in held) + s <= mem_limit:
                break
            t = min(d for d, _ in held)
        last_read = max(t, last_read) + r
        k = int(np.argmin(free))
        free[k] = max(free[k], last_read) + w
        entered.append((free[k], s))
        last_entry = t
        entry.append(t)
        dep.append(free[k])
    return entry, dep


def _arrivals(rng, n: int, servers: int, burst_every: int) -> np.ndarray:
    """Poisson arrivals keeping ``servers`` unit-work servers 60% busy, and every ``burst_every``
    customers a burst of 300 at once."""
    arr = np.cumsum(rng.exponential(1.0 / servers / 0.6, n))
    for b in range(burst_every, n - 300, burst_every):
        arr[b : b + 300] = arr[b]
        arr[b + 300 :] += 300.0 / servers
    return arr


@pytest.mark.parametrize(
    ("servers", "burst_every", "mem_limit", "read_s"),
    [
        (3, 10**9, 3.0, 0.0),  # the memory binds often, the rings never fill
        (3, 10**9, 10.0, 0.0),
        # between bursts each server's ring (64 places) fills long before a memory of about 200
        # customers does; the bursts of 300 fill it
        (2, 1000, 200.0, 0.0),
        # a reader (Q Apply's browser) working on each customer in memory, 60% busy
        (3, 1000, 10.0, 0.2),
        (2, 1000, 200.0, 0.3),
    ],
)
def test_memory_limited_multi_server_follows_its_definition(servers, burst_every, mem_limit, read_s):
    rng = np.random.default_rng(5)
    n = 4000
    arr = _arrivals(rng, n, servers, burst_every)
    work = rng.exponential(1.0, n)
    size = rng.uniform(0.5, 1.5, n)
    size[100] = 2 * mem_limit  # a monster waits for an empty memory
    read = rng.exponential(read_s, n) if read_s else np.zeros(n)
    want_entry, want_dep = _memory_limited_fcfs(arr, work, size, servers, mem_limit, read)
    st = MultiServerState(servers)
    got = [
        multi_server_memory(
            arr[i : i + 700], work[i : i + 700], size[i : i + 700], st, mem_limit, read=read[i : i + 700]
        )
        for i in range(0, n, 700)
    ]
    np.testing.assert_allclose(np.concatenate([g[0] for g in got]), want_entry, rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.concatenate([g[2] for g in got]), want_dep, rtol=0, atol=1e-9)


def test_warp_maps_stops_and_slowdowns_like_the_scalar_stepper():
    w = Warp([0.0, 10.0, 20.0, 30.0, 40.0], [1.0, 0.0, 0.5, 1.0, 1.0])
    assert w.forward([5, 15, 25, 35]).tolist() == [5.0, 10.0, 12.5, 20.0]
    assert w.inverse_left([10.0])[0] == 10.0  # work 10 is done at the stop's start
    assert w.inverse_right([10.0])[0] == 20.0  # work waiting at 10 resumes at the stop's end
    assert w.next_running(12.0) == 20.0 and w.next_running(25.0) == 25.0
    rng = np.random.default_rng(1)
    for t, work in zip(rng.uniform(0, 45, 200), rng.uniform(0, 20, 200)):
        t = w.next_running(t)
        assert w.advance(t, work) == pytest.approx(w.inverse_left(w.forward(t) + work), abs=1e-9)


def test_scipy_linalg_is_refused_only_to_the_thread_importing_numba():
    from engine.sim.jit import RefuseScipyLinalg

    refuse = RefuseScipyLinalg()
    with pytest.raises(ModuleNotFoundError):
        refuse.find_spec("scipy.linalg")
    assert refuse.find_spec("scipy.optimize") is None
    import threading

    seen = []
    t = threading.Thread(target=lambda: seen.append(refuse.find_spec("scipy.linalg")))
    t.start()
    t.join()
    assert seen == [None]
