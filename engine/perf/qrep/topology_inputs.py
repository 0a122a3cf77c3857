"""Validated settings of the topologies beyond one private queue pair (read with the Q Replication inputs).

Scenario fields (``kind: qrep``; defaults and ranges from :mod:`engine.registry.topology_knobs`):

``mq.cf_structure_size_mb``, ``mq.offload`` (``SMDS`` or ``DB2``), ``mq.offld1thr`` ..
``mq.offld3sz`` (percent of the structure, KB), ``mq.scmmaxsize_gb``, ``mq.cf_cps``
    The coupling-facility list structure of a shared queue (``mq.shared_queue: true``).
``qcapture.queue_maps``, ``qcapture.num_parallel_sendqs``
    Replication queue maps the tables are spread over evenly, and send queues per map.
``qcapture.qfull_retry_delay_ms``, ``qcapture.qfull_num_retries``
    Q Capture's wait before a put that failed on a full CF structure is tried again, and how
    many times it tries before it stops.
``hardware.data_sharing_members``
    Db2 data-sharing members whose merged log Q Capture reads (1: no data sharing).
``run.mode: catch-up`` (read with the other Q Replication inputs)
    With ``run.initial_receive_queue_depth`` messages already queued, Q Capture keeps
    capturing the workload while Q Apply works the backlog off.
``topology: sql-replication``
    SQL Replication (Capture into CD tables, Apply over a database connection) instead of Q
    Replication; ``sql_apply.sleep_minutes`` is Apply's subscription-set interval (0:
    continuous). ``sql_apply.compare: true`` adds SQL Replication's figures (``sql_...``) to a
    Q Replication prediction.

Errors name the field, the value and what is allowed (:class:`engine.errors.ValueRangeError`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import ValueRangeError
from engine.settings import SettingsReader, registry_defaults

#: Offload level -> (threshold path, size path) of the CFSTRUCT's OFFLDnTH / OFFLDnSZ.
OFFLOAD_LEVELS = tuple((f"mq.offld{i}thr", f"mq.offld{i}sz") for i in (1, 2, 3))


@dataclass(frozen=True)
class TopologyInputs:
    """Queue-sharing group, queue maps, data sharing and catch-up settings; units in the names.

    Attributes
    ----------
    cf_structure_mb : float
        Real storage of the CF list structure, MB.
    offload : str
        ``SMDS`` or ``DB2``.
    offload_rules : tuple of (float, float)
        ``(usage share 0..1, size bytes)`` per OFFLDn level: from that usage on, messages
        larger than the size are offloaded.
    scm_mb : float
        Storage-class memory extending the structure, MB.
    cf_cps : int
        Coupling-facility processors.
    queue_maps : int
        Replication queue maps (each a send queue, channel, receive queue and browser).
    parallel_sendqs : int
        Send queues (and channels) per queue map.
    data_sharing_members : int
        Db2 data-sharing members writing the source log.
    other_member_log_interval_ms : float or None
        Mean time between log writes on each other member, ms (None: idle members, the fitted
        ``log_merge_delay_ms``).
    sql_apply_interval_s : float
        SQL Apply's subscription-set interval, s (0: continuous).
    compare_sql : bool
        Add SQL Replication's figures to a Q Replication prediction.
    qfull_retry_delay_ms : float
        Q Capture's wait after a put fails on a full CF structure (MQRC 2192), ms.
    qfull_num_retries : int
        Q Capture's retries of such a put before it stops (0: none).
    """

    cf_structure_mb: float
    offload: str
    offload_rules: tuple
    scm_mb: float
    cf_cps: int
    queue_maps: int
    parallel_sendqs: int
    data_sharing_members: int
    other_member_log_interval_ms: float | None
    sql_apply_interval_s: float
    compare_sql: bool
    qfull_retry_delay_ms: float
    qfull_num_retries: int


def read_topology(reader: SettingsReader) -> TopologyInputs:
    """Read the topology settings with the Q Replication inputs' reader.

    The OFFLDnTH thresholds must not fall from one level to the next (MQ refuses that too).

    Parameters
    ----------
    reader : engine.settings.SettingsReader
        The reader of the scenario (it records every path read, for ``ignored``).

    Raises
    ------
    ValueRangeError
        A setting is out of its registry range, or the OFFLDnTH thresholds do not rise.
    """
    rules = tuple(
        (reader.integer(thr) / 100.0, reader.integer(size) * 1024.0) for thr, size in OFFLOAD_LEVELS
    )
    for (lower, _), (higher, _), (path, _) in zip(rules, rules[1:], OFFLOAD_LEVELS[1:]):
        if higher < lower:
            raise ValueRangeError(
                path, round(higher * 100), f"at least the previous level's threshold ({lower * 100:g}%)"
            )
    return TopologyInputs(
        cf_structure_mb=reader.number("mq.cf_structure_size_mb"),
        offload=reader.choice("mq.offload"),
        offload_rules=rules,
        scm_mb=reader.number("mq.scmmaxsize_gb") * 1024.0,
        cf_cps=reader.integer("mq.cf_cps"),
        queue_maps=reader.integer("qcapture.queue_maps"),
        parallel_sendqs=reader.integer("qcapture.num_parallel_sendqs"),
        data_sharing_members=reader.integer("hardware.data_sharing_members"),
        other_member_log_interval_ms=reader.optional("hardware.other_member_log_interval_ms"),
        sql_apply_interval_s=reader.number("sql_apply.sleep_minutes") * 60.0,
        compare_sql=reader.flag("sql_apply.compare"),
        qfull_retry_delay_ms=reader.number("qcapture.qfull_retry_delay_ms"),
        qfull_num_retries=reader.integer("qcapture.qfull_num_retries"),
    )


#: The registry defaults: private queues, one queue map, no data sharing, Q Replication alone.
ONE_PRIVATE_QUEUE_PAIR = read_topology(registry_defaults("qrep"))
