"""The Q Replication pipeline, one chunk of source transactions at a time (vectorised).

Rules (the plain event loop in :mod:`engine.sim.reference` follows the same rules one
transaction at a time; tests check both agree):

1. **Q Capture** reads committed transactions from the log, ``log_delay_s`` after the commit
   (a fitted coefficient of the steady-state engine). An idle Capture looks at the log
   every SLEEP_INTERVAL, so a transaction is read at the next multiple of SLEEP_INTERVAL; each capture-side stage then serves it first come first
   served in ``rows / capacity`` s. A transaction larger than MEMORY_LIMIT is spilled
   (TRANS_SPILLED) and passes Capture twice (written to and read back from the spill file).
2. **Messages**: consecutive transactions captured within one commit cycle (see 3) are
   grouped TRANS_BATCH_SZ to a message; a transaction larger than MAX_MESSAGE_SIZE goes
   alone in ``ceil(bytes / MAX_MESSAGE_SIZE)`` messages. The message-level stages (``mq_log``)
   serve the MQPUT; the put completes at their departure (CAPTURE_LATENCY ends here).
3. **MQ commit**: Capture commits at the end of each log-read cycle, i.e. every SLEEP_INTERVAL
   while it keeps up and at least every COMMIT_INTERVAL (a grid of ``min`` of the two);
   messages are visible to the channel from then on.
4. **Transmit queue and channel**: the channel serves messages FIFO in ``rows / capacity``;
   a message put when the messages ahead of it already fill the buffer pool lives on the page
   set and is read at ``mq_pageset`` speed. Channel stops warp its time (events).
5. **Receive queue and Q Apply**: messages arrive after the network delay and MQ staging
   (``mq_staging_s``, fitted by the steady-state engine); a message that arrives when the
   messages ahead of it fill the receive queue's buffer pool is read back from the page set,
   the browser waiting ``recvq_pageset_s_per_msg`` for it; the browser reads
   one into memory when it fits in Q Apply's MEMORY_LIMIT (else waits: MEM_FULL_TIME), and
   NUM_APPLY_AGENTS agents apply them first come first served, each at ``capacity / agents``.
   Q Apply stops and target slow-downs warp its time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.sim.config import PipelineConfig
from engine.sim.events import Warp
from engine.sim.kernels import MultiServerState, fifo_departures, multi_server_memory
from engine.sim.profiles import Transactions


def ceil_grid(t, step: float):
    """``t`` rounded up to a multiple of ``step`` (times already on the grid stay)."""
    return np.ceil(np.asarray(t) / step) * step


@dataclass
class ChunkResult:
    """Everything one chunk produced, per transaction and per message (times in s).

    Per transaction: ``commit`` (source), ``begin``, ``rows``, ``bytes``, ``spilled``,
    ``cap_start``, ``cap_dep`` (capture done), ``group`` (message index in this chunk).
    Per message: ``m_rows``, ``m_bytes``, ``m_txns``, ``m_msgs``, ``put``, ``visible``
    (MQ commit), ``ch_start``, ``ch_dep``, ``pageset``, ``recv``, ``get`` (browser read),
    ``ap_start``, ``ap_dep`` (target commit), ``block_from``; plus per-stage (start, dep)
    lists for utilisation.
    """

    txn: dict
    msg: dict
    busy: dict


class QrepPipeline:
    """Carries the state of every stage from one chunk to the next.

    Parameters
    ----------
    cfg : PipelineConfig
        Stages and knobs.
    channel_warp, apply_warp : Warp
        Speed of the channel and of Q Apply over time (events).
    """

    def __init__(self, cfg: PipelineConfig, channel_warp: Warp, apply_warp: Warp, python_kernel: bool = False):
        self.cfg = cfg
        self.ch_warp = channel_warp
        self.ap_warp = apply_warp
        self.python_kernel = python_kernel
        self.cap_last = [-np.inf] * len(cfg.capture_stages)
        self.put_last = [-np.inf] * len(cfg.put_stages)
        self.ch_last = [-np.inf] * len(cfg.channel_stages)
        self.ch_tail_dep = np.empty(0)
        self.ch_tail_msgs = np.empty(0)
        self.apply_state = MultiServerState(cfg.agents)
        self.held: dict | None = None
        self.pageset_iterations = 0

    # ------------------------------------------------------------------ capture
    def _capture(self, tx: Transactions) -> dict:
        cfg = self.cfg
        rows = tx.rows.astype(float)
        nbytes = rows * cfg.bytes_per_row
        spilled = nbytes > cfg.capture_memory_bytes
        arr = ceil_grid(tx.commit_s + cfg.log_delay_s, cfg.sleep_interval_s)
        start0 = arr
        self.capture_busy = {}
        for k, (name, cap) in enumerate(cfg.capture_stages):
            work = rows / cap
            if k == 0:
                work = np.where(spilled, 2.0 * work, work)
            dep = fifo_departures(arr, work, self.cap_last[k])
            if k == 0:
                start0 = dep - work
            self.capture_busy[name] = (dep - work, dep)
            if dep.size:
                self.cap_last[k] = float(dep[-1])
            arr = dep
        return {"commit": tx.commit_s, "begin": tx.begin_s, "rows": tx.rows, "bytes": nbytes, "spilled": spilled,
                "cap_start": start0, "cap_dep": arr}

    # ------------------------------------------------------------------ grouping
    def _group(self, t: dict, final: bool) -> tuple[dict, dict]:
        cfg = self.cfg
        if self.held is not None:
            t = {k: np.concatenate((self.held[k], t[k])) for k in t}
            self.held = None
        n = len(t["commit"])
        if n == 0:
            return t, {}
        window = np.floor(t["cap_dep"] / cfg.commit_cycle_s)
        big = t["bytes"] > cfg.max_message_bytes
        run = np.ones(n, bool)
        run[1:] = (window[1:] != window[:-1]) | big[1:] | big[:-1]
        idx = np.arange(n)
        run_start = np.maximum.accumulate(np.where(run, idx, 0))
        new = run | ((idx - run_start) % cfg.trans_batch_sz == 0)
        starts = np.flatnonzero(new)
        if not final:
            last = starts[-1]
            self.held = {k: v[last:] for k, v in t.items()}
            t = {k: v[:last] for k, v in t.items()}
            starts = starts[:-1]
            n = last
            if n == 0:
                return t, {}
            new = new[:n]
        group = np.cumsum(new) - 1
        t["group"] = group
        ends = np.append(starts[1:], n) - 1
        m_rows = np.add.reduceat(t["rows"], starts).astype(float)
        m_bytes = np.add.reduceat(t["bytes"], starts)
        m = {"m_rows": m_rows, "m_bytes": m_bytes, "m_txns": np.diff(np.append(starts, n)).astype(float),
             "m_msgs": np.maximum(1.0, np.ceil(m_bytes / cfg.max_message_bytes)), "m_ready": t["cap_dep"][ends]}
        return t, m

    # ------------------------------------------------------------------ put, commit, channel
    def _put(self, m: dict, busy: dict) -> None:
        arr = m["m_ready"]
        for k, (name, cap) in enumerate(self.cfg.put_stages):
            work = m["m_rows"] / cap
            dep = fifo_departures(arr, work, self.put_last[k])
            busy[name] = (dep - work, dep)
            self.put_last[k] = float(dep[-1])
            arr = dep
        m["put"] = arr
        m["visible"] = ceil_grid(arr, self.cfg.commit_cycle_s)

    def _channel(self, m: dict, busy: dict) -> None:
        cfg, w = self.cfg, self.ch_warp
        name0, cap0 = cfg.channel_stages[0]
        tau = w.forward(m["visible"])
        fast = m["m_rows"] / cap0
        n = len(fast)
        pageset = np.zeros(n, bool)
        tail_d, tail_m = self.ch_tail_dep, self.ch_tail_msgs
        use_ps = cfg.pageset_rows_per_s is not None and math.isfinite(cfg.xmitq_buffer_msgs)
        slow = m["m_rows"] / cfg.pageset_rows_per_s if use_ps else fast
        cum_msgs = np.cumsum(np.concatenate((tail_m, m["m_msgs"])))
        before = np.concatenate(([0.0], cum_msgs))  # messages ahead of index j in the combined order
        own = len(tail_d) + np.arange(n)
        for _ in range(1000):
            work = np.where(pageset, slow, fast)
            d_w = fifo_departures(tau, work, self.ch_last[0])
            dep = w.inverse_left(d_w)
            if not use_ps:
                break
            self.pageset_iterations += 1
            all_dep = np.concatenate((tail_d, dep))
            j = np.searchsorted(all_dep, m["put"], side="right")
            ahead = before[own] - before[np.minimum(j, own)]
            new_ps = ahead >= cfg.xmitq_buffer_msgs
            if np.array_equal(new_ps, pageset):
                break
            pageset = new_ps
        start = w.inverse_right(d_w - work)
        self.ch_last[0] = float(d_w[-1])
        busy[name0] = (start, dep)
        m["pageset"] = pageset
        m["ch_start"] = start
        # keep the departures of messages still on the queue for the next chunk's depth
        all_dep = np.concatenate((tail_d, dep))
        all_msgs = np.concatenate((tail_m, m["m_msgs"]))
        keep = all_dep > m["put"][-1]
        self.ch_tail_dep, self.ch_tail_msgs = all_dep[keep], all_msgs[keep]
        arr = dep
        for k in range(1, len(cfg.channel_stages)):
            name, cap = cfg.channel_stages[k]
            work = m["m_rows"] / cap
            d_w = fifo_departures(w.forward(arr), work, self.ch_last[k])
            self.ch_last[k] = float(d_w[-1])
            dk = w.inverse_left(d_w)
            busy[name] = (w.inverse_right(d_w - work), dk)
            arr = dk
        m["ch_dep"] = arr
        m["recv"] = arr + (cfg.network_latency_s + cfg.mq_staging_s)

    # ------------------------------------------------------------------ apply
    def _apply(self, m: dict, busy: dict) -> None:
        cfg, w = self.cfg, self.ap_warp
        work = m["m_rows"] * cfg.agents / cfg.apply_rows_per_s
        entry, start, dep, block, slow = multi_server_memory(
            w.forward(m["recv"]), work, m["m_bytes"], self.apply_state, cfg.apply_memory_bytes, python=self.python_kernel,
            count=m["m_msgs"], extra=m["m_msgs"] * cfg.recvq_pageset_s_per_msg, queue_cap=cfg.recvq_buffer_msgs)
        m["recv_pageset"] = slow
        m["get"] = w.inverse_right(entry)
        m["ap_start"] = w.inverse_right(start)
        m["ap_dep"] = w.inverse_left(dep)
        m["block_from"] = w.inverse_right(block)
        busy["apply"] = (m["ap_start"], m["ap_dep"])

    def preload(self, n_msgs: int) -> ChunkResult:
        """Messages already on the receive queue at time 0 (a drain run), applied before anything else.

        Each holds TRANS_BATCH_SZ transactions of the workload's rows per transaction, all
        committed at the source, captured and sent at time 0.
        """
        cfg = self.cfg
        n_tx = n_msgs * cfg.trans_batch_sz
        zeros = np.zeros(n_tx)
        rows = np.full(n_tx, cfg.rows_per_txn, dtype=np.int64)
        nbytes = rows * cfg.bytes_per_row
        t = {"commit": zeros, "begin": zeros, "rows": rows, "bytes": nbytes, "spilled": np.zeros(n_tx, bool),
             "cap_start": zeros, "cap_dep": zeros, "group": np.repeat(np.arange(n_msgs), cfg.trans_batch_sz)}
        z = np.zeros(n_msgs)
        m_rows = np.full(n_msgs, float(cfg.rows_per_txn * cfg.trans_batch_sz))
        m_bytes = m_rows * cfg.bytes_per_row
        m = {"m_rows": m_rows, "m_bytes": m_bytes, "m_txns": np.full(n_msgs, float(cfg.trans_batch_sz)),
             "m_msgs": np.maximum(1.0, np.ceil(m_bytes / cfg.max_message_bytes)), "m_ready": z, "put": z,
             "visible": z, "pageset": np.zeros(n_msgs, bool), "ch_start": z, "ch_dep": z, "recv": z}
        busy: dict = {}
        self._apply(m, busy)
        return ChunkResult(t, m, busy)

    def run_chunk(self, tx: Transactions, final: bool) -> ChunkResult:
        """Push one chunk of transactions through every stage.

        Transactions whose message is still open at the end of a chunk are held back and come
        out with the next chunk (so ``txn`` may hold fewer or more than ``tx``; ``msg`` may be
        empty).
        """
        t = self._capture(tx)
        busy = dict(self.capture_busy) if len(tx) else {}
        t, m = self._group(t, final)
        if not m:
            return ChunkResult({k: v[:0] for k, v in t.items()}, {}, busy)
        self._put(m, busy)
        self._channel(m, busy)
        self._apply(m, busy)
        return ChunkResult(t, m, busy)
