"""A plain event loop over transactions: the reference the vectorised pipeline is tested against.

Same rules as :mod:`engine.sim.pipeline`, written one transaction and one message at a time
with scalar arithmetic, Python lists and :mod:`heapq`, and with outages handled by stepping
through the speed segments (:meth:`Warp.next_running`, :meth:`Warp.advance`) instead of the
vectorised time warp. Slow (about a microsecond per operation): for tests on small runs.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from engine.sim.config import PipelineConfig
from engine.sim.events import Warp
from engine.sim.kernels import commit_times

#: A transaction spilled by Q Capture (larger than MEMORY_LIMIT) passes its first stage twice.
SPILL_PASSES = 2
#: Least share of a message's channel time left after taking out its share of a batch's cost.
BATCH_WORK_FLOOR = 0.1


def _multiplier(u: float, cv2: float) -> float:
    """Scalar form of :func:`engine.sim.pipeline.service_multiplier`."""
    if cv2 <= 0.0:
        return 1.0
    if cv2 <= 1.0:
        r = math.sqrt(cv2)
        return (1.0 - r) - r * math.log1p(-u)
    p = 0.5 * (1.0 + math.sqrt((cv2 - 1.0) / (cv2 + 1.0)))
    if u < p:
        return -(0.5 / p) * math.log1p(-min(u / p, 1.0 - 1e-16))
    return -(0.5 / (1.0 - p)) * math.log1p(-min((u - p) / (1.0 - p), 1.0 - 1e-16))


@dataclass
class _Messages:
    """Per message of the reference run: its transactions, rows, bytes, MQ messages, cycle and times (s)."""

    groups: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    nbytes: list = field(default_factory=list)
    msgs: list = field(default_factory=list)
    txns: list = field(default_factory=list)
    put: list = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.groups)


def _read_pass(cfg: PipelineConfig, avail: float, end: float, going_on: bool) -> tuple[bool, float]:
    """Whether a transaction available at ``avail`` is read in the pass going on (the reader,
    busy until ``end``, has not reached the end of the log), else when the next pass wakes, s."""
    if going_on and avail <= end:
        return True, end
    wake = end + cfg.sleep_interval_s
    if avail > wake:
        wake += cfg.sleep_interval_s * math.ceil((avail - wake) / cfg.sleep_interval_s)
    return False, wake


def _capture_times(cfg: PipelineConfig, commit, rows) -> tuple[list[float], list[int]]:
    """Rule 1: the pass that reads each transaction and when it leaves the capture-side stages, s."""
    cap_dep: list[float] = []
    read_pass: list[int] = []
    last = [-math.inf] * len(cfg.capture_stages)
    end, k_pass, wake = -cfg.sleep_interval_s, 0, 0.0
    for a, r in zip(commit, rows):
        avail = a + cfg.log_delay_s
        same, t = _read_pass(cfg, avail, end, k_pass > 0)
        if not same:
            k_pass, wake = k_pass + 1, t
        end = t + r / cfg.reader_rows_per_s
        t = max(wake, avail)
        spilled = r * cfg.bytes_per_row > cfg.capture_memory_bytes
        for k, (_, cap) in enumerate(cfg.capture_stages):
            work = r / cap * (SPILL_PASSES if k == 0 and spilled else 1)
            t = max(t, last[k]) + work
            last[k] = t
        cap_dep.append(t)
        read_pass.append(k_pass)
    return cap_dep, read_pass


def _message_groups(cfg: PipelineConfig, rows, read_pass) -> list[list[int]]:
    """Rule 2: transactions of one pass, TRANS_BATCH_SZ to a message (a too-big one alone)."""
    groups: list[list[int]] = []
    prev_window, prev_big, count = None, False, 0
    for i, r in enumerate(rows):
        window = read_pass[i]
        big = r * cfg.bytes_per_row > cfg.max_message_bytes
        if not groups or window != prev_window or big or prev_big or count == cfg.trans_batch_sz:
            groups.append([])
            count = 0
        groups[-1].append(i)
        count += 1
        prev_window, prev_big = window, big
    return groups


def _put_messages(cfg: PipelineConfig, rows, cap_dep, read_pass, groups) -> _Messages:
    """Rule 2: each message's size and its MQPUT through the message-level stages."""
    m = _Messages(groups=groups)
    last = [-math.inf] * len(cfg.put_stages)
    for g in groups:
        r = sum(rows[i] for i in g)
        t = cap_dep[g[-1]]
        for k, (_, cap) in enumerate(cfg.put_stages):
            t = max(t, last[k]) + r / cap
            last[k] = t
        m.put.append(t)
        m.rows.append(r)
        m.nbytes.append(r * cfg.bytes_per_row)
        m.msgs.append(max(1.0, math.ceil(m.nbytes[-1] / cfg.max_message_bytes)))
        m.txns.append(len(g))
    return m


def _visible_times(cfg: PipelineConfig, m: _Messages) -> list[float]:
    """Rule 3: the MQ commit that makes each message visible (COMMIT_INTERVAL timer or the transaction
    limit), s: the same rule as the pipeline's, one message after the other over the whole run."""
    visible, _, _ = commit_times(
        np.array(m.put),
        np.array(m.txns, dtype=float),
        cfg.maxtrans_per_commit,
        cfg.commit_interval_s,
        0.0,
        True,
        python=True,
    )
    return visible.tolist()


class _ChannelLoop:
    """Rule 4 one message at a time: transmit queue depth, page set, batches, channel stops."""

    def __init__(self, cfg: PipelineConfig, warp: Warp, n: int):
        self.cfg, self.warp = cfg, warp
        self.use_ps = cfg.pageset_rows_per_s is not None and math.isfinite(cfg.xmitq_buffer_msgs)
        self.batched = math.isfinite(cfg.channel_batch_msgs)
        self.rows_per_s = min(c for _, c in cfg.channel_stages)
        self.on_queue: deque = deque()  # (departure, messages) of earlier messages, departures in order
        self.ahead = 0.0  # messages on the queue ahead of the one being put
        self.free = -math.inf  # when the channel can start the next batch (or message)
        self.batch: list[int] = []
        self.batch_msgs = 0.0
        self.batch_end = -math.inf
        self.delivered = [0.0] * n
        self.ch_dep: list[float] = []
        self.pageset: list[bool] = []

    def end_batch(self) -> None:
        """The open batch ends: its messages are delivered after the sync, the channel free after the round trip."""
        done = self.warp.advance(self.batch_end, self.cfg.channel_sync_s)
        for i in self.batch:
            self.delivered[i] = done
        self.free = self.warp.advance(self.batch_end, self.cfg.channel_batch_s)
        self.batch, self.batch_msgs = [], 0.0

    def _send_batched(self, j: int, visible_s: float, msgs: float, work_s: float) -> float:
        cfg, w = self.cfg, self.warp
        work_s = max(work_s - msgs * cfg.channel_batch_s / cfg.channel_batch_msgs, BATCH_WORK_FLOOR * work_s)
        if self.batch and (
            float(w.forward(visible_s)) > float(w.forward(self.batch_end))
            or self.batch_msgs + msgs > cfg.channel_batch_msgs
        ):
            self.end_batch()
        begin = w.next_running(max(visible_s, self.free)) if not self.batch else self.batch_end
        t = w.advance(begin, work_s)
        self.batch.append(j)
        self.batch_msgs += msgs
        self.batch_end = t
        return t

    def send(self, j: int, put_s: float, visible_s: float, rows: float, msgs: float) -> None:
        """Message ``j`` (put at ``put_s``, visible from ``visible_s``) through the channel."""
        while self.on_queue and self.on_queue[0][0] <= put_s:
            self.ahead -= self.on_queue.popleft()[1]
        on_ps = self.use_ps and self.ahead >= self.cfg.xmitq_buffer_msgs
        work_s = rows / (self.cfg.pageset_rows_per_s if on_ps else self.rows_per_s)
        if self.batched:
            t = self._send_batched(j, visible_s, msgs, work_s)
        else:
            t = self.warp.advance(self.warp.next_running(max(visible_s, self.free)), work_s)
            self.free = t
            self.delivered[j] = t
        self.on_queue.append((t, msgs))
        self.ahead += msgs
        self.ch_dep.append(t)
        self.pageset.append(on_ps)


class _ApplyLoop:
    """Rules 5 and 6 one target transaction at a time: receive queue, browser, memory, agents, dependencies."""

    def __init__(self, cfg: PipelineConfig, warp: Warp):
        self.cfg, self.warp = cfg, warp
        self.free = [0.0] * cfg.apply_servers
        self.in_memory: list[tuple[float, float]] = []  # heap of (departure, bytes)
        self.used_bytes = 0.0
        self.last_entry = 0.0
        self.last_read = 0.0  # when the browser was done reading the target transaction before
        self.last_finish = -math.inf  # commit of the target transaction before this one
        self.waiting: deque = deque()  # (entry, messages) of earlier target transactions, entries in order
        self.behind = 0.0  # messages still on the receive queue when a target transaction arrives

    def _enter(self, arrive_s: float, rows: float, msgs: float, nbytes: float) -> tuple[float, float]:
        """When the browser gets a target transaction into memory (its MQGET: as soon as it is on
        the queue and fits in MEMORY_LIMIT) and when it is done reading it (rule 5), s."""
        cfg, w = self.cfg, self.warp
        t = w.next_running(max(arrive_s, self.last_entry))
        while self.waiting and self.waiting[0][0] < arrive_s:
            self.behind -= self.waiting.popleft()[1]
        work_s = rows / cfg.browser_rows_per_s if cfg.browser_rows_per_s else 0.0
        if self.behind >= cfg.recvq_buffer_msgs:  # read back from the page set
            work_s += msgs * cfg.recvq_pageset_s_per_msg
        while self.in_memory and self.in_memory[0][0] <= t:
            self.used_bytes -= heapq.heappop(self.in_memory)[1]
        while self.in_memory and self.used_bytes + nbytes > cfg.apply_memory_bytes:
            d, b = heapq.heappop(self.in_memory)
            self.used_bytes -= b
            t = max(t, w.next_running(d))
        if not self.in_memory:
            self.used_bytes = 0.0
        self.last_entry = t
        self.waiting.append((t, msgs))
        self.behind += msgs
        # the browser reads, parses and analyses the messages it got, one after another
        self.last_read = w.advance(max(t, self.last_read), work_s)
        return t, self.last_read

    def _agent(self, ready_s: float, dependent: bool) -> tuple[int, float]:
        """The agent a target transaction ready at ``ready_s`` takes, and when it may start (rule 6)."""
        agents = range(self.cfg.apply_servers)
        if dependent and self.last_finish > ready_s:
            ready_s = (
                self.last_finish
            )  # waits for the one before it to commit, on the agent free last by then
            by_then = [x for x in agents if self.free[x] <= ready_s]
            k = (
                max(by_then, key=lambda x: self.free[x])
                if by_then
                else min(agents, key=lambda x: self.free[x])
            )
        else:
            k = min(agents, key=lambda x: self.free[x])
        return k, ready_s

    def apply(self, arrive_s: float, rows: float, msgs: float, nbytes: float, u: float, dependent: bool):
        """One target transaction arriving at ``arrive_s``: returns (browser read, target commit), s."""
        cfg, w = self.cfg, self.warp
        entry, read = self._enter(arrive_s, rows, msgs, nbytes)
        k, ready = self._agent(read, dependent)
        begin = w.next_running(max(ready, self.free[k]))
        service_s = rows * cfg.apply_servers / cfg.apply_rows_per_s * _multiplier(u, cfg.agent_service_cv2)
        finish = w.advance(begin, service_s)
        self.free[k] = finish
        self.last_finish = finish
        heapq.heappush(self.in_memory, (finish, nbytes))
        self.used_bytes += nbytes
        return entry, finish


def _apply_times(cfg: PipelineConfig, m: _Messages, delivered, apply_warp: Warp, u, v):
    """Rules 5 and 6 for every message: (browser read, target commit) of each, s."""
    loop = _ApplyLoop(cfg, apply_warp)
    get, done = [0.0] * len(m), [0.0] * len(m)
    for first in range(0, len(m), cfg.commit_count):
        members = range(first, min(first + cfg.commit_count, len(m)))
        arrive = delivered[members[-1]] + cfg.network_latency_s
        opener = m.groups[first][0]  # the target transaction's first source transaction
        dependent = v is not None and v[opener] < cfg.dependent_share
        entry, finish = loop.apply(
            arrive,
            sum(m.rows[j] for j in members),
            sum(m.msgs[j] for j in members),
            sum(m.nbytes[j] for j in members),
            0.5 if u is None else u[opener],
            dependent,
        )
        for j in members:
            get[j] = entry
            done[j] = finish
    return get, done


def run_reference(
    cfg: PipelineConfig, commit, rows, channel_warp: Warp, apply_warp: Warp, u=None, v=None
) -> dict:
    """Times of every transaction through the pipeline.

    Parameters
    ----------
    cfg : PipelineConfig
    commit, rows : sequence
        Source commit times (s, ascending) and rows of each transaction.
    u : sequence, optional
        Each transaction's uniform draw (service variability of the message it opens); 0.5.
    v : sequence, optional
        Each transaction's second uniform draw (the target transaction it opens depends on the
        one before when below ``cfg.dependent_share``); 1 (no dependencies).
    channel_warp, apply_warp : Warp
        Speeds of the channel and of Q Apply over time.

    Returns
    -------
    dict of lists
        Per transaction: ``cap_dep``, ``put``, ``visible``, ``ch_dep``, ``pageset``, ``get``, ``done``.
    """
    cap_dep, read_pass = _capture_times(cfg, commit, rows)
    m = _put_messages(cfg, rows, cap_dep, read_pass, _message_groups(cfg, rows, read_pass))
    visible = _visible_times(cfg, m)
    channel = _ChannelLoop(cfg, channel_warp, len(m))
    for j in range(len(m)):
        channel.send(j, m.put[j], visible[j], m.rows[j], m.msgs[j])
    if channel.batch:
        channel.end_batch()
    get, done = _apply_times(cfg, m, channel.delivered, apply_warp, u, v)
    per_message = {
        "put": m.put,
        "visible": visible,
        "ch_dep": channel.ch_dep,
        "pageset": channel.pageset,
        "get": get,
        "done": done,
    }
    out = {"cap_dep": cap_dep, **{key: [] for key in per_message}}
    for j, g in enumerate(m.groups):
        for key, values in per_message.items():
            out[key] += [values[j]] * len(g)
    return out
