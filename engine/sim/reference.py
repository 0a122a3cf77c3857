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


def run_reference(cfg: PipelineConfig, commit, rows, channel_warp: Warp, apply_warp: Warp) -> dict:
    """Times of every transaction through the pipeline.

    Parameters
    ----------
    cfg : PipelineConfig
    commit, rows : sequence
        Source commit times (s, ascending) and rows of each transaction.
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
    # 3. put and MQ commit
    put, visible, m_rows, m_msgs, m_bytes = [], [], [], [], []
    last = [-math.inf] * len(cfg.put_stages)
    for g in groups:
        r = sum(rows[i] for i in g)
        t = cap_dep[g[-1]]
        for k, (_, cap) in enumerate(cfg.put_stages):
            t = max(t, last[k]) + r / cap
            last[k] = t
        put.append(t)
        visible.append(math.ceil(t / cfg.commit_cycle_s) * cfg.commit_cycle_s)
        m_rows.append(r)
        m_bytes.append(r * cfg.bytes_per_row)
        m_msgs.append(max(1.0, math.ceil(m_bytes[-1] / cfg.max_message_bytes)))
    # 4. transmit queue and channel
    use_ps = cfg.pageset_rows_per_s is not None and math.isfinite(cfg.xmitq_buffer_msgs)
    ch_dep, pageset = [], []
    on_queue: deque = deque()  # (departure, messages) of earlier messages, departures in order
    ahead = 0.0  # messages on the queue ahead of the one being put
    last = [-math.inf] * len(cfg.channel_stages)
    for j in range(len(groups)):
        while on_queue and on_queue[0][0] <= put[j]:
            ahead -= on_queue.popleft()[1]
        on_ps = use_ps and ahead >= cfg.xmitq_buffer_msgs
        t = visible[j]
        for k, (_, cap) in enumerate(cfg.channel_stages):
            speed = cfg.pageset_rows_per_s if (k == 0 and on_ps) else cap
            begin = channel_warp.next_running(max(t, last[k]))
            t = channel_warp.advance(begin, m_rows[j] / speed)
            last[k] = t
            if k == 0:
                on_queue.append((t, m_msgs[j]))
                ahead += m_msgs[j]
        ch_dep.append(t)
        pageset.append(on_ps)
    # 5. receive queue and Q Apply: agents and memory
    free = [0.0] * cfg.agents
    in_memory: list[tuple[float, float]] = []  # heap of (departure, bytes)
    used = 0.0
    last_entry = 0.0
    get, done = [], []
    waiting: deque = deque()  # (entry, messages) of earlier messages, entries in order
    behind = 0.0  # messages still on the receive queue when a message arrives
    for j in range(len(groups)):
        arrive = ch_dep[j] + (cfg.network_latency_s + cfg.mq_staging_s)
        t = apply_warp.next_running(max(arrive, last_entry))
        while waiting and waiting[0][0] < arrive:
            behind -= waiting.popleft()[1]
        if behind >= cfg.recvq_buffer_msgs:  # read back from the page set
            t = apply_warp.advance(t, m_msgs[j] * cfg.recvq_pageset_s_per_msg)
        while in_memory and in_memory[0][0] <= t:
            used -= heapq.heappop(in_memory)[1]
        while in_memory and used + m_bytes[j] > cfg.apply_memory_bytes:
            d, b = heapq.heappop(in_memory)
            used -= b
            t = max(t, apply_warp.next_running(d))
        if not in_memory:
            used = 0.0
        last_entry = t
        waiting.append((t, m_msgs[j]))
        behind += m_msgs[j]
        k = min(range(cfg.agents), key=lambda x: free[x])
        begin = apply_warp.next_running(max(t, free[k]))
        finish = apply_warp.advance(begin, m_rows[j] * cfg.agents / cfg.apply_rows_per_s)
        free[k] = finish
        heapq.heappush(in_memory, (finish, m_bytes[j]))
        used += m_bytes[j]
        get.append(t)
        done.append(finish)
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
