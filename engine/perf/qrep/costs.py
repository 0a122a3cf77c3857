"""Service demands that do not depend on the throughput: CPU per row, per message and per commit.

All CPU figures are microseconds on one processor of the reference CPU model
(see :mod:`engine.perf.qrep.coefficients`). :func:`static_demands` gathers them for one flow
so the fixed-point solver (:mod:`engine.perf.qrep.pipeline`) only adds what depends on the
rate (messages per MQ commit, CPU contention).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.perf.qrep.channel import channel_work
from engine.perf.qrep.geometry import Geometry
from engine.perf.qrep.inputs import QrepInputs


@dataclass(frozen=True)
class StaticDemands:
    """Rate-independent demands of one flow (reference-CPU microseconds unless stated).

    Attributes
    ----------
    source_row_us : float
        Application CPU per changed row at the source (SQL, its share of the commit,
        peer-to-peer triggers).
    capture_reader_row_us : float
        Q Capture log reader thread per row: log records read (data and index records),
        recursion filtering of applied rows, spilling.
    capture_worker_row_us : float
        Q Capture worker thread per row: column decode, transaction assembly, message
        building.
    put_cpu_us, commit_cpu_us : float
        CPU of one MQPUT and one MQCMIT issued by Q Capture.
    capture_mq_other_msg_us : float
        Queue manager and channel initiator CPU per message on the capture side.
    apply_db2_row_us : float
        Db2 SQL CPU per applied row (runs under the agent; class 2 CPU), including
        peer-to-peer triggers and the per-transaction recursion-avoidance record of
        bidirectional and peer-to-peer flows.
    apply_agent_row_us : float
        Q Apply agent CPU per row outside Db2.
    browser_msg_us : float
        Browser CPU per message (browse MQGET, parsing, dependency analysis of its rows
        and transactions).
    get_cpu_us : float
        CPU of one destructive MQGET by Q Apply.
    apply_commit_us : float
        Db2 commit CPU per target transaction.
    apply_mq_other_msg_us : float
        Queue manager and channel initiator CPU per message on the apply side.
    apply_other_row_us : float
        Other apply-LPAR CPU per row (Db2 logging and writes).
    class2_wait_ms : float
        Non-CPU part of Db2 class 2 elapsed per target transaction (log force, I/O,
        p-locks, page-lock contention), ms.
    trigger_row_us : float
        Peer-to-peer version-maintenance trigger CPU per changed row.
    recursion_row_us : float
        Q Capture CPU to read and discard one row applied by Q Apply (bidirectional and
        peer-to-peer): the log-read cost of a row.
    source_sql_row_us : float
        The workload's own CPU per changed row (``source_row_us`` without the triggers).
    apply_sql_row_us : float
        Db2 SQL CPU per applied row without the triggers and the recursion-avoidance record
        (``apply_db2_row_us`` is this plus ``trigger_row_us`` and ``recursion_txn_row_us``).
    recursion_txn_row_us : float
        Q Apply's record of each applied transaction (so that Q Capture does not capture it
        again), per row; part of ``apply_db2_row_us`` (bidirectional and peer-to-peer).
    channel_send_us, channel_receive_us : float
        Channel initiator CPU per message for compression and TLS on the sending and the
        receiving side (:mod:`engine.perf.qrep.channel`); included in the MQ CPU per
        message of each side.
    wire_fraction : float
        Share of the message bytes crossing the network (below 1 with compression).
    """

    source_row_us: float
    capture_reader_row_us: float
    capture_worker_row_us: float
    put_cpu_us: float
    commit_cpu_us: float
    capture_mq_other_msg_us: float
    apply_db2_row_us: float
    apply_agent_row_us: float
    browser_msg_us: float
    get_cpu_us: float
    apply_commit_us: float
    apply_mq_other_msg_us: float
    apply_other_row_us: float
    class2_wait_ms: float
    trigger_row_us: float
    recursion_row_us: float
    spill_row_us: float
    capture_log_bytes_per_msg: float
    apply_log_bytes_per_msg: float
    chinit_msg_us: float
    channel_send_us: float = 0.0
    channel_receive_us: float = 0.0
    wire_fraction: float = 1.0
    recursion_txn_row_us: float = 0.0
    source_sql_row_us: float = 0.0
    apply_sql_row_us: float = 0.0
    browse_get_cpu_us: float = 0.0
    apply_channel_msg_us: float = 0.0


def parallel_agents(inputs: QrepInputs) -> int:
    """Agents that can work at once: NUM_APPLY_AGENTS, limited by MAXAGENTS_CORRELID per job.

    Transactions of one correlation id (one job of a closed workload) may use at most
    MAXAGENTS_CORRELID agents (0: no limit). With an offered rate the correlation ids are not
    known and the limit is not applied (the engine reports the setting as ignored).
    """
    agents = inputs.num_apply_agents
    if inputs.maxagents_correlid and inputs.jobs:
        agents = min(agents, inputs.maxagents_correlid * inputs.jobs)
    return agents


def dependent_share(inputs: QrepInputs, g: Geometry) -> float:
    """Share of target transactions that must wait for an earlier one (Q Apply serialisation).

    ``workload.dependent_txn_pct`` of source transactions change a row or unique-key value an
    earlier transaction still in flight changed (seed 000, 2.1 item 3 and 3.4); a target
    transaction grouping ``n`` source transactions (TRANS_BATCH_SZ, COMMIT_COUNT) depends on
    another when any of them does: ``1 - (1 - p) ** n``.
    """
    p = inputs.dependent_txn_pct / 100.0
    if p <= 0.0:
        return 0.0
    n = max(g.rows_per_target_txn / inputs.rows_per_txn, 1.0)
    return 1.0 - (1.0 - p) ** n


def op_weight(inputs: QrepInputs, c) -> float:
    """Mean relative Db2 cost of a changed row over the insert/update/delete mix."""
    return inputs.insert_frac + inputs.update_frac * c.update_weight + inputs.delete_frac * c.delete_weight


def static_demands(inputs: QrepInputs, g: Geometry, c) -> StaticDemands:
    """Gather the rate-independent demands of one flow.

    Parameters
    ----------
    inputs : QrepInputs
    g : Geometry
        Message layout from :func:`engine.perf.qrep.geometry.message_geometry`.
    c : Coefficients
    """
    rows_txn = inputs.rows_per_txn
    rpm = g.rows_per_msg
    kb = g.msg_kb
    uix = float(inputs.unique_indexes)
    opw = op_weight(inputs, c)
    persistent = 1.0 if inputs.persistent else 0.0
    api_trace = 1.0 + c.mq_trace_factor * (1.0 if inputs.global_trace else 0.0)
    chinit_trace = 1.0 + c.chinit_trace_factor * (1.0 if inputs.chinit_trace else 0.0)
    p2p = inputs.topology == "peer-to-peer"
    two_way = inputs.topology != "unidirectional"
    # a private queue's buffer-pool page handling, or a coupling-facility request for a shared queue
    queue_op_us = c.cf_cpu_us if inputs.shared_queue else c.bp_mgmt_us
    short_msg_scan = c.short_msg_scan_us if inputs.maxshortmsgs != -1 and g.msg_bytes < 4096 else 0.0

    trigger = c.trigger_us if p2p else 0.0
    source_sql = c.src_row_us * opw + c.src_txn_us / rows_txn
    source_row = source_sql + trigger

    # Q Capture: a transaction too big for MEMORY_LIMIT spills to a file and is read back
    spill = 0.0
    if g.txn_bytes * c.capture_memory_expansion > inputs.capture_memory_limit_mb * 1048576.0:
        spill = c.cap_spill_kb_us * g.bytes_per_row / 1000.0
    # recursion avoidance: Q Capture reads and discards the log records of every applied row;
    # Q Apply records each applied transaction so that it is not captured again
    recursion = (c.cap_row_us + c.cap_index_us * uix) if two_way else 0.0
    recursion_txn = c.recursion_txn_us / rows_txn if two_way else 0.0
    reader_row = c.cap_row_us + c.cap_index_us * uix + recursion + spill
    worker_row = (
        c.cap_col_us * g.column_weight
        + c.cap_byte_us * g.bytes_per_row
        + c.cap_txn_us / rows_txn
        + c.cap_msg_us / rpm
    )
    put_cpu = (
        (c.mq_put_us + c.mq_put_kb_us * kb + persistent * c.mq_log_kb_us * kb) * api_trace
        + queue_op_us
        + (c.security_us if inputs.security else 0.0)
    )
    commit_cpu = c.mq_commit_us * api_trace
    checkpoint_msg_us = c.checkpoint_ms * 1000.0 * 2.0 / inputs.logload  # ~2 log records per message
    chinit_msg = (c.chinit_msg_us + c.chinit_seg_us * g.segments_per_msg) * chinit_trace
    capture_log_bytes = persistent * c.log_factor_capture * g.msg_bytes
    apply_log_bytes = persistent * c.log_factor_apply * g.msg_bytes
    cw = channel_work(inputs, g.msg_bytes, c)
    cap_mq_other = (
        chinit_msg
        + cw.send_us
        + queue_op_us
        + short_msg_scan
        + checkpoint_msg_us
        + c.mstr_log_kb_us * capture_log_bytes / 1000.0
    )
    app_mq_other = (
        chinit_msg
        + cw.receive_us
        + queue_op_us
        + short_msg_scan
        + checkpoint_msg_us
        + c.mstr_log_kb_us * apply_log_bytes / 1000.0
    )

    agents = parallel_agents(inputs)
    a_row = (
        c.app_row_us * opw
        + c.app_col_us * g.column_weight
        + c.app_byte_us * g.bytes_per_row
        + c.app_index_us * uix
    )
    apply_sql = c.db2_share * a_row
    db2_row = apply_sql + trigger + recursion_txn
    agent_row = (1.0 - c.db2_share) * a_row
    get_browse = (c.mq_get_us + c.mq_get_kb_us * kb) * api_trace + short_msg_scan
    get_destructive = get_browse + persistent * c.mq_get_persistent_us * api_trace + queue_op_us
    browser_msg = (
        get_browse
        + c.app_msg_us
        + rpm * (c.brw_row_us + c.brw_index_us * uix)
        + g.txns_per_msg * c.app_txn_us
    )

    rows_tgt = g.rows_per_target_txn
    class2_wait = (
        c.class2_commit_ms + rows_tgt * (c.class2_row_wait_us + c.class2_index_wait_us * uix) / 1000.0
    )
    if inputs.locking == "page" and agents > 1:
        class2_wait += rows_tgt * c.page_lock_wait_us / 1000.0 * (1.0 - 1.0 / agents)
    return StaticDemands(
        source_row_us=source_row,
        capture_reader_row_us=reader_row,
        capture_worker_row_us=worker_row,
        put_cpu_us=put_cpu,
        commit_cpu_us=commit_cpu,
        capture_mq_other_msg_us=cap_mq_other,
        apply_db2_row_us=db2_row,
        apply_agent_row_us=agent_row,
        browser_msg_us=browser_msg,
        get_cpu_us=get_destructive,
        apply_commit_us=c.app_commit_us,
        apply_mq_other_msg_us=app_mq_other,
        apply_other_row_us=c.app_other_row_us,
        class2_wait_ms=class2_wait,
        trigger_row_us=trigger,
        recursion_row_us=recursion,
        spill_row_us=spill,
        capture_log_bytes_per_msg=capture_log_bytes,
        apply_log_bytes_per_msg=apply_log_bytes,
        chinit_msg_us=chinit_msg,
        channel_send_us=cw.send_us,
        channel_receive_us=cw.receive_us,
        wire_fraction=cw.wire_fraction,
        recursion_txn_row_us=recursion_txn,
        source_sql_row_us=source_sql,
        apply_sql_row_us=apply_sql,
        browse_get_cpu_us=get_browse,
        apply_channel_msg_us=chinit_msg + cw.receive_us,
    )
