"""Queueing kernels: FIFO single servers, channel batches and a multi-server with memory (compiled).

Single server, first come first served
    Departures obey the max-plus recursion ``D[n] = max(A[n], D[n-1]) + S[n]`` (Lindley's
    recursion written for departures), compiled with numba as a plain loop (one pass, and the
    same arithmetic as the reference loop whatever the chunk boundaries). Without numba, its
    closed form with ``C`` the cumulative service, ``D[n] = C[n] + max(D0, max_{k<=n} (A[k] -
    C[k-1]))``: one ``cumsum`` and one ``maximum.accumulate`` (vectorised with numpy, equal to
    the loop but for rounding). Waits are ``D - S - A``.

Multi-server with memory back-pressure (:func:`multi_server_memory`)
    ``c`` servers take customers in arrival order (Kiefer-Wolfowitz); a customer enters memory
    (is read off the queue) as soon as it has arrived and the bytes held by customers entered
    but not yet departed plus its own fit in ``mem_limit``; one bigger than ``mem_limit`` waits
    until memory is empty and holds it alone (the customers in memory are kept per server, whose
    departures only grow, so the next departure is the earliest of ``c`` ring heads). A single
    reader then works on the customers in memory one after another (Q Apply's browser parsing
    and analysing the messages it got) before a server may take them. A
    *dependent* customer starts no earlier than the
    departure of the one before it (Q Apply's dependency analysis: a transaction waits for the
    one it depends on to commit) without holding up the ones behind it: it takes the server
    that became free last before it is ready, leaving the ones free earlier to the others
    (else the first server to become free). This recursion is inherently sequential: it is
    compiled with numba when numba is installed (``cache=True``), else runs as plain Python
    (same code, same results, slower).

Channel batches (:func:`batch_channel`)
    One server taking messages FIFO into batches of at most BATCHSZ MQ messages: a batch ends
    when it is full or when the next message is not on the queue by the time the last one is
    sent (BATCHINT 0); ending it takes ``sync_s`` (syncpoint flows and log forces) and its
    messages reach the other side together. Sequential like the multi-server, compiled the same
    way.

All times are floats in seconds of *work time* (see :class:`engine.sim.events.Warp`).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from engine.sim.jit import compiled_or_plain, jit_kernels
from engine.sim.logread import LogReadState, log_read_passes


def _fifo_py(a, s, last, out):
    """Plain-Python body of :func:`fifo_departures` (numba compiles the same source)."""
    d = last
    for i in range(a.shape[0]):
        d = max(a[i], d) + s[i]
        out[i] = d


def fifo_departures(arrivals, service, last_departure: float = -np.inf, vectorised: bool = False):
    """Departure times of a FIFO single server.

    Parameters
    ----------
    arrivals : array of float
        Non-decreasing arrival times, s.
    service : array of float
        Service times, s (>= 0).
    last_departure : float
        Departure time of the customer before the first one (carried from an earlier chunk).
    vectorised : bool
        Use the numpy closed form even when numba is installed.

    Returns
    -------
    numpy.ndarray
        Departure times, s.
    """
    a = np.ascontiguousarray(arrivals, dtype=float)
    s = np.ascontiguousarray(service, dtype=float)
    if a.size == 0:
        return a.copy()
    fn = None if vectorised else _fifo_kernel()
    if fn is not None:
        out = np.empty(a.shape[0])
        fn(a, s, float(last_departure), out)
        return out
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


def _multi_server_memory_py(
    arr,
    work,
    size,
    c,
    mem_limit,
    free,
    ring_t,
    ring_s,
    ring_head,
    ring_n,
    mem_used,
    last_entry,
    entry,
    start,
    dep,
    block_from,
    extra,
    queue_cap,
    ent_buf,
    cum_buf,
    head,
    n_tail,
    slow,
    read,
    dependent,
    last_dep,
    parsed,
    last_parsed,
):
    """Plain-Python body of :func:`multi_server_memory` (numba compiles the same source).

    The customers in memory are kept per server, in order (a server's departures only grow):
    ``ring_t[k]`` / ``ring_s[k]`` hold the departures and sizes of server ``k``'s customers in
    memory, a ring of ``ring_n[k]`` entries from ``ring_head[k]``; the earliest departure is the
    earliest of the ``c`` heads. Departed customers are taken out only when it matters (the
    next customer would not fit, or a ring is full), so a memory that never fills costs
    nothing per customer; the entry times are those of taking them out at every arrival. ``ent_buf[head:n_tail]`` and ``cum_buf`` hold the entry times
    and cumulative MQ message counts of earlier customers still waiting to enter when the last
    one arrived; this call's customer ``i`` is at ``n_tail + i``. Returns the carried scalars,
    the new ``head`` and the (possibly grown) rings.
    """
    n = arr.shape[0]
    p = head
    for i in range(n):
        t0 = arr[i]
        t0 = max(t0, last_entry)
        g = n_tail + i
        work_in = read[i]  # the reader's own work on it, once it holds it
        if queue_cap < math.inf:
            # messages ahead still on the queue: arrived earlier, not yet entered
            while p < g and ent_buf[p] < arr[i]:
                p += 1
            if cum_buf[g] - cum_buf[p] >= queue_cap:
                work_in += extra[i]
                slow[i] = True
        want = t0
        # ``mem_used`` counts customers not yet taken out of the rings, some of which may have
        # departed: when even that leaves room, the customer fits. Otherwise the customers that
        # departed by t0 free their memory, earliest first; then it waits for departures until
        # it fits (a monster waits for an empty memory).
        while mem_used + size[i] > mem_limit:
            j = _ring_first(ring_t, ring_head, ring_n, c)
            if j < 0:
                mem_used = 0.0
                break
            d = ring_t[j, ring_head[j]]
            if d > t0:
                if mem_used + size[i] <= mem_limit:
                    break
                t0 = d
            mem_used -= ring_s[j, ring_head[j]]
            ring_head[j] += 1
            if ring_head[j] == ring_t.shape[1]:
                ring_head[j] = 0
            ring_n[j] -= 1
        entry[i] = t0  # off the queue into memory (the browser's MQGET)
        if queue_cap < math.inf:
            ent_buf[g] = t0
        block_from[i] = want  # when it would have entered with memory to spare
        last_entry = t0
        ready = max(t0, last_parsed) + work_in  # the reader's work, one customer after another
        parsed[i] = ready
        last_parsed = ready
        waits = dependent[i] and last_dep > ready
        if waits:
            ready = last_dep  # waits for the one before it to commit
        k = _agent_for(free, c, ready, waits)
        s0 = free[k]
        s0 = max(s0, ready)
        start[i] = s0
        d = s0 + work[i]
        dep[i] = d
        free[k] = d
        last_dep = d
        if mem_limit < math.inf:
            if ring_n[k] == ring_t.shape[1]:  # server k's customers that departed by t0 leave first
                mem_used -= _ring_pop_departed(ring_t, ring_s, ring_head, ring_n, k, t0)
            if ring_n[k] == ring_t.shape[1]:
                ring_t, ring_s = _ring_grow(ring_t, ring_s, ring_head, ring_n, c)
            pos = ring_head[k] + ring_n[k]
            if pos >= ring_t.shape[1]:
                pos -= ring_t.shape[1]
            ring_t[k, pos] = d
            ring_s[k, pos] = size[i]
            ring_n[k] += 1
            mem_used += size[i]
    return mem_used, last_entry, p, last_dep, last_parsed, ring_t, ring_s


def _agent_for(free, c, ready, waited):
    """The server a customer ready at ``ready`` goes to: the earliest free one; after a wait for a
    dependency (``waited``), the one free latest by then (the ones free earlier go to those behind
    it), else the earliest free."""
    k = -1
    if waited:
        for j in range(c):
            if free[j] <= ready and (k < 0 or free[j] > free[k]):
                k = j
    if k < 0:
        k = 0
        for j in range(1, c):
            if free[j] < free[k]:
                k = j
    return k


def _ring_first(ring_t, ring_head, ring_n, c):
    """Server whose oldest customer in memory departs first (the first such server on ties); -1 if none."""
    k = -1
    for j in range(c):
        if ring_n[j] > 0 and (k < 0 or ring_t[j, ring_head[j]] < ring_t[k, ring_head[k]]):
            k = j
    return k


def _ring_pop_departed(ring_t, ring_s, ring_head, ring_n, k, t):
    """Take server ``k``'s customers that departed by ``t`` out of its ring; returns the memory they held."""
    freed = 0.0
    cap = ring_t.shape[1]
    while ring_n[k] > 0 and ring_t[k, ring_head[k]] <= t:
        freed += ring_s[k, ring_head[k]]
        ring_head[k] += 1
        if ring_head[k] == cap:
            ring_head[k] = 0
        ring_n[k] -= 1
    return freed


def _ring_grow(ring_t, ring_s, ring_head, ring_n, c):
    """The rings at twice their length, each server's entries moved to the front in order."""
    cap = ring_t.shape[1]
    new_t = np.empty((c, 2 * cap))
    new_s = np.empty((c, 2 * cap))
    for j in range(c):
        for q in range(ring_n[j]):
            pos = ring_head[j] + q
            if pos >= cap:
                pos -= cap
            new_t[j, q] = ring_t[j, pos]
            new_s[j, q] = ring_s[j, pos]
        ring_head[j] = 0
    return new_t, new_s


def _batch_channel_py(arr, work, count, batch_msgs, sync_s, free_s, state, start, end, close):
    """Plain-Python body of :func:`batch_channel` (numba compiles the same source)."""
    t_free = state[0]
    open_n = state[1]
    open_end = state[2]
    first = -1
    prev_close = math.nan
    for i in range(arr.shape[0]):
        if open_n > 0.0 and (arr[i] > open_end or open_n + count[i] > batch_msgs):
            c = open_end + sync_s
            if first < 0:  # the batch began in an earlier chunk
                prev_close = c
                first = 0
            for j in range(first, i):
                close[j] = c
            t_free = open_end + free_s
            open_n = 0.0
        if open_n == 0.0:
            first = i
            s = max(t_free, arr[i])
        else:
            s = open_end
        start[i] = s
        open_end = s + work[i]
        end[i] = open_end
        open_n += count[i]
    state[0] = t_free
    state[1] = open_n
    state[2] = open_end
    return first, prev_close


def _commit_times_py(put, txns, maxtrans, interval_s, last_commit, final, out):
    """Plain-Python body of :func:`commit_times` (numba compiles the same source).

    Returns the number of messages whose commit is known and the last commit before them.
    """
    n = put.shape[0]
    start = 0  # first message not yet committed
    count = 0.0  # source transactions put since the last commit
    deadline = math.inf
    for i in range(n):
        if count > 0.0 and put[i] > deadline:  # COMMIT_INTERVAL ran out before this put
            for j in range(start, i):
                out[j] = deadline
            last_commit = deadline
            start = i
            count = 0.0
        if count == 0.0:  # the timer's next tick after this put (it ticks every COMMIT_INTERVAL)
            ticks = math.ceil((put[i] - last_commit) / interval_s)
            deadline = last_commit + max(ticks, 1) * interval_s
        count += txns[i]
        if count >= maxtrans * (1.0 - 1e-12):  # the transaction limit: commit right after this put
            for j in range(start, i + 1):
                out[j] = put[i]
            last_commit = put[i]
            start = i + 1
            count = 0.0
    if final and start < n:
        for j in range(start, n):
            out[j] = deadline
        start = n
    return start, last_commit


def commit_times(
    put, txns, maxtrans: float, interval_s: float, last_commit_s: float, final: bool, python=False
):
    """When Q Capture's MQ commit makes each message visible (IBM's rule), s.

    Q Capture commits what it has put every COMMIT_INTERVAL (a timer from the last commit), or
    sooner, right after the put that brings the transactions since the last commit to
    ``maxtrans`` (the transaction limit). A message put after the last commit of a chunk may
    still be committed by the next chunk's puts, so unless ``final`` only the messages whose
    commit is known get a time.

    Parameters
    ----------
    put : array of float
        MQPUT completion of each message (non-decreasing), s.
    txns : array of float
        Source transactions in each message.
    maxtrans : float
        Transactions per MQ commit (``inf``: none).
    interval_s : float
        COMMIT_INTERVAL, s.
    last_commit_s : float
        Time of the commit before the first message, s (0 at the start of a run).
    final : bool
        No puts follow: the last messages are committed at the timer's next tick.

    Returns
    -------
    visible : numpy.ndarray
        Commit time of each message (NaN for those not known yet).
    known : int
        Messages ``[:known]`` have their commit time; ``[known:]`` wait for the next puts.
    last_commit_s : float
        The last commit before message ``known``.
    """
    put = np.ascontiguousarray(put, dtype=float)
    txns = np.ascontiguousarray(txns, dtype=float)
    out = np.full(put.shape[0], np.nan)
    fn = _commit_times_py if python else compiled_or_plain(_commit_times_py)
    known, last = fn(put, txns, float(maxtrans), float(interval_s), float(last_commit_s), bool(final), out)
    return out, int(known), float(last)


_compiled = None
_compiled_fifo = None


def _fifo_kernel():
    """The compiled FIFO loop, or None without numba (:func:`fifo_departures` then uses its closed form)."""
    global _compiled_fifo
    if _compiled_fifo is None:
        compiled = jit_kernels(_fifo_py)
        _compiled_fifo = compiled[0] if compiled else False
    return _compiled_fifo or None


class BatchState:
    """State a :func:`batch_channel` run carries to the next chunk (work time, s).

    Attributes
    ----------
    values : numpy.ndarray
        ``[time the channel is free after the last closed batch, MQ messages in the open batch,
        time the open batch's last message was sent]``.
    """

    def __init__(self):
        self.values = np.array([-np.inf, 0.0, -np.inf])

    def copy(self) -> BatchState:
        out = BatchState()
        out.values = self.values.copy()
        return out

    @property
    def open_msgs(self) -> float:
        return float(self.values[1])

    @property
    def open_end(self) -> float:
        return float(self.values[2])


def batch_channel(
    arr,
    work,
    count,
    state: BatchState,
    batch_msgs: float,
    sync_s: float,
    free_s: float,
    final: bool = False,
    python: bool = False,
):
    """A channel sending FIFO messages in batches (see the module docstring).

    Parameters
    ----------
    arr : array of float
        Times messages are on the transmit queue (non-decreasing, s of work time).
    work : array of float
        Time to get and send each message, s.
    count : array of float
        MQ messages each customer is (a split transaction is several), counted against BATCHSZ.
    state : BatchState
        Carried from the previous chunk; updated in place.
    batch_msgs : float
        BATCHSZ.
    sync_s : float
        Time from the last message of a batch being sent until its messages are committed on
        the other side, s.
    free_s : float
        Time from the last message of a batch being sent until the channel starts the next
        batch (``sync_s`` plus the confirmation's return), s.
    final : bool
        No more messages follow: the open batch ends.
    python : bool
        Run the plain-Python body.

    Returns
    -------
    start, end, close : numpy.ndarray
        Each message's start and end of sending and the time its batch ended (NaN for messages
        of the batch still open at the end of a non-final chunk).
    pending_from : int
        Index of the first message of the still open batch (``len(arr)`` when none is open).
    prev_close : float or None
        When the batch open at the start of this call ended, if it did (for messages carried
        from the previous chunk).
    """
    arr = np.ascontiguousarray(arr, dtype=float)
    work = np.ascontiguousarray(work, dtype=float)
    count = np.ascontiguousarray(count, dtype=float)
    n = arr.shape[0]
    start, end = np.empty(n), np.empty(n)
    close = np.full(n, np.nan)
    open_before = state.open_msgs > 0
    fn = _batch_channel_py if python else compiled_or_plain(_batch_channel_py)
    first, prev_close = fn(
        arr, work, count, float(batch_msgs), float(sync_s), float(free_s), state.values, start, end, close
    )
    prev = None if math.isnan(prev_close) else float(prev_close)
    pending_from = n
    if state.open_msgs > 0:
        pending_from = max(first, 0)
        if final:
            c = state.open_end + sync_s
            close[pending_from:] = c
            if first < 0 and open_before:
                prev = c
            state.values[0] = state.open_end + free_s
            state.values[1] = 0.0
            pending_from = n
    return start, end, close, pending_from, prev


_warm_up_thread = None


def _load_compiled_kernels() -> None:
    """Call each compiled kernel once on tiny inputs of the real types (loads numba's cache)."""
    z = np.zeros(1)
    fifo_departures(z, z)
    commit_times(z, np.ones(1), 1.0, 1.0, 0.0, True)
    batch_channel(z, z, np.ones(1), BatchState(), 1.0, 0.0, 0.0, True)
    multi_server_memory(z, z, z, MultiServerState(1), 1.0)
    log_read_passes(z, z, 1.0, LogReadState(1.0))


def warm_up_in_background() -> None:
    """Start loading the compiled kernels in a daemon thread (once per process).

    Loading numba and its cached machine code takes about half a second; started when a
    simulation is asked for, it overlaps with the steady-state prediction, the pipeline's
    configuration and the first chunk's workload. The first real call waits for it (numba's
    compiler lock); a failure here is left to that call to report.
    """
    global _warm_up_thread
    if _warm_up_thread is None:
        _warm_up_thread = threading.Thread(target=_load_quietly, name="qrtune-sim-kernels", daemon=True)
        _warm_up_thread.start()


def _load_quietly() -> None:
    try:
        _load_compiled_kernels()
    except Exception:  # noqa: BLE001 - the first real call reports what went wrong
        pass


def _kernel():
    """The compiled kernel if numba is available, else the plain-Python one."""
    global _compiled, _agent_for, _ring_first, _ring_pop_departed, _ring_grow
    if _compiled is None:
        compiled = jit_kernels(
            _agent_for, _ring_first, _ring_pop_departed, _ring_grow, _multi_server_memory_py
        )
        if compiled is None:
            _compiled = _multi_server_memory_py
        else:  # the kernel calls the compiled helpers (module globals, resolved when it compiles)
            _agent_for, _ring_first, _ring_pop_departed, _ring_grow, _compiled = compiled
    return _compiled


class QueueBuffer:
    """The messages still on a queue: a time each (non-decreasing) and the MQ messages before each.

    ``time[head:used]`` and ``cum[head:used + 1]`` (``cum[k]``: MQ messages before buffer index
    ``k``, counted from an arbitrary origin) are valid; the messages before ``head`` have left.
    New messages are appended at ``used`` (:meth:`extend`); the buffers grow by doubling and
    move the live part to the front when they do, so a deep queue costs per message, not per
    chunk.
    """

    def __init__(self):
        self.time = np.zeros(0)
        self.cum = np.zeros(1)
        self.head = 0
        self.used = 0

    def extend(self, count) -> int:
        """Append messages of ``count`` MQ messages each (their times to be written by the caller);
        returns the buffer index of the first."""
        count = np.asarray(count, dtype=float)
        n = count.shape[0]
        head, used = self.head, self.used
        if used + n > len(self.time):
            live = used - head
            cap = max(1024, 2 * (live + n))  # at least half of it free after the move: amortised O(1)
            time, cum = np.empty(cap), np.empty(cap + 1)
            time[:live] = self.time[head:used]
            cum[: live + 1] = self.cum[head : used + 1] - self.cum[head]
            self.time, self.cum, self.head, self.used = time, cum, 0, live
            used = live
        np.cumsum(count, out=self.cum[used + 1 : used + n + 1])
        self.cum[used + 1 : used + n + 1] += self.cum[used]
        self.used = used + n
        return used


class MultiServerState:
    """State a :func:`multi_server_memory` run carries to the next chunk.

    Parameters
    ----------
    servers : int
        Number of parallel servers (Q Apply agents), >= 1.

    Attributes
    ----------
    queue : QueueBuffer
        The queue-depth rule's customers still waiting to enter when the last one arrived
        (their entry times).
    last_dep : float
        Departure of the last customer (for a dependent one after it).
    last_parsed : float
        When the single reader finished its work on the last customer.
    """

    def __init__(self, servers: int):
        if servers < 1:
            raise ValueError("servers must be >= 1")
        self.free = np.zeros(servers)
        self.ring_t = np.zeros((servers, 64))
        self.ring_s = np.zeros((servers, 64))
        self.ring_head = np.zeros(servers, dtype=np.int64)
        self.ring_n = np.zeros(servers, dtype=np.int64)
        self.mem_used = 0.0
        self.last_entry = 0.0
        self.last_parsed = 0.0
        self.last_dep = -np.inf
        self.queue = QueueBuffer()

    @property
    def servers(self) -> int:
        return len(self.free)


def multi_server_memory(
    arr,
    work,
    size,
    state: MultiServerState,
    mem_limit: float = math.inf,
    python: bool = False,
    count=None,
    extra=None,
    queue_cap: float = math.inf,
    read=None,
    dependent=None,
):
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
        (weighted by ``count``, e.g. MQ messages) ``queue_cap`` or more is slowed: the reader
        spends ``extra`` s more on it (a message read back from the page set). Default: never.
    read : array of float, optional
        Time the single reader between memory and the servers (Q Apply's browser) spends on
        each customer once it is in memory, s: customers enter memory as soon as they arrive
        and fit (the browser's MQGET, its look-ahead within MEMORY_LIMIT), the reader works on
        them one after another, and a customer is ready for a server when the reader is done
        with it. Default 0.
    dependent : array of bool, optional
        Customers that start no earlier than the departure of the customer before them, on
        the server that became free last by then (else the first to become free); the ones
        behind them are not held up. Default: none.

    Returns
    -------
    entry, start, dep, block_from, slow, parsed : numpy.ndarray
        Time each customer entered memory, started service and departed; the time it would
        have entered had memory not been full (``entry - block_from`` is time blocked);
        whether it was slowed by the queue-depth rule; and when the reader was done with it.
    """
    arr = np.ascontiguousarray(arr, dtype=float)
    work = np.ascontiguousarray(work, dtype=float)
    size = np.ascontiguousarray(size, dtype=float)
    n = arr.shape[0]
    entry, start, dep, block = (np.empty(n) for _ in range(4))
    extra = np.zeros(n) if extra is None else np.ascontiguousarray(extra, dtype=float)
    read = np.zeros(n) if read is None else np.ascontiguousarray(read, dtype=float)
    dependent = (
        np.zeros(n, dtype=np.bool_) if dependent is None else np.ascontiguousarray(dependent, dtype=np.bool_)
    )
    q = state.queue
    queued = queue_cap < math.inf and n > 0
    first = q.extend(np.ones(n) if count is None else count) if queued else q.used
    slow = np.zeros(n, dtype=np.bool_)
    parsed = np.empty(n)
    fn = _multi_server_memory_py if python else _kernel()
    mem_used, last_entry, head, last_dep, last_parsed, state.ring_t, state.ring_s = fn(
        arr,
        work,
        size,
        state.servers,
        float(mem_limit),
        state.free,
        state.ring_t,
        state.ring_s,
        state.ring_head,
        state.ring_n,
        float(state.mem_used),
        float(state.last_entry),
        entry,
        start,
        dep,
        block,
        extra,
        float(queue_cap),
        q.time,
        q.cum,
        q.head,
        first,
        slow,
        read,
        dependent,
        float(state.last_dep),
        parsed,
        float(state.last_parsed),
    )
    if queued:
        q.head = int(head)
    state.mem_used = mem_used
    state.last_entry = last_entry
    state.last_dep = last_dep
    state.last_parsed = last_parsed
    return entry, start, dep, block, slow, parsed


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
