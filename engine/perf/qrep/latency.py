"""The three latencies Q Apply reports (IBMQREP_APPLYMON), from the cycles and queues of the flow.

Seed 000 (2.2.1) defines them: CAPTURE_LATENCY is the MQPUT time of a transaction's last
message minus its source commit time; QLATENCY is END2END_LATENCY minus the other two (time
in MQ: commit, channel, receive queue); APPLY_LATENCY is the target commit time minus the
MQGET time of the transaction's first message. Each is built from mechanisms whose sizes are
inputs or fitted service times, so every latency approaches a floor set by the cycles as the
load falls and rises only through queueing as the load grows:

* **Log read cycle** (CAPTURE_LATENCY). Q Capture's log reader reads what the log holds and,
  at the end of the log, sleeps SLEEP_INTERVAL: a queue with multiple vacations, in which a
  commit waits half a SLEEP_INTERVAL plus the reader's own queueing before it is read
  (:func:`reader_wait_ms`). A pass over the log takes the reader's utilisation share of the
  cycle, so the cycle is ``SLEEP_INTERVAL / (1 - rho_reader)``. When Q Capture does not run on the
  source workload's LPAR it reads that member's log through the data-sharing group's merged
  log (IFI), which returns a record only once every member's log has advanced past it: the
  wait for the other members' next log writes, from how often they write
  (``hardware.other_member_log_interval_ms``; for idle members, as in the Redpaper's set-up, a
  bounded, fitted ``log_merge_delay_ms``). The worker then assembles the transaction and the
  publisher puts it (an M/M/1 queue on Q Capture's busiest thread).
* **MQ commit** (QLATENCY). Q Capture "puts messages on the send queue and commits the
  messages to the queue manager at the frequency set by the commit_interval parameter"
  (IBM, Q Capture tuning); seed 000 Table 2-1 adds the second trigger: "at high throughput,
  the maxtrans limit is reached much sooner and Capture commits much more frequently". So a
  commit period is ``T = min(COMMIT_INTERVAL, time to put maxtrans_per_commit transactions)``
  (:func:`commit_period_ms`), it carries ``rate x T`` rows, and a message, put at a uniformly
  random moment of the period, waits ``T / 2`` for the MQCMIT (then the commit itself, with the
  log force of persistent messages). As the load falls ``T`` tends to COMMIT_INTERVAL: the
  floor of QLATENCY is half of it. Where the limit fills first (the Redpaper baseline above
  about 1,300 rows/s of 5-row transactions) COMMIT_INTERVAL no longer matters, as Table 4-5
  of seed 000 shows at the maximum rate.
* **Message packing**. Q Capture's worker groups the transactions one pass over the log hands
  it into messages of up to TRANS_BATCH_SZ transactions; it never waits for a group to fill
  (:func:`txns_per_pass`): at light load a message holds the transactions of one pass, at
  least one.
* **Channel**. A commit makes its messages available at once; the channel sends them in
  batches of at most BATCHSZ, a batch ending early when the transmission queue is empty. A
  persistent message becomes visible when the receiver commits its batch (the rest of the
  batch, the syncpoint with its log force and the confirm round trip, after the residual of a
  batch already in flight); a non-persistent one (NPMSPEED FAST) once the messages ahead of it
  in the commit's burst are sent. The one-way network latency and the transfer time over the
  bandwidth are added, and the channel's M/M/1 queue.
* **Browser** (QLATENCY, it precedes the agents' MQGET): one thread per receive queue, M/M/1.
* **Agents** (APPLY_LATENCY). NUM_APPLY_AGENTS servers (M/M/c); a busy agent's time grows with
  the number of other busy agents (Db2 lock and latch contention, log and commit
  serialisation: ``agent_latch_share``; their CPU by ``agent_cpu_share``), so scaling is
  sub-linear before the CPU saturates (:mod:`.apply_parallel`). A transaction in a chain of
  dependent ones waits for the chain ahead of it (half a service per predecessor, the chain no
  longer than Q Apply's look-ahead). A commit or channel batch
  delivers ``K`` transactions at once (batch arrivals, :func:`burst_wait`): they wait
  ``(K - 1) / (2 (1 - rho))`` pooled services more than single arrivals, in Q Apply's memory
  as far as MEMORY_LIMIT holds, the rest on the receive queue (QLATENCY).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from engine.perf.qrep import apply_parallel, channel, data_sharing, parallel_sendqs
from engine.perf.qrep.queueing import RHO_CAP

#: Busy share above which Q Capture's log reader is taken never to reach the end of the log.
READER_BUSY_CAP = 0.95


def reader_row_us(flow) -> float:
    """Time (us) Q Capture's busiest thread (log reader or worker) spends per row on its server."""
    return flow.reader_or_worker_ref_us * flow.time_factor * flow.platform.role_speed["C"]


def reader_busy_share(flow, rows_per_s: float) -> float:
    """Share of its time Q Capture's busiest thread (log reader or worker) works, at most 0.95."""
    return min(rows_per_s * reader_row_us(flow) * 1e-6, READER_BUSY_CAP)


def reader_cycle_ms(flow, rows_per_s: float) -> float:
    """Q Capture's log-read cycle (ms): a sleep plus a pass, SLEEP_INTERVAL / (1 - busy share)."""
    return flow.inp.sleep_interval_ms / (1.0 - reader_busy_share(flow, rows_per_s))


def reader_wait_ms(flow, rows_per_s: float) -> float:
    """Mean time (ms) from a source commit until Q Capture's log reader reads it.

    The reader serves the log exhaustively and, at the end of the log, sleeps SLEEP_INTERVAL
    before it looks again: an M/G/1 queue with multiple vacations, whose wait decomposes
    (Fuhrmann and Cooper) into the mean residual of a vacation, ``SLEEP_INTERVAL / 2``, plus
    the wait of the plain queue, ``rho X / (1 - rho)`` with ``X`` the reader's time per row.
    """
    busy = reader_busy_share(flow, rows_per_s)
    return flow.inp.sleep_interval_ms / 2.0 + busy * reader_row_us(flow) / 1000.0 / (1.0 - busy)


def maxtrans_fill_ms(flow, rows_per_s: float) -> float:
    """Time (ms) to put ``maxtrans_per_commit`` transactions (infinite at no load)."""
    txns_per_s = rows_per_s / flow.inp.rows_per_txn
    return flow.c.maxtrans_per_commit / txns_per_s * 1000.0 if txns_per_s > 0.0 else float("inf")


def txns_per_pass(flow, rows_per_s: float) -> float:
    """Mean source transactions one pass over the log hands Q Capture's worker (at least 1).

    A pass reads what was committed during the last log-read cycle
    (:func:`reader_cycle_ms`); with Poisson commits of mean ``n`` per cycle, a pass that finds
    any holds ``n / (1 - exp(-n))`` on average.
    """
    n = rows_per_s / flow.inp.rows_per_txn * reader_cycle_ms(flow, rows_per_s) / 1000.0
    return n / -math.expm1(-n) if n > 1e-9 else 1.0


def log_merge_delay_ms(flow) -> float:
    """Delay before a change is readable through a data-sharing group's merged log (ms).

    When Q Capture runs on another LPAR than the source workload (and so reads that member's
    log through the merged IFI read), or the source is a data-sharing group: the wait for the
    slowest other member's next log write (:mod:`engine.perf.qrep.data_sharing`), each member
    writing every ``hardware.other_member_log_interval_ms`` on average (by default idle members,
    the fitted ``log_merge_delay_ms``); 0 when it reads its own member's log alone.
    """
    interval_ms = flow.inp.topo.other_member_log_interval_ms
    if interval_ms is None:
        interval_ms = flow.c.log_merge_delay_ms
    delay_ms = interval_ms * data_sharing.flow_merge_delay_factor(flow.inp)
    return flow.platform.log_merge_delay_ms(delay_ms)  # z/OS data sharing only


def capture_latency_ms(flow, stages: dict, point, rows_per_s: float) -> float:
    """CAPTURE_LATENCY (ms): source commit to the MQPUT of the transaction's last message."""
    assemble_ms = 2.0 * point.worker_us * flow.inp.rows_per_txn / 1000.0
    # the MQPUT path of one message (the commit's cost comes after the put: QLATENCY)
    put_path_ms = (point.worker_us * flow.geometry.rows_per_msg + point.put_us) / 1000.0
    rho = min(stages["qcapture"].utilisation, RHO_CAP)
    return (
        reader_wait_ms(flow, rows_per_s) + log_merge_delay_ms(flow) + put_path_ms / (1.0 - rho) + assemble_ms
    )


def commit_period_ms(flow, rows_per_s: float) -> float:
    """Time between Q Capture's MQ commits (ms): COMMIT_INTERVAL, or less when the transaction
    limit (``maxtrans_per_commit``) fills first."""
    return min(flow.inp.commit_interval_ms, maxtrans_fill_ms(flow, rows_per_s))


def commit_wait_ms(flow, rows_per_s: float) -> float:
    """Mean time (ms) from a message's MQPUT to Q Capture's MQCMIT: half a commit period (the
    puts of a period are spread over it)."""
    return commit_period_ms(flow, rows_per_s) / 2.0


def qlatency_ms(flow, stages: dict, point, rows_per_s: float) -> float:
    """QLATENCY (ms): time in MQ from the MQPUT to the agent's MQGET."""
    return (
        commit_wait_ms(flow, rows_per_s)
        + point.commit_us / 1000.0
        + channel.visible_ms(flow, stages, point)
        + (flow.inp.network_latency_ms if "mq_channel" in stages else 0.0)
        + stages.get("mq_client", stages["qapply_browser"]).latency_ms  # a client browser's gets: round trips
        + burst_wait_ms(flow, stages, point)[1]  # beyond MEMORY_LIMIT the burst waits on the receive queue
        + parallel_sendqs.gap_wait_ms(flow, stages, point)  # predecessors on another send queue
    )


class BurstWait(NamedTuple):
    """Mean wait (ms) a target transaction adds by arriving in a burst, split where it is spent.

    Attributes
    ----------
    in_memory_ms : float
        After the browser's MQGET, held in Q Apply's memory until an agent takes it
        (APPLY_LATENCY).
    on_queue_ms : float
        Before the browser's MQGET, on the receive queue because MEMORY_LIMIT holds no more
        (QLATENCY).
    """

    in_memory_ms: float
    on_queue_ms: float


def burst_wait(burst_txns: float, per_txn_ms: float, utilisation: float, lookahead_txns: float) -> BurstWait:
    """The wait a burst of target transactions adds at Q Apply's agents, and where it is spent.

    One Q Capture MQ commit (or one channel batch of it, at most BATCHSZ messages) makes
    ``K = burst_txns`` target transactions visible on the receive queue at once, one burst per
    commit period (:func:`commit_period_ms`: COMMIT_INTERVAL, or less when the transaction limit
    fills first, so the burst follows the period). Beyond the M/M/c wait of single arrivals (the
    agents' stage latency) a transaction of a burst waits, at the agents' pooled pace
    ``S = per_txn_ms`` (an agent's time over the agents working at once), for

    * the transactions of its own burst ahead of it, ``S (K - 1) / 2``;
    * the earlier bursts' work still being applied, ``rho S (K - 1) / (2 (1 - rho))`` beyond the
      single-arrival wait, which grows as the agents fill,

    ``S (K - 1) / (2 (1 - rho))`` in all: the batch-Poisson queue (M^X/M/1, exact for one agent).
    For ``c`` agents an event simulation of batch-Poisson arrivals (tests) lands within about 10%
    of it; counting that the first ``c`` transactions of a burst start at once, and nothing else,
    would make it up to 5% too low. Poisson bursts are what the published runs driven to the
    maximum support: bursts exactly one commit period apart would drain between commits and
    leave 9-49 ms at the Redpaper's settings, less than each of its 31 published APPLY_LATENCY
    values (28-873 ms; 43-441 ms for repeats of one setting).

    The browser reads ahead only as far as MEMORY_LIMIT holds, ``M = lookahead_txns``
    transactions, ``M S`` of the wait (after the browser's MQGET: APPLY_LATENCY); the rest is
    spent on the receive queue before it (QLATENCY): a small MEMORY_LIMIT moves the wait, it
    never removes it.

    Parameters
    ----------
    burst_txns : float
        Target transactions made visible together, ``K`` (below 1 counts as 1).
    per_txn_ms : float
        The agents' pooled time per target transaction, ms (>= 0).
    utilisation : float
        The agents' utilisation (clipped to [0, :data:`~engine.perf.qrep.queueing.RHO_CAP`]).
    lookahead_txns : float
        Target transactions Q Apply's MEMORY_LIMIT holds (:func:`apply_parallel.lookahead_txns`).

    Returns
    -------
    BurstWait
        The wait in Q Apply's memory and on the receive queue, ms (both finite, >= 0).
    """
    rho = min(max(utilisation, 0.0), RHO_CAP)
    wait_ms = per_txn_ms * (max(burst_txns, 1.0) - 1.0) / (2.0 * (1.0 - rho))
    in_memory_ms = min(wait_ms, max(lookahead_txns, 0.0) * per_txn_ms)
    return BurstWait(in_memory_ms, wait_ms - in_memory_ms)


def burst_wait_ms(flow, stages: dict, point) -> BurstWait:
    """:func:`burst_wait` of the flow at its operating point (a drain has no bursts).

    The burst is one channel batch of a Q Capture commit (:func:`channel.batch_msgs`) in target
    transactions, the agents' pooled time per transaction their capacity's.
    """
    if flow.drain:
        return BurstWait(0.0, 0.0)
    g = flow.geometry
    agents = stages["qapply_agents"]
    per_txn_ms = g.rows_per_target_txn * 1000.0 / agents.capacity_rows_per_s
    burst_txns = channel.batch_msgs(flow, point) / g.msgs_per_target_txn
    return burst_wait(burst_txns, per_txn_ms, agents.utilisation, flow.apply_memory_txns)


def apply_latency_ms(flow, stages: dict, point) -> float:
    """APPLY_LATENCY (ms): from the MQGET of a transaction's first message to the target commit."""
    agents = stages["qapply_agents"]
    in_memory_ms, _ = burst_wait_ms(flow, stages, point)
    chain_ms = apply_parallel.chain_wait_services(flow.dependent, flow.apply_memory_txns) * agents.service_ms
    return agents.latency_ms + chain_ms + in_memory_ms
