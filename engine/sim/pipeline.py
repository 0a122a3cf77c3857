"""The Q Replication pipeline, one chunk of source transactions at a time (vectorised).

Rules (the plain event loop in :mod:`engine.sim.reference` follows the same rules one
transaction at a time; tests check both agree):

1. **Q Capture** reads committed transactions from the log, ``log_delay_s`` after the commit
   (the data-sharing group's merged-log delay when Q Capture runs on another LPAR than the
   source, a fitted coefficient of the steady-state engine). Q Capture's reader reads in one
   *pass* what the log holds, each transaction in ``rows / capacity`` of the busiest
   capture-side stage, picking up what is committed meanwhile, until it reaches the end of
   the log; it then sleeps SLEEP_INTERVAL (:mod:`engine.sim.logread`: the cycle is the sleep
   plus the pass, so a busier reader groups more per commit). Each capture-side stage then
   serves a transaction first come first served in ``rows / capacity`` s from the later of
   its pass's start and its availability in the log. A transaction larger than MEMORY_LIMIT is spilled (TRANS_SPILLED) and passes
   Capture twice (written to and read back from the spill file).
2. **Messages**: consecutive transactions of one pass are grouped TRANS_BATCH_SZ to a
   message; a transaction larger than MAX_MESSAGE_SIZE goes alone in ``ceil(bytes /
   MAX_MESSAGE_SIZE)`` messages. The message-level stages (``mq_log``) serve the MQPUT; the
   put completes at their departure (CAPTURE_LATENCY ends here). 2b: on shared queues whose CF
   structure filled in a first run, no message is put before the structure had room for it
   (:mod:`engine.sim.cf_course`; Q Capture retrying QFULL_RETRY_DELAY apart, or stopped); the
   plain event loop of :mod:`engine.sim.reference` has no CF structure.
3. **MQ commit** (:func:`engine.sim.kernels.commit_times`): as IBM documents it, Q Capture
   commits what it has put every COMMIT_INTERVAL (a timer running from its last commit), or
   sooner, right after the put that brings the source transactions since the last commit to
   ``maxtrans_per_commit`` (the transaction limit, a fitted coefficient of the steady-state
   engine); it never waits for a group to fill. Messages are visible to the channel from the
   commit on; messages put after a chunk's last commit wait for the next chunk's puts.
4. **Transmit queue and channel**: the channel takes messages FIFO in ``rows / capacity``
   minus its share of a batch's cost; a message put when the messages ahead of it already fill
   the buffer pool lives on the page set and is read at ``mq_pageset`` speed. With BATCHSZ
   and a fitted time per batch, messages go in batches (:func:`engine.sim.kernels.batch_channel`:
   a batch ends when BATCHSZ messages are in it or the queue is empty); a batch's messages
   reach the receive queue together ``channel_sync_s`` plus the network delay after its last
   message, and the channel starts the next batch after the confirmation comes back. At full
   batches this gives the steady-state channel capacity. Channel stops warp its time (events).
5. **Receive queue and Q Apply**: messages arrive after the network delay; the single browser
   gets each one into memory (its MQGET: QLATENCY ends here) as soon as it is on the receive
   queue and fits in Q Apply's MEMORY_LIMIT with the messages held ahead of it (else it waits
   for agents to commit: MEM_FULL_TIME), and then reads and parses the messages it got one
   after another, ``rows / browser capacity`` each, before an agent may take them. A burst (one
   channel batch) thus waits in Q Apply's memory as far as MEMORY_LIMIT holds it and on the
   receive queue beyond, the rule of :func:`engine.perf.qrep.latency.burst_wait`. A message
   that arrives when the messages ahead of it still on the queue fill the receive queue's
   buffer pool is read back from the page set, the browser spending
   ``recvq_pageset_s_per_msg`` more on it (the messages ahead are those the browser has not got
   yet; those got but not yet deleted after their target commit are not counted, so the depth,
   and how often a message is read back, is a lower bound);
   NUM_APPLY_AGENTS agents apply messages first come first served, each taking ``rows x agents
   / capacity`` on average (fewer servers when a shared resource caps them,
   :attr:`PipelineConfig.apply_servers`) times a random multiplier of mean 1 and squared
   coefficient of variation ``agent_service_cv2`` (:func:`service_multiplier`, drawn from the
   message's first transaction): from the cost model, a fixed CPU part plus an exponential Db2
   class 2 wait part, ``cv2`` the square of the wait's share
   (:func:`engine.sim.cost_model.apply_wait_share`). Q Apply stops and target slow-downs warp
   its time.
6. **Target transactions and dependencies**: with COMMIT_COUNT ``k`` an agent applies ``k``
   consecutive messages as one target transaction (read by the browser together, one commit);
   the messages of a chunk's last incomplete one wait for the next chunk. A share
   ``dependent_share`` of target transactions (those whose first transaction's second uniform
   ``v`` is below it) depend on the one before: Q Apply hands it to an agent only when that
   one has committed. It does not hold up the ones behind it: it takes the agent that became
   free last before it is ready (the agents free earlier stay for the others), else the first
   agent to become free (:func:`engine.sim.kernels.multi_server_memory`). The agents'
   capacity is the steady-state engine's, which already carries the parallelism it loses to
   dependent transactions; the simulation adds their waits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.sim import profiles as _profiles
from engine.sim.config import PipelineConfig
from engine.sim.events import Warp
from engine.sim.kernels import (
    BatchState,
    MultiServerState,
    QueueBuffer,
    batch_channel,
    commit_times,
    fifo_departures,
    multi_server_memory,
)
from engine.sim.logread import LogReadState, log_read_passes
from engine.sim.profiles import Transactions


def service_multiplier(u, cv2: float):
    """Service-time multipliers of mean 1 and squared coefficient of variation ``cv2`` from uniforms ``u``.

    ``cv2 <= 1``: a constant ``1 - sqrt(cv2)`` plus an exponential of mean ``sqrt(cv2)`` (the
    agents' CPU and Db2 class 2 wait shares, :func:`engine.sim.cost_model.apply_wait_share`).
    ``cv2 > 1``: a two-phase hyperexponential with balanced means (with probability ``p`` an
    exponential of mean ``1 / (2 p)``, else of mean ``1 / (2 (1 - p))``, ``p = (1 +
    sqrt((cv2 - 1) / (cv2 + 1))) / 2``): most messages are quick, a few take long (for
    hand-made configurations; the cost model gives ``cv2 <= 1``). One uniform picks the phase
    and, rescaled within it, the exponential.
    """
    u = np.asarray(u, dtype=float)
    if cv2 <= 0.0:
        return np.ones_like(u)
    if cv2 <= 1.0:
        r = math.sqrt(cv2)
        return (1.0 - r) - r * np.log1p(-u)
    p = 0.5 * (1.0 + math.sqrt((cv2 - 1.0) / (cv2 + 1.0)))
    first = u < p
    v = np.where(first, u / p, (u - p) / (1.0 - p))
    mean = np.where(first, 0.5 / p, 0.5 / (1.0 - p))
    return -mean * np.log1p(-np.minimum(v, 1.0 - 1e-16))


def _split(t: dict, m: dict, k: int) -> tuple[tuple[dict, dict], tuple[dict, dict]]:
    """Messages ``[:k]`` and ``[k:]`` with their transactions (group numbers restart at 0)."""
    j = int(np.searchsorted(t["group"], k))
    t2 = {key: v[j:] for key, v in t.items()}
    t2["group"] = t2["group"] - k
    return ({key: v[:j] for key, v in t.items()}, {key: v[:k] for key, v in m.items()}), (
        t2,
        {key: v[k:] for key, v in m.items()},
    )


def _join(a: tuple[dict, dict] | None, b: tuple[dict, dict] | None) -> tuple[dict, dict] | None:
    """Messages of ``a`` then of ``b`` with their transactions."""
    if a is None or not a[1] or len(a[1]["m_rows"]) == 0:
        return b
    if b is None or not b[1] or len(b[1]["m_rows"]) == 0:
        return a
    (ta, ma), (tb, mb) = a, b
    off = len(ma["m_rows"])
    keys = [k for k in ma if k in mb]
    t = {k: np.concatenate((ta[k], tb[k] + off if k == "group" else tb[k])) for k in ta}
    return t, {k: np.concatenate((ma[k], mb[k])) for k in keys}


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

    def __init__(
        self, cfg: PipelineConfig, channel_warp: Warp, apply_warp: Warp, python_kernel: bool = False
    ):
        self.cfg = cfg
        self.ch_warp = channel_warp
        self.ap_warp = apply_warp
        self.python_kernel = python_kernel
        self.cap_last = [-np.inf] * len(cfg.capture_stages)
        self.put_last = [-np.inf] * len(cfg.put_stages)
        self.ch_last = -np.inf
        self.ch_batch = BatchState()
        self.xmitq = QueueBuffer()  # departures of the messages still on the transmit queue
        self.apply_state = MultiServerState(cfg.apply_servers)
        self.held_tx: Transactions | None = None  # the last log-read pass of the previous chunk
        self.log_state = LogReadState(cfg.sleep_interval_s)
        self.uncommitted: tuple[dict, dict] | None = None  # put since Q Capture's last MQ commit
        self.last_commit_s = 0.0  # Q Capture's last MQ commit (its COMMIT_INTERVAL timer runs from it)
        self.pending: tuple[dict, dict] | None = None  # sent in a channel batch that has not ended yet
        self.apply_carry: tuple[dict, dict] | None = None  # messages of an incomplete COMMIT_COUNT group
        self.pageset_iterations = 0
        self.gated_msgs = 0.0  # messages through the CF put gate so far (cfg.cf_gate)

    @property
    def batched(self) -> bool:
        return math.isfinite(self.cfg.channel_batch_msgs)

    # ------------------------------------------------------------------ capture
    def _whole_passes(self, parts: list[Transactions], final: bool):
        """Rule 1 for ``parts`` after the transactions held from the last chunk: each one's log-read
        pass and when the reader gets to it (:func:`engine.sim.logread.log_read_passes`). The
        last pass may go on in the next chunk: its transactions are held for it (unless
        ``final``, or the pass is the whole chunk: it then goes on with the next one)."""
        cfg = self.cfg
        held, self.held_tx = self.held_tx, None
        tx = _profiles.concat(([held] if held is not None else []) + list(parts))  # one copy
        avail = tx.commit_s + cfg.log_delay_s
        read_pass, wake, read_end = log_read_passes(
            avail, tx.rows / cfg.reader_rows_per_s, cfg.sleep_interval_s, self.log_state, self.python_kernel
        )
        arrive = np.maximum(wake, avail)
        if final or len(tx) == 0:
            return tx, read_pass, arrive
        last = int(np.searchsorted(read_pass, read_pass[-1], side="left"))
        if last == 0:
            return tx, read_pass, arrive
        self.held_tx = tx.part(last, len(tx))
        self.log_state.rewind(float(read_end[last - 1]), float(read_pass[last - 1]), float(wake[last - 1]))
        return tx.part(0, last), read_pass[:last], arrive[:last]

    def _capture(self, tx: Transactions, read_pass, arrive) -> dict:
        cfg = self.cfg
        rows = tx.rows.astype(float)
        nbytes = rows * cfg.bytes_per_row
        spilled = nbytes > cfg.capture_memory_bytes
        arr = arrive
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
        return {
            "commit": tx.commit_s,
            "begin": tx.begin_s,
            "rows": tx.rows,
            "bytes": nbytes,
            "spilled": spilled,
            "cap_start": start0,
            "cap_dep": arr,
            "pass": read_pass,
            "u": tx.uniforms(),
            "v": tx.dependency_uniforms(),
        }

    # ------------------------------------------------------------------ grouping
    def _group(self, t: dict) -> tuple[dict, dict]:
        """Rule 2 for whole passes: TRANS_BATCH_SZ transactions of a pass to a message."""
        cfg = self.cfg
        n = len(t["commit"])
        if n == 0:
            return t, {}
        window = t["pass"]
        tbs = cfg.trans_batch_sz
        if tbs == 1:
            starts = np.arange(n)
        else:
            # runs of transactions in one cycle, none too big for a message; TRANS_BATCH_SZ to a message
            big = t["bytes"] > cfg.max_message_bytes
            run = np.ones(n, bool)
            run[1:] = (window[1:] != window[:-1]) | big[1:] | big[:-1]
            run_starts = np.flatnonzero(run)
            per_run = (np.diff(np.append(run_starts, n)) + (tbs - 1)) // tbs  # messages of each run
            before = np.cumsum(per_run) - per_run  # messages before each run
            starts = np.repeat(run_starts - tbs * before, per_run) + tbs * np.arange(int(per_run.sum()))
        m_txns = np.diff(np.append(starts, n))
        t["group"] = np.repeat(np.arange(len(starts)), m_txns)
        ends = np.append(starts[1:], n) - 1
        m_rows = np.add.reduceat(t["rows"], starts).astype(float)
        m_bytes = np.add.reduceat(t["bytes"], starts)
        m = {
            "m_rows": m_rows,
            "m_bytes": m_bytes,
            "m_txns": m_txns.astype(float),
            "m_msgs": np.maximum(1.0, np.ceil(m_bytes / cfg.max_message_bytes)),
            "m_ready": t["cap_dep"][ends],
            "m_u": t["u"][starts],
            "m_v": t["v"][starts],
        }
        return t, m

    # ------------------------------------------------------------------ put, commit, channel
    def _put(self, m: dict, busy: dict) -> None:
        arr = m["m_ready"]
        gate = self.cfg.cf_gate
        if gate is not None:  # rule 2b: no put before the CF structure has room for it
            through = self.gated_msgs + np.cumsum(m["m_msgs"])
            self.gated_msgs = float(through[-1])
            arr = np.maximum.accumulate(np.maximum(arr, gate.earliest_s(through)))
        for k, (name, cap) in enumerate(self.cfg.put_stages):
            work = m["m_rows"] / cap
            dep = fifo_departures(arr, work, self.put_last[k])
            busy[name] = (dep - work, dep)
            self.put_last[k] = float(dep[-1])
            arr = dep
        m["put"] = arr

    def _mq_commit(self, t: dict, m: dict, final: bool) -> tuple[dict, dict]:
        """Rule 3: each message's MQ commit (``visible``); messages put since the last commit
        that the next chunk's puts may still commit are held for it (all are committed when
        ``final``). Returns the messages with their commit and their transactions."""
        tm = _join(self.uncommitted, (t, m) if m else None)
        self.uncommitted = None
        if tm is None:
            return t, m
        t, m = tm
        m.pop("visible", None)
        visible, known, self.last_commit_s = commit_times(
            m["put"],
            m["m_txns"],
            self.cfg.maxtrans_per_commit,
            self.cfg.commit_interval_s,
            self.last_commit_s,
            final,
            self.python_kernel,
        )
        m["visible"] = visible
        if known < len(visible):
            (t, m), self.uncommitted = _split(t, m, known)
        return t, m

    def channel_work(self, m_rows, m_msgs, pageset):
        """Time to get and send each message (s): its rows at channel (or page-set) speed less its
        share of a full batch's cost, which :func:`batch_channel` charges per batch."""
        cfg = self.cfg
        use_ps = cfg.pageset_rows_per_s is not None and math.isfinite(cfg.xmitq_buffer_msgs)
        work = m_rows / np.where(
            pageset, cfg.pageset_rows_per_s if use_ps else cfg.channel_rows_per_s, cfg.channel_rows_per_s
        )
        if self.batched:
            work = np.maximum(work - m_msgs * (cfg.channel_batch_s / cfg.channel_batch_msgs), 0.1 * work)
        return work

    def _channel(self, m: dict, busy: dict, final: bool) -> tuple[int, float | None]:
        """Rule 4; sets ``ch_start``, ``ch_dep`` (off the transmit queue), ``pageset`` and, for
        messages whose batch has ended, ``recv``. Returns the index of the first message still in
        an open batch and when the batch open before this chunk ended (None if it did not)."""
        cfg, w = self.cfg, self.ch_warp
        name0 = min(cfg.channel_stages, key=lambda st: st[1])[0]
        tau = w.forward(m["visible"])
        n = len(tau)
        pageset = np.zeros(n, bool)
        use_ps = cfg.pageset_rows_per_s is not None and math.isfinite(cfg.xmitq_buffer_msgs)
        q = self.xmitq
        if use_ps:
            g0 = q.extend(m["m_msgs"])  # buffer index of this chunk's first message
            own = g0 + np.arange(n)
            put = m["put"]
        close = None
        pending_from, prev = n, None
        for _ in range(1000):
            work = self.channel_work(m["m_rows"], m["m_msgs"], pageset)
            if self.batched:
                state = self.ch_batch.copy()
                s_w, d_w, close, pending_from, prev = batch_channel(
                    tau,
                    work,
                    m["m_msgs"],
                    state,
                    cfg.channel_batch_msgs,
                    cfg.channel_sync_s,
                    cfg.channel_batch_s,
                    final,
                    self.python_kernel,
                )
            else:
                d_w = fifo_departures(tau, work, self.ch_last)
                s_w = d_w - work
            dep = w.inverse_left(d_w)
            if not use_ps:
                break
            self.pageset_iterations += 1
            q.time[g0 : g0 + n] = dep
            # messages gone by each put (departures are in order): search only where the puts fall
            gone = q.time[q.head : g0 + n]
            lo, hi = np.searchsorted(gone, (put[0], put[-1]), side="right")
            j = q.head + lo + np.searchsorted(gone[lo:hi], put, side="right")
            ahead = q.cum[own] - q.cum[np.minimum(j, own)]
            new_ps = ahead >= cfg.xmitq_buffer_msgs
            if np.array_equal(new_ps, pageset):
                break
            pageset = new_ps
        if self.batched:
            self.ch_batch = state
        else:
            self.ch_last = float(d_w[-1])
        start = w.inverse_right(s_w)
        busy[name0] = (start, dep)
        m["pageset"] = pageset
        m["ch_start"] = start
        m["ch_dep"] = dep
        if use_ps:  # the messages still on the queue after the last put stay for the next chunk's depth
            q.head += int(np.searchsorted(q.time[q.head : q.used], put[-1], side="right"))
        if self.batched:
            m["recv"] = self._arrival(w.inverse_left(close), batched=True)
            prev = None if prev is None else float(self._arrival(w.inverse_left(np.array([prev])), True)[0])
        else:
            m["recv"] = self._arrival(dep, batched=False)
        return pending_from, prev

    def _arrival(self, t, batched: bool):
        """Time messages sent (or, in batches, committed) at ``t`` are on the receive queue, s."""
        return t + self.cfg.network_latency_s

    # ------------------------------------------------------------------ apply
    def _apply(self, m: dict, busy: dict, mean_service: bool = False) -> None:
        """Rules 5 and 6 for messages ``m`` (whole COMMIT_COUNT groups but for the last of a final call)."""
        cfg, w = self.cfg, self.ap_warp
        k = cfg.commit_count
        n = len(m["m_rows"])
        if k > 1:  # one customer per target transaction of k consecutive messages
            first = np.arange(0, n, k)
            last = np.minimum(first + k, n) - 1
            rows, nbytes, msgs = (np.add.reduceat(m[key], first) for key in ("m_rows", "m_bytes", "m_msgs"))
            recv, u, v = m["recv"][last], m["m_u"][first], m["m_v"][first]
        else:
            rows, nbytes, msgs, recv, u, v = (
                m["m_rows"],
                m["m_bytes"],
                m["m_msgs"],
                m["recv"],
                m["m_u"],
                m["m_v"],
            )
        work = rows * cfg.apply_servers / cfg.apply_rows_per_s
        if not mean_service:
            work = work * service_multiplier(u, cfg.agent_service_cv2)
        read = rows / cfg.browser_rows_per_s if cfg.browser_rows_per_s else None
        dependent = v < cfg.dependent_share if cfg.dependent_share > 0 else None
        entry, start, dep, block, slow, parsed = multi_server_memory(
            w.forward(recv),
            work,
            nbytes,
            self.apply_state,
            cfg.apply_memory_bytes,
            python=self.python_kernel,
            count=msgs,
            extra=msgs * cfg.recvq_pageset_s_per_msg,
            queue_cap=cfg.recvq_buffer_msgs,
            read=read,
            dependent=dependent,
        )
        get = w.inverse_right(entry)
        ap_start, ap_dep, block_from = w.inverse_right(start), w.inverse_left(dep), w.inverse_right(block)
        busy["apply"] = (ap_start, ap_dep)
        if read is not None:
            done = w.inverse_left(parsed)
            busy["qapply_browser"] = (np.minimum(w.inverse_right(parsed - read), done), done)
        if k > 1:
            of = np.arange(n) // k
            blocked_from = block_from
            get, ap_start, ap_dep, block_from, slow = (x[of] for x in (get, ap_start, ap_dep, get, slow))
            block_from[first] = blocked_from  # MEM_FULL_TIME once per target transaction
        m["recv_pageset"] = slow
        m["get"], m["ap_start"], m["ap_dep"], m["block_from"] = get, ap_start, ap_dep, block_from

    def preload(self, n_msgs: int, first: int = 0) -> ChunkResult:
        """Messages already on the receive queue at time 0 (a drain run), applied before anything else.

        Each holds TRANS_BATCH_SZ transactions of the workload's rows per transaction, all
        committed at the source, captured and sent at time 0 (agents' service at its mean;
        target transactions ``i`` with ``floor((i + 1) s) > floor(i s)`` depend on the one
        before, exactly the dependent share ``s`` of them). A deep queue is pre-loaded in
        parts (:meth:`preload_chunks`): ``first`` is the index of this part's first message.
        """
        cfg = self.cfg
        n_tx = n_msgs * cfg.trans_batch_sz
        zeros = np.zeros(n_tx)
        rows = np.full(n_tx, cfg.rows_per_txn, dtype=np.int64)
        nbytes = rows * cfg.bytes_per_row
        t = {
            "commit": zeros,
            "begin": zeros,
            "rows": rows,
            "bytes": nbytes,
            "spilled": np.zeros(n_tx, bool),
            "cap_start": zeros,
            "cap_dep": zeros,
            "pass": zeros,
            "u": np.full(n_tx, 0.5),
            "v": np.ones(n_tx),
            "group": np.repeat(np.arange(n_msgs), cfg.trans_batch_sz),
        }
        z = np.zeros(n_msgs)
        m_rows = np.full(n_msgs, float(cfg.rows_per_txn * cfg.trans_batch_sz))
        m_bytes = m_rows * cfg.bytes_per_row
        m = {
            "m_rows": m_rows,
            "m_bytes": m_bytes,
            "m_txns": np.full(n_msgs, float(cfg.trans_batch_sz)),
            "m_msgs": np.maximum(1.0, np.ceil(m_bytes / cfg.max_message_bytes)),
            "m_ready": z,
            "put": z,
            "visible": z,
            "pageset": np.zeros(n_msgs, bool),
            "ch_start": z,
            "ch_dep": z,
            "recv": z,
            "m_u": np.full(n_msgs, 0.5),
        }
        share = cfg.dependent_share
        target = (first + np.arange(n_msgs)) // cfg.commit_count  # each message's target transaction
        m["m_v"] = np.where(np.floor((target + 1) * share) > np.floor(target * share), 0.0, 1.0)
        busy: dict = {}
        self._apply(m, busy, mean_service=True)
        return ChunkResult(t, m, busy)

    def preload_chunks(self, n_msgs: int, chunk_txns: int):
        """:meth:`preload` of ``n_msgs`` messages in parts of about ``chunk_txns`` transactions
        (whole COMMIT_COUNT groups), so memory does not grow with the depth; yields ChunkResults."""
        k = self.cfg.commit_count
        per_part = max(k, (max(1, chunk_txns // self.cfg.trans_batch_sz) // k) * k)
        for first in range(0, n_msgs, per_part):
            yield self.preload(min(per_part, n_msgs - first), first)

    def run_chunk(self, tx: Transactions | list[Transactions], final: bool) -> list[ChunkResult]:
        """Push one chunk of transactions (or consecutive parts of one) through every stage.

        Transactions of the last log-read pass of a chunk are held back and come out with the
        next chunk, and so are messages whose channel batch has not ended yet. Returns the
        results in order: first the messages carried from the previous chunk whose batch has
        now ended (if any), then this chunk's (``msg`` may be empty).
        """
        tx, read_pass, arrive = self._whole_passes([tx] if isinstance(tx, Transactions) else tx, final)
        t = self._capture(tx, read_pass, arrive)
        busy = dict(self.capture_busy) if len(tx) else {}
        t, m = self._group(t)
        if m:
            self._put(m, busy)
        t, m = self._mq_commit(t, m, final)
        out: list[ChunkResult] = []
        now = None
        if m and len(m["m_rows"]):
            k, prev = self._channel(m, busy, final)
            ended = None
            if self.pending is not None and prev is not None:  # the batch open before this chunk ended
                self.pending[1]["recv"][:] = prev
                ended, self.pending = self.pending, None
            now, later = _split(t, m, k) if k < len(m["m_rows"]) else ((t, m), None)
            if self.pending is not None:  # the open batch goes on through this whole chunk
                self.pending = _join(self.pending, later)
                now = None
            else:
                self.pending = later
            if ended is not None:  # through Q Apply on their own: no copy of this chunk's arrays
                ended = self._commit_groups(ended, False)
                if ended is not None and len(ended[1]["m_rows"]):
                    out.append(self._applied(ended, {}))
        elif final and self.pending is not None:
            st = self.ch_batch
            c = st.open_end + self.cfg.channel_sync_s
            self.pending[1]["recv"][:] = self._arrival(self.ch_warp.inverse_left(np.array([c])), True)[0]
            st.values[0], st.values[1] = st.open_end + self.cfg.channel_batch_s, 0.0
            now, self.pending = self.pending, None
        if final or (now is not None and len(now[1]["m_rows"])):
            now = self._commit_groups(now, final)
        if now is not None and len(now[1]["m_rows"]):
            out.append(self._applied(now, busy))
        elif busy:
            out.append(ChunkResult({k: v[:0] for k, v in t.items()}, {}, busy))
        return out

    def _commit_groups(self, tm: tuple[dict, dict] | None, final: bool) -> tuple[dict, dict] | None:
        """``tm`` after the messages carried from the last call, less an incomplete COMMIT_COUNT
        group at its end (carried to the next call unless ``final``)."""
        k = self.cfg.commit_count
        if k == 1:
            return tm
        tm, self.apply_carry = _join(self.apply_carry, tm), None
        if tm is None or final:
            return tm
        n = len(tm[1]["m_rows"]) if tm[1] else 0
        if n % k:
            tm, self.apply_carry = _split(tm[0], tm[1], n - n % k)
        return tm

    def _applied(self, tm: tuple[dict, dict], busy: dict) -> ChunkResult:
        t, m = tm
        self._apply(m, busy)
        return ChunkResult(t, m, busy)
