"""The metric catalogue: what each output metric is called, in which unit, and which way is better.

Every view (Results, Sweep, Compare, Simulation, Monitor), the report, the CLI and the
compare colouring look a metric up here instead of showing the engine's key
(``apply_rows_per_s``). A metric that is a column of IBM's monitor tables
(IBMQREP_CAPMON, IBMQREP_CAPQMON, IBMQREP_APPLYMON) or a figure the seeds' reports
name is labelled with IBM's name (``END2END_LATENCY``); the others get a plain label.
Values are shown in a unit that suits their magnitude (:func:`display_value`: a latency
of 1.2e6 ms reads ``20 min``).

Per-system (``system1_...``), per-event (``event1_...``), percentile (``..._p95_ms``) and
per-stage utilisation (``{stage}_utilisation_pct``) metrics are derived from their base
entry. Every metric an engine emits has an entry; a name the catalogue does not know (a column
of an imported monitor table) is shown with a label made from its key, no unit and no direction.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.metrics.stages import stage_label


@dataclass(frozen=True)
class MetricInfo:
    """One output metric as a user reads it.

    Attributes
    ----------
    name : str
        The engine's key (``end2end_latency_ms``).
    label : str
        What views print: IBM's column or report name where there is one (``END2END_LATENCY``),
        else a plain description (``Apply CPU per row``).
    unit : str
        The unit of the engine's value (``ms``, ``rows/s``, ``us/row``, ``%``).
    better : int
        ``+1`` when a rise is an improvement, ``-1`` when it is a deterioration, ``0`` neither.
    group : str
        ``throughput``, ``latency``, ``cpu``, ``utilisation``, ``mq``, ``storage``, ``backlog``,
        ``time``, ``workload`` or ``other``; views group and order rows by it.
    source : str
        Where IBM names it: ``IBMQREP_APPLYMON.END2END_LATENCY``, a report's figure, or "".
    description : str
        One line for tooltips.
    """

    name: str
    label: str
    unit: str
    better: int
    group: str
    source: str = ""
    description: str = ""


APPLYMON, CAPMON, CAPQMON = "IBMQREP_APPLYMON", "IBMQREP_CAPMON", "IBMQREP_CAPQMON"
_UP, _DOWN, _NONE = 1, -1, 0

# name: (label, unit, better, group, source, description)
_ENTRIES = {
    # Q Replication throughput and latency (monitor columns)
    "apply_rows_per_s": (
        "ROWS_APPLIED",
        "rows/s",
        _UP,
        "throughput",
        f"{APPLYMON}.ROWS_APPLIED",
        "Rows Q Apply applies per second",
    ),
    "capture_rows_per_s": (
        "ROWS_PROCESSED",
        "rows/s",
        _UP,
        "throughput",
        f"{CAPMON}.ROWS_PROCESSED",
        "Rows Q Capture reads from the log and publishes per second",
    ),
    "tps": (
        "TRANS_PUBLISHED",
        "txns/s",
        _UP,
        "throughput",
        f"{CAPQMON}.TRANS_PUBLISHED",
        "Transactions Q Capture publishes per second",
    ),
    "channel_msgs_per_s": (
        "MQ_MESSAGES",
        "msgs/s",
        _UP,
        "mq",
        f"{CAPQMON}.MQ_MESSAGES",
        "MQ messages Q Capture puts per second",
    ),
    "channel_mb_per_s": (
        "MQ_BYTES",
        "MB/s",
        _UP,
        "mq",
        f"{CAPQMON}.MQ_BYTES",
        "MQ message bytes Q Capture puts per second (1 MB = 10^6 bytes)",
    ),
    "apply_mb_per_s": (
        "Q Apply message bytes",
        "MB/s",
        _UP,
        "throughput",
        "",
        "MQ message bytes Q Apply gets per second, beside ROWS_APPLIED (1 MB = 10^6 bytes)",
    ),
    "end2end_latency_ms": (
        "END2END_LATENCY",
        "ms",
        _DOWN,
        "latency",
        f"{APPLYMON}.END2END_LATENCY",
        "Source commit to target commit",
    ),
    "capture_latency_ms": (
        "CAPTURE_LATENCY",
        "ms",
        _DOWN,
        "latency",
        f"{APPLYMON}.CAPTURE_LATENCY",
        "Source commit to the MQ put commit of Q Capture",
    ),
    "qlatency_ms": (
        "QLATENCY",
        "ms",
        _DOWN,
        "latency",
        f"{APPLYMON}.QLATENCY",
        "MQ put commit to the get of Q Apply",
    ),
    "apply_latency_ms": (
        "APPLY_LATENCY",
        "ms",
        _DOWN,
        "latency",
        f"{APPLYMON}.APPLY_LATENCY",
        "Get of Q Apply to the target commit",
    ),
    "msg_size_kb": (
        "Message size",
        "KB",
        _NONE,
        "mq",
        "Redpaper, 4.3 TRANS_BATCH_SZ",
        "Average MQ message size; 32-256 KB is the sweet spot",
    ),
    "rows_per_msg": ("Rows per message", "rows", _NONE, "mq", "", "Rows carried by one MQ message"),
    "msgs_per_mq_commit": (
        "Messages per MQ commit",
        "msgs",
        _NONE,
        "mq",
        "",
        "Messages Q Capture commits at once",
    ),
    "queue_depth_msgs": (
        "Modelled queue depth",
        "msgs",
        _NONE,
        "mq",
        "",
        "Depth the engine takes the transmit and the receive queue to hold at steady state (two of "
        "Q Capture's MQ commits); messages beyond a queue's memory (buffer pool, queue buffer) are read back",
    ),
    "capture_mq_log_mb_per_s": ("MQ log rate, capture side", "MB/s", _NONE, "mq", "", "1 MB = 10^6 bytes"),
    "apply_mq_log_mb_per_s": ("MQ log rate, apply side", "MB/s", _NONE, "mq", "", "1 MB = 10^6 bytes"),
    "zos_qmgr_cpu_us_per_msg": (
        "z/OS queue manager CPU",
        "us/msg",
        _DOWN,
        "cpu",
        "",
        "CP microseconds per message of the z/OS queue managers' MQ calls, buffer pools and logs (MSTR), "
        "including the MQGETs a client Q Apply runs there",
    ),
    "zos_chinit_cpu_us_per_msg": (
        "z/OS channel initiator CPU",
        "us/msg",
        _DOWN,
        "cpu",
        "",
        "CP microseconds per message of the z/OS channel initiators: sender and receiver channels and a "
        "client's SVRCONN channel instance",
    ),
    "zos_mq_cpu_us_per_msg": (
        "z/OS MQ CPU",
        "us/msg",
        _DOWN,
        "cpu",
        "",
        "Queue manager and channel initiator CP microseconds per message on z/OS (0 when no queue manager runs there)",
    ),
    "capture_mqput_us": (
        "MQPUT time",
        "us",
        _DOWN,
        "mq",
        "MQ accounting (class 3)",
        "Elapsed time of one MQPUT",
    ),
    "capture_mqcommit_us": (
        "MQCMIT time",
        "us",
        _DOWN,
        "mq",
        "MQ accounting (class 3)",
        "Elapsed time of one MQ commit of Q Capture",
    ),
    "apply_mqget_us": (
        "MQGET time",
        "us",
        _DOWN,
        "mq",
        "MQ accounting (class 3)",
        "Elapsed time of one MQGET",
    ),
    "apply_db2_class2_ms": (
        "Db2 class 2 elapsed, Q Apply",
        "ms",
        _DOWN,
        "latency",
        "Db2 accounting class 2",
        "Db2 time of one applied transaction",
    ),
    "source_response_time_ms": ("Source transaction response time", "ms", _DOWN, "latency", "", ""),
    # CPU
    "capture_cpu_us_per_row": ("Q Capture CPU per row", "us/row", _DOWN, "cpu", "Redpaper, CPU per row", ""),
    "apply_cpu_us_per_row": ("Q Apply CPU per row", "us/row", _DOWN, "cpu", "Redpaper, CPU per row", ""),
    "source_cpu_us_per_row": ("Source workload CPU per row", "us/row", _DOWN, "cpu", "", ""),
    "total_cpu_us_per_row": ("Total CPU per row", "us/row", _DOWN, "cpu", "", "Source, capture and apply"),
    "replication_cpu_us_per_row": ("Replication CPU per row", "us/row", _DOWN, "cpu", "", ""),
    "trigger_cpu_us_per_row": ("Trigger CPU per row", "us/row", _DOWN, "cpu", "", ""),
    "recursion_cpu_us_per_row": ("Recursion avoidance CPU per row", "us/row", _DOWN, "cpu", "", ""),
    "cpu_us_per_row": ("CPU per row", "us/row", _DOWN, "cpu", "", ""),
    "source_lpar_busy_pct": ("Source LPAR busy", "%", _DOWN, "cpu", "RMF CPU activity", ""),
    "capture_lpar_busy_pct": ("Capture LPAR busy", "%", _DOWN, "cpu", "RMF CPU activity", ""),
    "apply_lpar_busy_pct": ("Apply LPAR busy", "%", _DOWN, "cpu", "RMF CPU activity", ""),
    "lpar_busy_pct": ("LPAR busy", "%", _DOWN, "cpu", "", ""),
    "busiest_lpar_busy_pct": ("Busiest LPAR busy", "%", _DOWN, "cpu", "", ""),
    "applied_rows_per_s": ("Rows applied", "rows/s", _UP, "throughput", "", ""),
    "originated_rows_per_s": ("Rows originated", "rows/s", _UP, "throughput", "", ""),
    # Db2 Mirror
    "throughput": ("Throughput", "ops/s", _UP, "throughput", "Db2 Mirror paper, case studies", ""),
    "response_time_ms": ("Response time", "ms", _DOWN, "latency", "Db2 Mirror paper, case studies", ""),
    "response_time_change_pct": ("Response time change vs unmirrored", "%", _DOWN, "latency", "", ""),
    "throughput_change_pct": ("Throughput change vs unmirrored", "%", _UP, "throughput", "", ""),
    "runtime_change_pct": ("Run time change vs unmirrored", "%", _DOWN, "time", "", ""),
    "cpu_change_pct": ("CPU change vs unmirrored", "%", _DOWN, "cpu", "", ""),
    "source_cpu_pct": ("Primary node CPU busy", "%", _DOWN, "cpu", "", ""),
    "target_cpu_pct": ("Secondary node CPU busy", "%", _DOWN, "cpu", "", ""),
    # MQ mover
    "transfer_mb_per_s": (
        "Transfer rate",
        "MiB/s",
        _UP,
        "throughput",
        "SupportPac MP1J",
        "1 MiB = 2^20 bytes",
    ),
    "elapsed_s": ("Elapsed time", "s", _DOWN, "time", "", ""),
    "backlog_msgs": ("Backlog", "messages", _DOWN, "backlog", "", "Messages waiting on the transmit queue"),
    "peak_depth": ("Peak queue depth", "messages", _DOWN, "backlog", "", ""),
    "buffpool_buffers": ("BUFFPOOL", "4 KB buffers", _NONE, "storage", "MQ DEFINE BUFFPOOL", ""),
    "buffers_to_hold_backlog": ("BUFFPOOL to hold the backlog", "4 KB buffers", _NONE, "storage", "", ""),
    "buffers_to_hold_all_msgs": ("BUFFPOOL to hold every message", "4 KB buffers", _NONE, "storage", "", ""),
    "pageset_get_fraction": (
        "Gets from the page set",
        "share of gets",
        _DOWN,
        "mq",
        "",
        "Share of MQGETs read from the page set",
    ),
    # simulation
    "throughput_rows_per_s": ("Rows applied (simulated)", "rows/s", _UP, "throughput", "", ""),
    "offered_rows_per_s": ("Offered rate", "rows/s", _NONE, "workload", "", ""),
    "predicted_rows_per_s": (
        "Steady-state rate (engine)",
        "rows/s",
        _UP,
        "throughput",
        "",
        "What the steady-state engine predicts at the offered rate",
    ),
    "peak_backlog_rows": ("Peak backlog", "rows", _DOWN, "backlog", "", ""),
    "peak_xmitq_depth_msgs": ("Peak transmit queue depth", "messages", _DOWN, "backlog", "", ""),
    "peak_recvq_depth_msgs": ("Peak receive queue depth", "messages", _DOWN, "backlog", "", ""),
    "xmitq_buffer_msgs": (
        "Transmit queue buffer pool",
        "messages",
        _NONE,
        "backlog",
        "",
        "Messages the transmit queue's buffer pool holds; beyond them the queue is on its page set",
    ),
    "pageset_msgs": ("Messages cast out to the page set", "messages", _DOWN, "backlog", "", ""),
    "recvq_pageset_msgs": ("Receive queue messages on the page set", "messages", _DOWN, "backlog", "", ""),
    "mem_full_time_s": ("Time with Q Capture memory full", "s", _DOWN, "time", "", ""),
    "in_flight_drain_s": (
        "Time to apply everything in flight",
        "s",
        _DOWN,
        "time",
        "",
        "After the source stops: the recovery time of a planned switch-over",
    ),
    "catch_up_s": ("Catch-up time", "s", _DOWN, "time", "", "From the end of the event to the backlog gone"),
    "peak_backlog_msgs": ("Peak backlog", "messages", _DOWN, "backlog", "", ""),
    "rows_in_flight_at_end": ("Rows in flight at the end", "rows", _DOWN, "backlog", "", ""),
    "duration_s": ("Simulated time", "s", _NONE, "time", "", ""),
    # a simulated Db2 Mirror pair (engine.sim.mirror)
    "changes_per_s": (
        "Mirrored changes",
        "changes/s",
        _NONE,
        "throughput",
        "",
        "Changes the source node makes",
    ),
    "resync_changes_per_s": (
        "Resynchronisation rate",
        "changes/s",
        _UP,
        "throughput",
        "",
        "Tracked changes sent to the secondary node after a suspend",
    ),
    "peak_tracked_changes": (
        "Peak tracked changes",
        "changes",
        _DOWN,
        "backlog",
        "",
        "Changes tracked while Db2 Mirror was suspended, waiting for resynchronisation",
    ),
    "tracked_changes_at_end": ("Tracked changes at the end", "changes", _DOWN, "backlog", "", ""),
    # shared queues, catch-up and the SQL Replication comparison (engine.perf.qrep topology modules)
    "cf_cpu_pct": ("Coupling facility CPU busy", "%", _DOWN, "cpu", "", "CF processors' busy share"),
    "cf_cpu_us_per_row": ("Coupling facility CPU per row", "us/row", _DOWN, "cpu", "", ""),
    "cf_structure_used_pct": ("CF structure usage", "%", _DOWN, "storage", "MQ DISPLAY CFSTATUS", ""),
    "offloaded_msgs_pct": ("Messages offloaded (SMDS or Db2)", "%", _DOWN, "mq", "", ""),
    "smds_ios_per_s": ("SMDS I/Os", "I/Os/s", _DOWN, "mq", "", "Shared message data set reads and writes"),
    "cf_held_back_msgs": ("Messages held back, CF full", "messages", _DOWN, "backlog", "MQRC 2192", ""),
    "cf_structure_peak_used_pct": (
        "CF structure peak usage",
        "%",
        _DOWN,
        "storage",
        "MQ DISPLAY CFSTATUS",
        "Most of the structure's real storage in use during the catch-up",
    ),
    "cf_scm_peak_mb": (
        "Peak SCM in use",
        "MB",
        _DOWN,
        "storage",
        "",
        "Storage-class memory holding the structure's entries (from 90% usage on); 1 MB = 2^20 bytes",
    ),
    "cf_offloaded_msgs": (
        "Messages offloaded (SMDS or Db2)",
        "messages",
        _DOWN,
        "mq",
        "",
        "Messages the OFFLDnTH / OFFLDnSZ rules (or the 63 KB limit) sent to SMDS or Db2 at their put",
    ),
    "cf_put_failures": (
        "Puts failing, CF structure full",
        "MQPUTs",
        _DOWN,
        "mq",
        "MQRC 2192",
        "MQRC_STORAGE_MEDIUM_FULL: Q Capture waits QFULL_RETRY_DELAY and puts again",
    ),
    "cf_full_s": ("Time the CF structure is full", "s", _DOWN, "time", "MQRC 2192", ""),
    "ooo_msgs_passed_per_msg": (
        "Messages passed to find the next in sequence",
        "messages",
        _DOWN,
        "mq",
        "",
        "With parallel send queues, messages Q Apply's browser looks past per message (out-of-order arrival)",
    ),
    "ooo_gap_wait_ms": (
        "Wait for messages on the other send queues",
        "ms",
        _DOWN,
        "latency",
        "",
        "With parallel send queues, mean wait of a message for its predecessors (part of QLATENCY)",
    ),
    "ooo_browse_us_per_msg": (
        "Browser time per message, out-of-order arrival",
        "us",
        _DOWN,
        "time",
        "",
        "Extra Q Apply browser time per message searching the receive queue for the next in sequence",
    ),
    "cf_capture_wait_ms": (
        "Capture wait, CF structure full",
        "ms",
        _DOWN,
        "latency",
        "",
        "Mean time a message waits in the Db2 log while Q Capture retries its put (part of CAPTURE_LATENCY)",
    ),
    "cf_full_after_s": (
        "CF structure full after",
        "s",
        _UP,
        "time",
        "MQRC 2192",
        "From the start of the catch-up until puts first fail",
    ),
    "qcapture_stopped_s": (
        "Q Capture stopped, QFULL_NUM_RETRIES used up",
        "s",
        _UP,
        "time",
        "MQRC 2192",
        "When a put found the CF structure still full after QFULL_NUM_RETRIES retries QFULL_RETRY_DELAY "
        "apart: Q Capture takes the send queue's ERROR_ACTION and replication stops",
    ),
    "initial_backlog_rows": ("Backlog at the start", "rows", _DOWN, "backlog", "", ""),
    "catch_up_capture_s": (
        "Catch-up: capture finishes",
        "s",
        _DOWN,
        "time",
        "",
        "Time Q Capture takes to capture the payload",
    ),
    "catch_up_apply_s": (
        "Catch-up: Q Apply finishes",
        "s",
        _DOWN,
        "time",
        "",
        "Time until Q Apply has applied the initial backlog and the payload",
    ),
    "catch_up_peak_depth_msgs": (
        "Catch-up: deepest receive queue",
        "messages",
        _DOWN,
        "backlog",
        "",
        "Receive queue depth when capture outruns Q Apply most (at the end of capture), else the initial backlog",
    ),
    "catch_up_wait_ms": ("Wait behind the backlog (catch-up)", "ms", _DOWN, "latency", "", ""),
    "source_db2_log_mb_per_s": ("Source Db2 log writes", "MB/s", _DOWN, "storage", "", "1 MB = 10^6 bytes"),
    "sql_max_rows_per_s": ("SQL Replication maximum", "rows/s", _UP, "throughput", "", ""),
    "qrep_max_rows_per_s": ("Q Replication maximum", "rows/s", _UP, "throughput", "", ""),
    "qrep_to_sql_throughput_ratio": ("Q / SQL Replication most rows/s", "x", _UP, "throughput", "", ""),
    # MQ mover: the costs of one message per task (seed 003's MQ V8 measurements) and the pool's sizes
    "putter_cpu_us_per_msg": ("Putter CPU per message", "us", _DOWN, "cpu", "", "MQPUT and MQCMIT CPU"),
    "putter_elapsed_us_per_msg": ("Putter elapsed per message", "us", _DOWN, "time", "", ""),
    "adaptor_cpu_us_per_msg": ("Channel adaptor CPU per message", "us", _DOWN, "cpu", "", "The MQGET"),
    "adaptor_elapsed_us_per_msg": ("Channel adaptor elapsed per message", "us", _DOWN, "time", "", ""),
    "dispatcher_cpu_us_per_msg": ("Channel dispatcher CPU per message", "us", _DOWN, "cpu", "", ""),
    "dispatcher_elapsed_us_per_msg": ("Channel dispatcher elapsed per message", "us", _DOWN, "time", "", ""),
    "dwp_cpu_us_per_msg": ("DWP CPU per message", "us", _DOWN, "cpu", "", "The deferred write processor"),
    "total_cpu_us_per_msg": ("Total CPU per message", "us", _DOWN, "cpu", "", "Every task's CPU"),
    "total_elapsed_us_per_msg": ("Total elapsed per message", "us", _DOWN, "time", "", ""),
    "putter_done_s": ("Putter finished after", "s", _DOWN, "time", "", ""),
    "backlog_depth_msgs": ("Standing backlog depth", "messages", _DOWN, "backlog", "", ""),
    "get_rate_from_bufferpool_msgs_per_s": (
        "Get rate from the buffer pool",
        "msgs/s",
        _UP,
        "throughput",
        "",
        "",
    ),
    "get_rate_from_pageset_msgs_per_s": ("Get rate from the page set", "msgs/s", _UP, "throughput", "", ""),
    "capacity_msgs": ("Messages the buffer pool holds", "messages", _UP, "storage", "", ""),
    "dwp_start_depth_msgs": ("Depth at which the DWP starts", "messages", _UP, "storage", "", ""),
    "pages_per_msg": ("Pages per message", "4 KB pages", _NONE, "mq", "", ""),
    "storage_per_connection_kb": ("Queue manager storage per connection", "KB", _DOWN, "storage", "", ""),
    "csa_per_connection_kb": ("CSA per connection", "KB", _DOWN, "storage", "", ""),
    "channel_storage_kb": ("Channel initiator storage for the messages", "KB", _DOWN, "storage", "", ""),
    # DB2 V8 migration (engine.perf.db2v8): DBM1 storage below the 2 GB bar
    "relief_mb": (
        "DBM1 storage relief",
        "MB",
        _UP,
        "storage",
        "",
        "DBM1 storage V7 used that V8 frees (Db2 storage MB: 1 MB = 2^20 bytes)",
    ),
    "relief_pct": ("DBM1 storage relief, share of V7", "%", _UP, "storage", "", ""),
    "v7_total_mb": ("V7 DBM1 storage below the bar", "MB", _DOWN, "storage", "", "1 MB = 2^20 bytes"),
    "v8_estimated_total_mb": (
        "V8 DBM1 storage below the bar",
        "MB",
        _DOWN,
        "storage",
        "",
        "The estimate (1 MB = 2^20 bytes)",
    ),
    "dbm1_region_mb": (
        "DBM1 region",
        "MB",
        _NONE,
        "storage",
        "",
        "The extended region, else the 2 GB bar (1 MB = 2^20 bytes)",
    ),
    "v7_headroom_mb": ("V7 headroom below the bar", "MB", _UP, "storage", "", "1 MB = 2^20 bytes"),
    "v8_headroom_mb": ("V8 headroom below the bar", "MB", _UP, "storage", "", "1 MB = 2^20 bytes"),
    "v8_cpu_change_low_pct": (
        "V8 CPU change, low end",
        "%",
        _DOWN,
        "cpu",
        "",
        "Against V7, by workload type",
    ),
    "v8_cpu_change_high_pct": (
        "V8 CPU change, high end",
        "%",
        _DOWN,
        "cpu",
        "",
        "Against V7, by workload type",
    ),
    "v8_db2_cpu_ms_per_txn": ("V8 Db2 CPU per transaction", "ms", _DOWN, "cpu", "", ""),
    "catalog_migration_min": ("Catalog migration time", "min", _DOWN, "time", "", ""),
}

#: The parts of DBM1 storage below the 2 GB bar, as the DB2 V8 seed's "Customer 1" table names them.
DBM1_PARTS = {
    "virtual_pool": "Virtual pool",
    "buffer_control_block": "Buffer control block",
    "dataspace_lookaside_buffer": "Dataspace lookaside buffer",
    "castout_buffer": "Castout buffer",
    "edm_pool": "EDM pool",
    "compression_dictionary": "Compression dictionary",
    "system_agents": "System agents",
    "user_threads": "User threads",
    "rds_op_pool": "RDS OP pool",
    "rid_pool": "RID pool",
    "dsc_control_block": "DSC control block",
    "trace_table": "Trace table",
    "stack_storage": "Stack storage",
    "local_dynamic_statement_cache": "Local dynamic statement cache",
    "local_dsc": "Local dynamic statement cache",
    "dynamic_statement_cache": "Local dynamic statement cache",
}

#: Entries that differ by engine kind: a Db2 Mirror pair's transactions are the application's,
#: not the transactions Q Capture publishes (TRANS_PUBLISHED).
_KIND_ENTRIES = {
    "db2mirror": {
        "tps": (
            "Transactions",
            "txn/s",
            _UP,
            "throughput",
            "",
            "Application transactions per second the mirrored node pair completes",
        ),
    },
}

#: The latency columns of IBMQREP_APPLYMON and the engine's metric each one measures (ms).
APPLYMON_LATENCIES = {
    "END2END_LATENCY": "end2end_latency_ms",
    "QLATENCY": "qlatency_ms",
    "APPLY_LATENCY": "apply_latency_ms",
    "CAPTURE_LATENCY": "capture_latency_ms",
}

_SYSTEM = re.compile(r"^system(\d+)_(.+)$")
_SQL = re.compile(r"^(sql)_(.+)$")
_EVENT = re.compile(r"^event(\d+)_(.+)$")
_PERCENTILE = re.compile(r"^(.+)_(p\d+)_ms$")
_UTILISATION = re.compile(r"^(.+)_utilisation_pct$")
_DBM1_PART = re.compile(r"^v8_(.+)_mb$")


#: Words of a metric key that IBM writes in capitals (Db2 storage pools, MQ and z/OS names).
_ACRONYMS = frozenset(
    {
        "cpu",
        "v7",
        "v8",
        "dbm1",
        "edm",
        "rds",
        "op",
        "rid",
        "dsc",
        "csa",
        "dwp",
        "mq",
        "cf",
        "smds",
        "ssl",
        "rba",
    }
)


def _plain(name: str) -> str:
    """A label made from a key the catalogue does not know (``buffer_pool_id`` -> ``Buffer pool id``)."""
    text = " ".join(w.upper() if w in _ACRONYMS else w for w in name.split("_"))
    return text[:1].upper() + text[1:]


def lookup(name: str, kind: str | None = None) -> MetricInfo | None:
    """The catalogue entry of ``name`` (derived for per-system, per-event, percentile, stage and DBM1
    part metrics), or None when the catalogue does not know it.

    Parameters
    ----------
    name : str
        An engine or simulation metric key.
    kind : str, optional
        The engine kind of the prediction (``qrep``, ``db2mirror``...), for a key whose meaning
        depends on it.

    Returns
    -------
    MetricInfo or None
    """
    if name in _KIND_ENTRIES.get(kind, {}):
        return MetricInfo(name, *_KIND_ENTRIES[kind][name])
    if name in _ENTRIES:
        return MetricInfo(name, *_ENTRIES[name])
    for pattern, prefix in ((_SYSTEM, "System {}: "), (_EVENT, "Event {}: "), (_SQL, "SQL Replication: ")):
        m = pattern.match(name)
        if m and lookup(m.group(2)) is not None:
            base = info(m.group(2))
            return MetricInfo(
                name,
                prefix.format(m.group(1)) + base.label,
                base.unit,
                base.better,
                base.group,
                base.source,
                base.description,
            )
    m = _PERCENTILE.match(name)
    if m and m.group(1) + "_ms" in _ENTRIES:
        base = info(m.group(1) + "_ms")
        return MetricInfo(
            name, f"{base.label} {m.group(2)}", "ms", base.better, base.group, base.source, base.description
        )
    m = _UTILISATION.match(name)
    if m:
        return MetricInfo(name, f"{stage_label(m.group(1))} utilisation", "%", _NONE, "utilisation", "", "")
    m = _DBM1_PART.match(name)
    if m and m.group(1) in DBM1_PARTS:
        return MetricInfo(
            name,
            f"V8 {DBM1_PARTS[m.group(1)]}",
            "MB",
            _DOWN,
            "storage",
            "",
            "Estimated for V8 (1 MB = 2^20 bytes)",
        )
    return None


def info(name: str, kind: str | None = None) -> MetricInfo:
    """The catalogue entry of ``name`` (:func:`lookup`); a name it does not know (a monitor column a
    view shows as read) is labelled with the key itself, without a unit or a better direction.

    Every metric an engine emits is in the catalogue (tests/engine/metrics/test_catalog_complete.py).
    """
    found = lookup(name, kind)
    return found if found is not None else MetricInfo(name, _plain(name), "", _NONE, "other")


def label(name: str, kind: str | None = None) -> str:
    """What a view prints for the metric ``name`` of an engine ``kind`` (IBM's column or report name
    where there is one)."""
    return info(name, kind).label


def better_direction(name: str) -> int:
    """``+1`` when a rise of ``name`` is an improvement, ``-1`` a deterioration, ``0`` neither."""
    return info(name).better


#: Scale ladders: (unit, how many of the previous unit make one of it, from this many on).
_LADDERS = (
    (("us", 1.0), ("ms", 1000.0), ("s", 1000.0), ("min", 60.0), ("h", 60.0)),
    (("bytes", 1.0), ("KB", 1024.0), ("MB", 1024.0), ("GB", 1024.0)),
)
_SWITCH_AT = {
    "us": 0,
    "ms": 1000.0,
    "s": 1000.0,
    "min": 120.0,
    "h": 120.0,
    "bytes": 0,
    "KB": 1024.0,
    "MB": 1024.0,
    "GB": 1024.0,
}


#: Metrics that are a share of a whole (processors busy, a structure used): never above 100 %.
_SHARE_PCT = frozenset(
    {"source_cpu_pct", "target_cpu_pct", "cf_cpu_pct", "cf_structure_used_pct", "offloaded_msgs_pct"}
)


def is_share_pct(name: str) -> bool:
    """True when metric ``name`` is a percentage of a whole, so 0..100 % (``apply_lpar_busy_pct``)."""
    m = _SYSTEM.match(name)
    plain = m.group(2) if m else name
    return plain in _SHARE_PCT or plain.endswith(("busy_pct", "_utilisation_pct"))


def display_scale(magnitude: float, unit: str) -> tuple[float, str]:
    """The factor and unit that show values of about ``magnitude`` ``unit`` readably.

    Times move up from us to ms, s, min and h (a step is taken from 1,000 ms, 1,000 s,
    120 s and 120 min on); sizes from bytes to KB, MB and GB. Other units stay.

    Parameters
    ----------
    magnitude : float
        The largest (absolute) value to show, in ``unit``.
    unit : str
        The unit the values are in.

    Returns
    -------
    factor : float
        Multiply a value in ``unit`` by it to get the display unit.
    display_unit : str
    """
    for ladder in _LADDERS:
        names = [u for u, _ in ladder]
        if unit not in names:
            continue
        i, factor, value = names.index(unit), 1.0, abs(magnitude)
        while i + 1 < len(ladder) and math.isfinite(value) and value >= _SWITCH_AT[names[i + 1]]:
            step = ladder[i + 1][1]
            value, factor, i = value / step, factor / step, i + 1
        return factor, names[i]
    return 1.0, unit


def display_value(value: float, unit: str) -> tuple[float, str]:
    """``value`` in ``unit`` converted to the unit that suits its magnitude (see :func:`display_scale`)."""
    factor, shown = display_scale(value, unit)
    return value * factor, shown


def format_number(value) -> str:
    """A number as every view of qrtune prints it: ``43,404``, ``146.5``, ``5.82``, ``0.123``, ``0.0042``.

    From 1,000 up a whole number with thousands separators; below it three or four significant
    digits with a fixed count of decimals per decade (one from 10, two from 1), so a column
    of values lines up. ``-`` for None or NaN (never shown as a value), ``unbounded`` for an
    infinite value (a stage without a limit, a queue that grows without bound); anything
    that is not a number as ``str``.
    """
    if value is None:
        return "-"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if math.isnan(value):
        return "-"
    if math.isinf(value):
        return "unbounded" if value > 0 else "-unbounded"
    a = abs(value)
    if 1000 <= a < 1e15:
        return f"{value:,.0f}"
    if 10 <= a < 1000:
        return f"{value:.1f}"
    if 1 <= a < 10:
        return f"{value:.2f}"
    if 1e-4 <= a < 1 or a == 0:
        return f"{value:.3g}"
    return f"{value:.2e}"


def format_value(value) -> str:
    """A number or setting as printed in a report (``43,400``, ``3.21``, ``yes``, ``INTEGER x10``)."""
    if value is None:
        return "not set"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return format_number(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} x{v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " .. ".join(str(v) for v in value) if len(value) == 2 else ", ".join(map(str, value))
    return str(value)


def format_setting(value) -> str:
    """A knob's value as a user set it (``2.5``, ``500``, ``240,000``, ``yes``, ``INTEGER x10``).

    Unlike a result (:func:`format_value`), a setting keeps the digits it was given: no
    padding to a fixed count of decimals and no rounding of 2.125 to 2.13.
    """
    if isinstance(value, float) and math.isfinite(value):
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        return f"{value:,.6g}"
    return format_value(value)


def format_metric(name: str, value: float, unit: str | None = None) -> str:
    """``value`` of metric ``name`` with its display unit (``END2END_LATENCY`` 1.2e6 ms -> ``20 min``).

    Parameters
    ----------
    name : str
        Metric key (gives the unit when ``unit`` is None).
    value : float
        The engine's value.
    unit : str, optional
        The value's unit when the engine states it.
    """
    shown, shown_unit = display_value(value, info(name).unit if unit is None else unit)
    return f"{format_number(shown)} {shown_unit}".strip()


def delta_verdict(name: str, delta: float | None) -> int:
    """``+1`` when a change ``delta`` of metric ``name`` is an improvement, ``-1`` a deterioration, ``0`` neither.

    Parameters
    ----------
    name : str
        Metric key.
    delta : float or None
        Change against the reference run (only its sign is used); None or 0 give 0.
    """
    if not delta:
        return 0
    return better_direction(name) * (1 if delta > 0 else -1)
