"""Knobs of the topologies beyond one private queue pair: queue-sharing groups, queue maps,
data-sharing sources and the SQL Replication comparison (a catch-up is the receive
queue manager's ``run_mode`` ``catch-up``).

They extend the node kinds of :mod:`engine.registry.kinds` (each tuple is appended to one
kind's parameters) and are read by :mod:`engine.perf.qrep.topology_inputs`. Names follow
IBM's: the CFSTRUCT attributes OFFLOAD, OFFLD1TH/OFFLD1SZ..OFFLD3TH/OFFLD3SZ (MQ for z/OS,
CFLEVEL(5)), the CFRM policy's structure SIZE and SCMMAXSIZE, the replication queue map
(REPLQMAP) and its parallel send queues (NUM_PARALLEL_SENDQS), Db2 data-sharing members.
"""

from __future__ import annotations

from dataclasses import replace

from engine.registry.params import SEED_MQ_V8, SEED_QREP_2005, SEED_QREP_ZOS, ParamSpec
from engine.registry.platform_knobs import ZOS_ONLY

Q = "qrep"
_CF = f"{SEED_MQ_V8}, Regression - shared queue - CFLEVEL(5)"


def _p(name, type_, default, unit, help_, seed, path, **kw) -> ParamSpec:
    return ParamSpec(name, type_, default, unit, help_, seed, scenario_paths={Q: path}, **kw)


def _offload_pair(level: int, threshold_pct: int, size_kb: int) -> tuple:
    """OFFLDnTH and OFFLDnSZ (MQ's documented defaults 70/32K, 80/4K, 90/0K)."""
    return (
        _p(
            f"offld{level}thr",
            "int",
            threshold_pct,
            "%",
            f"Structure usage from which messages larger than OFFLD{level}SZ are offloaded (100: rule off).",
            _CF,
            f"mq.offld{level}thr",
            minimum=0,
            maximum=100,
        ),
        _p(
            f"offld{level}sz",
            "int",
            size_kb,
            "KB",
            f"Messages larger than this are offloaded once usage passes OFFLD{level}TH (0: all; 64: rule off).",
            _CF,
            f"mq.offld{level}sz",
            minimum=0,
            maximum=64,
        ),
    )


#: Queue manager: the coupling-facility list structure of a shared queue and its offload.
QSG_PARAMS = tuple(
    replace(spec, platforms=ZOS_ONLY)  # queue-sharing groups are z/OS only
    for spec in (
        _p(
            "cf_structure_size_mb",
            "int",
            512,
            "MB",
            "Size of the CF list structure holding the shared queues (CFRM policy SIZE).",
            _CF,
            "mq.cf_structure_size_mb",
            minimum=16,
            maximum=1_000_000,
        ),
        _p(
            "offload",
            "enum",
            "SMDS",
            "",
            "Where large shared messages go: shared message data sets (CFLEVEL(5)) or Db2 tables.",
            _CF,
            "mq.offload",
            choices=("SMDS", "DB2"),
        ),
        *_offload_pair(1, 70, 32),
        *_offload_pair(2, 80, 4),
        *_offload_pair(3, 90, 0),
        _p(
            "scmmaxsize_gb",
            "float",
            0.0,
            "GB",
            "Storage-class memory (CFRM SCMMAXSIZE) taking entries once the structure is 90% full (0: none).",
            _CF,
            "mq.scmmaxsize_gb",
            minimum=0,
            maximum=16_384,
        ),
        _p(
            "cf_cps",
            "int",
            2,
            "CF processors",
            "Dedicated processors of the coupling facility (seed 003 used an internal CF with 4).",
            f"{SEED_MQ_V8}, Coupling Facility",
            "mq.cf_cps",
            minimum=1,
            maximum=64,
        ),
    )
)

#: Q Capture: how many replication queue maps the tables are spread over.
QUEUE_MAP_PARAMS = (
    _p(
        "queue_maps",
        "int",
        1,
        "maps",
        "Replication queue maps the tables are spread over evenly (each a send queue, channel, "
        "receive queue and Q Apply browser with its own agents).",
        f"{SEED_QREP_2005}, Increased parallelism in Q Apply processing",
        "qcapture.queue_maps",
        minimum=1,
        maximum=64,
    ),
    _p(
        "num_parallel_sendqs",
        "int",
        1,
        "send queues",
        "Send queues (each with its channel) feeding one queue map's receive queue.",
        f"{SEED_QREP_ZOS}, Table 2-3",
        "qcapture.num_parallel_sendqs",
        minimum=1,
        maximum=16,
    ),
    _p(
        "qfull_retry_delay_ms",
        "int",
        250,
        "ms",
        "Q Capture's wait before putting again after a put fails on a full queue or CF structure "
        "(QFULL_RETRY_DELAY; MQRC 2192 on a full structure).",
        f"{SEED_MQ_V8}, Exploit 64-bit storage without increasing size of buffer pool (retry mode)",
        "qcapture.qfull_retry_delay_ms",
        minimum=10,
        maximum=3_600_000,
    ),
    _p(
        "qfull_num_retries",
        "int",
        30,
        "retries",
        "Times Q Capture puts again, QFULL_RETRY_DELAY apart, after a put fails on a full queue or CF "
        "structure; when they are used up it stops (the send queue's ERROR_ACTION). 0: no retries.",
        f"{SEED_MQ_V8}, Exploit 64-bit storage without increasing size of buffer pool (retry mode)",
        "qcapture.qfull_num_retries",
        minimum=0,
        maximum=1000,
    ),
)

#: Source Db2: data-sharing members writing the log Q Capture reads.
DATA_SHARING_PARAMS = (
    _p(
        "data_sharing_members",
        "int",
        1,
        "members",
        "Db2 data-sharing members updating the replicated tables; Q Capture reads their merged log "
        "(IFI 306) and waits for the slowest (1: no data sharing).",
        f"{SEED_QREP_2005}, Latency (Data sharing) and Figure 10",
        "hardware.data_sharing_members",
        minimum=1,
        maximum=32,
    ),
    _p(
        "other_member_log_interval_ms",
        "float",
        None,
        "ms",
        "Mean time between log writes on each other data-sharing member whose log the merged read "
        "waits for (busy members write often; an idle one only for Db2's own work).",
        f"{SEED_QREP_2005}, Latency (Data sharing)",
        "hardware.other_member_log_interval_ms",
        minimum=0,
        maximum=60_000,
        nullable=True,
        null_meaning="members idle apart from Db2's own work, as in the Redpaper's set-up",
    ),
)

#: Q Apply: the SQL Replication comparison (Apply's subscription-set interval).
SQL_APPLY_PARAMS = (
    _p(
        "sleep_minutes",
        "float",
        0.0,
        "min",
        "SQL Replication only: the subscription set's Apply interval (0: continuous, as the 2005 "
        "comparison ran).",
        f"{SEED_QREP_2005}, How does performance of Q replication compare to SQL replication?",
        "sql_apply.sleep_minutes",
        minimum=0,
        maximum=1440,
    ),
    _p(
        "compare_sql_replication",
        "bool",
        False,
        "",
        "Also predict SQL Replication (Capture into CD tables, Apply over a database connection) "
        "for the same workload and hardware, side by side with Q Replication.",
        f"{SEED_QREP_2005}, How does performance of Q replication compare to SQL replication?",
        "sql_apply.compare",
    ),
)
