"""Queueing kernels: vectorised FIFO single servers and a compiled multi-server with memory.

Single server, first come first served (vectorised with numpy)
    Departures obey the max-plus recursion ``D[n] = max(A[n], D[n-1]) + S[n]`` (Lindley's
    recursion written for departures). With ``C`` the cumulative service, its closed form is
    ``D[n] = C[n] + max(D0, max_{k<=n} (A[k] - C[k-1]))``: one ``cumsum`` and one
    ``maximum.accumulate``, no Python loop. Waits are ``D - S - A``.

Multi-server with memory back-pressure (:func:`multi_server_memory`)
    ``c`` servers take customers in arrival order (Kiefer-Wolfowitz); a customer may only
    enter (be read into memory) when the bytes held by customers entered but not yet
    departed plus its own fit in ``mem_limit``; one bigger than ``mem_limit`` waits until
    memory is empty and holds it alone. This recursion is inherently sequential: it is
    compiled with numba when numba is installed (``cache=True``), else runs as plain Python
    (same code, same results, slower).

All times are floats in seconds of *work time* (see :class:`engine.sim.events.Warp`).
"""

from __future__ import annotations

import math

import numpy as np


def fifo_departures(arrivals, service, last_departure: float = -np.inf):
    """Departure times of a FIFO single server (vectorised max-plus scan).

    Parameters
    ----------
    arrivals : array of float
        Non-decreasing arrival times, s.
    service : array of float
        Service times, s (>= 0).
    last_departure : float
        Departure time of the customer before the first one (carried from an earlier chunk).

    Returns
    -------
    numpy.ndarray
        Departure times, s.
    """
    a = np.asarray(arrivals, dtype=float)
    s = np.asarray(service, dtype=float)
    if a.size == 0:
        return a.copy()
    c = np.cumsum(s)
    m = np.maximum.accumulate(a - (c - s))
    if last_departure > -np.inf:
        np.maximum(m, last_departure, out=m)
    return c + m


def lindley_waits(interarrival, service):
    """Waiting times in queue of a FIFO single server starting empty.

    ``W[0] = 0``, ``W[n] = max(0, W[n-1] + S[n-1] - T[n])`` where ``T[n]`` is the time between
    arrivals ``n-1`` and ``n`` (``interarrival[0]`` is the first arrival's time).
    """
    a = np.cumsum(np.asarray(interarrival, dtype=float))
    s = np.asarray(service, dtype=float)
    return fifo_departures(a, s) - s - a


def _multi_server_memory_py(arr, work, size, c, mem_limit, free, heap_t, heap_s, n_heap, mem_used, last_entry,
                            entry, start, dep, block_from, extra, queue_cap, ent_all, cum_all, n_tail, slow):
    """Plain-Python body of :func:`multi_server_memory` (numba compiles the same source)."""
    n = arr.shape[0]
    p = 0
    for i in range(n):
        t0 = arr[i]
        t0 = max(t0, last_entry)
        g = n_tail + i
        if queue_cap < math.inf:
            # messages ahead still on the queue: arrived earlier, not yet entered
            while p < g and ent_all[p] < arr[i]:
                p += 1
            if cum_all[g] - cum_all[p] >= queue_cap:
                t0 += extra[i]
                slow[i] = True
        want = t0
        # customers that departed by t0 free their memory
        while n_heap > 0 and heap_t[0] <= t0:
            mem_used -= heap_s[0]
            n_heap -= 1
            if n_heap > 0:
                heap_t[0] = heap_t[n_heap]
                heap_s[0] = heap_s[n_heap]
                _sift_down(heap_t, heap_s, n_heap, 0)
        # wait for departures until this customer fits (a monster waits for an empty memory)
        while n_heap > 0 and mem_used + size[i] > mem_limit:
            t0 = max(t0, heap_t[0])
            mem_used -= heap_s[0]
            n_heap -= 1
            if n_heap > 0:
                heap_t[0] = heap_t[n_heap]
                heap_s[0] = heap_s[n_heap]
                _sift_down(heap_t, heap_s, n_heap, 0)
        if n_heap == 0:
            mem_used = 0.0
        entry[i] = t0
        ent_all[g] = t0
        block_from[i] = want
        last_entry = t0
        # earliest free server
        k = 0
        for j in range(1, c):
            if free[j] < free[k]:
                k = j
        s0 = free[k]
        s0 = max(s0, t0)
        start[i] = s0
        d = s0 + work[i]
        dep[i] = d
        free[k] = d
        if mem_limit < math.inf:
            heap_t[n_heap] = d
            heap_s[n_heap] = size[i]
            _sift_up(heap_t, heap_s, n_heap)
            n_heap += 1
            mem_used += size[i]
    return n_heap, mem_used, last_entry


def _sift_up(ht, hs, i):
    while i > 0:
        p = (i - 1) // 2
        if ht[p] <= ht[i]:
            break
        ht[p], ht[i] = ht[i], ht[p]
        hs[p], hs[i] = hs[i], hs[p]
        i = p


def _sift_down(ht, hs, n, i):
    while True:
        left = 2 * i + 1
        if left >= n:
            break
        m = left
        if left + 1 < n and ht[left + 1] < ht[left]:
            m = left + 1
        if ht[i] <= ht[m]:
            break
        ht[m], ht[i] = ht[i], ht[m]
        hs[m], hs[i] = hs[i], hs[m]
        i = m


_compiled = None


def _kernel():
    """The compiled kernel if numba is available, else the plain-Python one."""
    global _compiled, _sift_up, _sift_down
    if _compiled is None:
        try:
            import numba
        except ImportError:  # pragma: no cover - numba is a declared dependency
            _compiled = _multi_server_memory_py
        else:
            try:  # cache the machine code next to the module; a read-only install compiles per process
                jit = numba.njit(cache=True)
                sift_up, sift_down = jit(_sift_up), jit(_sift_down)
            except RuntimeError:
                jit = numba.njit(cache=False)
                sift_up, sift_down = jit(_sift_up), jit(_sift_down)
            _sift_up, _sift_down = sift_up, sift_down
            _compiled = jit(_multi_server_memory_py)
    return _compiled


class MultiServerState:
    """State a :func:`multi_server_memory` run carries to the next chunk.

    Parameters
    ----------
    servers : int
        Number of parallel servers (Q Apply agents), >= 1.
    """

    def __init__(self, servers: int):
        if servers < 1:
            raise ValueError("servers must be >= 1")
        self.free = np.zeros(servers)
        self.heap_t = np.zeros(0)
        self.heap_s = np.zeros(0)
        self.mem_used = 0.0
        self.last_entry = 0.0
        self.tail_entry = np.zeros(0)
        self.tail_count = np.zeros(0)

    @property
    def servers(self) -> int:
        return len(self.free)


def multi_server_memory(arr, work, size, state: MultiServerState, mem_limit: float = math.inf, python: bool = False,
                        count=None, extra=None, queue_cap: float = math.inf):
    """FCFS ``c``-server queue whose customers must fit in a memory before entering.

    Parameters
    ----------
    arr : array of float
        Non-decreasing arrival times (s, work time).
    work : array of float
        Service times (s).
    size : array of float
        Memory each customer holds from entry to departure (bytes).
    state : MultiServerState
        Carried state; updated in place.
    mem_limit : float
        Memory limit (bytes); ``inf`` for none.
    python : bool
        Run the plain-Python body even when numba is installed (the reference).
    count, extra, queue_cap : array, array, float
        A customer arriving when the customers still waiting to enter ahead of it number
        (weighted by ``count``, e.g. MQ messages) ``queue_cap`` or more is slowed: its entry takes
        ``extra`` s longer (a message read back from the page set). Default: never.

    Returns
    -------
    entry, start, dep, block_from, slow : numpy.ndarray
        Time each customer entered memory, started service and departed; the time it would
        have entered had memory not been full (``entry - block_from`` is time blocked); and
        whether it was slowed by the queue-depth rule.
    """
    arr = np.ascontiguousarray(arr, dtype=float)
    work = np.ascontiguousarray(work, dtype=float)
    size = np.ascontiguousarray(size, dtype=float)
    n = arr.shape[0]
    n_heap = state.heap_t.shape[0]
    cap = n_heap + (n if mem_limit < math.inf else 0) + 1
    heap_t = np.empty(cap)
    heap_s = np.empty(cap)
    heap_t[:n_heap] = state.heap_t
    heap_s[:n_heap] = state.heap_s
    entry, start, dep, block = (np.empty(n) for _ in range(4))
    count = np.ones(n) if count is None else np.ascontiguousarray(count, dtype=float)
    extra = np.zeros(n) if extra is None else np.ascontiguousarray(extra, dtype=float)
    n_tail = state.tail_entry.shape[0]
    ent_all = np.concatenate((state.tail_entry, np.zeros(n)))
    cum_all = np.concatenate(([0.0], np.cumsum(np.concatenate((state.tail_count, count)))))
    slow = np.zeros(n, dtype=np.bool_)
    fn = _multi_server_memory_py if python else _kernel()
    n_heap, mem_used, last_entry = fn(arr, work, size, state.servers, float(mem_limit), state.free, heap_t, heap_s,
                                      n_heap, float(state.mem_used), float(state.last_entry), entry, start, dep, block,
                                      extra, float(queue_cap), ent_all, cum_all, n_tail, slow)
    if queue_cap < math.inf and n:
        keep = ent_all >= arr[-1]
        state.tail_entry = ent_all[keep]
        state.tail_count = np.concatenate((state.tail_count, count))[keep]
    state.heap_t = heap_t[:n_heap].copy()
    state.heap_s = heap_s[:n_heap].copy()
    state.mem_used = mem_used
    state.last_entry = last_entry
    return entry, start, dep, block, slow


def erlang_c(servers: int, offered_erlangs: float) -> float:
    """Probability an arrival waits in an M/M/c queue (Erlang C).

    Parameters
    ----------
    servers : int
        ``c``.
    offered_erlangs : float
        ``a = lambda / mu``, must be below ``c``.
    """
    c, a = servers, offered_erlangs
    if not 0 <= a < c:
        raise ValueError("offered load must be in [0, servers)")
    term, total = 1.0, 1.0
    for k in range(1, c):
        term *= a / k
        total += term
    last = term * a / c
    last_w = last * c / (c - a)
    return last_w / (total + last_w)


def mmc_mean_wait_s(arrival_per_s: float, service_per_s: float, servers: int) -> float:
    """Theoretical mean wait in queue of M/M/c, s."""
    a = arrival_per_s / service_per_s
    return erlang_c(servers, a) / (servers * service_per_s - arrival_per_s)
