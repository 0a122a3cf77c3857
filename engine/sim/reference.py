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

from engine.sim.config import PipelineConfig
from engine.sim.events import Warp


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


def run_reference(cfg: PipelineConfig, commit, rows, channel_warp: Warp, apply_warp: Warp, u=None, v=None) -> dict:
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
    # 1. capture, transaction by transaction
    cap_dep = []
    last = [-math.inf] * len(cfg.capture_stages)
    for a, r in zip(commit, rows):
        t = math.ceil((a + cfg.log_delay_s) / cfg.sleep_interval_s) * cfg.sleep_interval_s
        nbytes = r * cfg.bytes_per_row
        for k, (_, cap) in enumerate(cfg.capture_stages):
            work = r / cap
            if k == 0 and nbytes > cfg.capture_memory_bytes:
                work *= 2
            t = max(t, last[k]) + work
            last[k] = t
        cap_dep.append(t)
    # 2. messages
    groups: list[list[int]] = []
    prev_window, prev_big, count = None, False, 0
    for i, r in enumerate(rows):
        window = math.floor(cap_dep[i] / cfg.commit_cycle_s)
        big = r * cfg.bytes_per_row > cfg.max_message_bytes
        if not groups or window != prev_window or big or prev_big or count == cfg.trans_batch_sz:
            groups.append([])
            count = 0
        groups[-1].append(i)
        count += 1
        prev_window, prev_big = window, big
    # 3. put and MQ commit: after the put that fills maxtrans_per_commit, else at the cycle's end
    put, m_rows, m_msgs, m_bytes, m_window, m_txns = [], [], [], [], [], []
    last = [-math.inf] * len(cfg.put_stages)
    for g in groups:
        r = sum(rows[i] for i in g)
        t = cap_dep[g[-1]]
        for k, (_, cap) in enumerate(cfg.put_stages):
            t = max(t, last[k]) + r / cap
            last[k] = t
        put.append(t)
        m_rows.append(r)
        m_bytes.append(r * cfg.bytes_per_row)
        m_msgs.append(max(1.0, math.ceil(m_bytes[-1] / cfg.max_message_bytes)))
        m_window.append(math.floor(cap_dep[g[0]] / cfg.commit_cycle_s))
        m_txns.append(len(g))
    visible = [0.0] * len(groups)
    waiting: list[int] = []  # messages put since the last MQ commit
    in_cycle = 0
    for j in range(len(groups)):
        if j == 0 or m_window[j] != m_window[j - 1]:
            in_cycle = 0
        before = in_cycle
        in_cycle += m_txns[j]
        waiting.append(j)
        end_of_cycle = j == len(groups) - 1 or m_window[j + 1] != m_window[j]
        closes = math.isfinite(cfg.maxtrans_per_commit) and \
            math.floor(in_cycle / cfg.maxtrans_per_commit + 1e-9) > math.floor(before / cfg.maxtrans_per_commit + 1e-9)
        if closes or end_of_cycle:
            at = put[j] if closes else math.ceil(put[j] / cfg.commit_cycle_s) * cfg.commit_cycle_s
            for i in waiting:
                visible[i] = at
            waiting = []
    # 4. transmit queue and channel (in batches when BATCHSZ and a time per batch are known)
    use_ps = cfg.pageset_rows_per_s is not None and math.isfinite(cfg.xmitq_buffer_msgs)
    batched = math.isfinite(cfg.channel_batch_msgs)
    ch_rate = min(c for _, c in cfg.channel_stages)
    ch_dep, pageset = [], []
    on_queue: deque = deque()  # (departure, messages) of earlier messages, departures in order
    ahead = 0.0  # messages on the queue ahead of the one being put
    free = -math.inf  # when the channel can start the next batch (or message)
    batch: list[int] = []
    batch_n = 0.0
    batch_end = -math.inf
    delivered = [0.0] * len(groups)

    def end_batch():
        nonlocal free, batch, batch_n
        done = channel_warp.advance(batch_end, cfg.channel_sync_s)
        for i in batch:
            delivered[i] = done
        free = channel_warp.advance(batch_end, cfg.channel_batch_s)
        batch, batch_n = [], 0.0

    for j in range(len(groups)):
        while on_queue and on_queue[0][0] <= put[j]:
            ahead -= on_queue.popleft()[1]
        on_ps = use_ps and ahead >= cfg.xmitq_buffer_msgs
        speed = cfg.pageset_rows_per_s if on_ps else ch_rate
        work = m_rows[j] / speed
        if batched:
            work = max(work - m_msgs[j] * cfg.channel_batch_s / cfg.channel_batch_msgs, 0.1 * work)
            if batch and (float(channel_warp.forward(visible[j])) > float(channel_warp.forward(batch_end))
                          or batch_n + m_msgs[j] > cfg.channel_batch_msgs):
                end_batch()
            begin = channel_warp.next_running(max(visible[j], free)) if not batch else batch_end
            t = channel_warp.advance(begin, work)
            batch.append(j)
            batch_n += m_msgs[j]
            batch_end = t
        else:
            begin = channel_warp.next_running(max(visible[j], free))
            t = channel_warp.advance(begin, work)
            free = t
            delivered[j] = t
        on_queue.append((t, m_msgs[j]))
        ahead += m_msgs[j]
        ch_dep.append(t)
        pageset.append(on_ps)
    if batch:
        end_batch()
    # 5. receive queue and Q Apply: target transactions of COMMIT_COUNT messages, agents, memory, dependencies
    free = [0.0] * cfg.apply_servers
    in_memory: list[tuple[float, float]] = []  # heap of (departure, bytes)
    used = 0.0
    last_entry = 0.0
    last_finish = -math.inf  # commit of the target transaction before this one
    get, done = [0.0] * len(groups), [0.0] * len(groups)
    waiting: deque = deque()  # (entry, messages) of earlier target transactions, entries in order
    behind = 0.0  # messages still on the receive queue when a target transaction arrives
    for first in range(0, len(groups), cfg.commit_count):
        members = range(first, min(first + cfg.commit_count, len(groups)))
        t_rows = sum(m_rows[j] for j in members)
        t_msgs = sum(m_msgs[j] for j in members)
        t_bytes = sum(m_bytes[j] for j in members)
        arrive = delivered[members[-1]] + (cfg.network_latency_s + cfg.mq_staging_s)
        t = apply_warp.next_running(max(arrive, last_entry))
        while waiting and waiting[0][0] < arrive:
            behind -= waiting.popleft()[1]
        if behind >= cfg.recvq_buffer_msgs:  # read back from the page set
            t = apply_warp.advance(t, t_msgs * cfg.recvq_pageset_s_per_msg)
        while in_memory and in_memory[0][0] <= t:
            used -= heapq.heappop(in_memory)[1]
        while in_memory and used + t_bytes > cfg.apply_memory_bytes:
            d, b = heapq.heappop(in_memory)
            used -= b
            t = max(t, apply_warp.next_running(d))
        if not in_memory:
            used = 0.0
        if cfg.browser_rows_per_s:  # the browser reads and parses the messages
            t = apply_warp.advance(t, t_rows / cfg.browser_rows_per_s)
        last_entry = t
        waiting.append((t, t_msgs))
        behind += t_msgs
        opener = groups[first][0]  # the target transaction's first source transaction
        agents = range(cfg.apply_servers)
        ready = t
        if v is not None and v[opener] < cfg.dependent_share and last_finish > t:
            ready = last_finish  # waits for the one before it to commit, on the agent free last by then
            by_then = [x for x in agents if free[x] <= ready]
            k = max(by_then, key=lambda x: free[x]) if by_then else min(agents, key=lambda x: free[x])
        else:
            k = min(agents, key=lambda x: free[x])
        begin = apply_warp.next_running(max(ready, free[k]))
        mult = _multiplier(0.5 if u is None else u[opener], cfg.agent_service_cv2)
        finish = apply_warp.advance(begin, t_rows * cfg.apply_servers / cfg.apply_rows_per_s * mult)
        free[k] = finish
        last_finish = finish
        heapq.heappush(in_memory, (finish, t_bytes))
        used += t_bytes
        for j in members:
            get[j] = t
            done[j] = finish
    out = {"cap_dep": cap_dep, "put": [], "visible": [], "ch_dep": [], "pageset": [], "get": [], "done": []}
    for j, g in enumerate(groups):
        for _ in g:
            out["put"].append(put[j])
            out["visible"].append(visible[j])
            out["ch_dep"].append(ch_dep[j])
            out["pageset"].append(pageset[j])
            out["get"].append(get[j])
            out["done"].append(done[j])
    return out
