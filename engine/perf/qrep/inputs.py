"""Validated inputs of the Q Replication engine, read from ``kind: qrep`` scenario settings.

:func:`read_inputs` is the one boundary where scenario settings (the grouped format of
../shared/validation/README.md, or :func:`engine.scenario.project_to_scenario`) are checked.
It returns a frozen :class:`QrepInputs` and the set of settings paths it read, from which
the engine reports ``ignored`` (paths present in the settings but never used).

Errors name the field path, the value found and what is allowed
(:class:`engine.errors.ValueRangeError`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import ValueRangeError
from engine.perf.qrep.platforms import ALL_ZOS, PlatformInputs, read_platform
from engine.perf.qrep.topology_inputs import ONE_PRIVATE_QUEUE_PAIR, TopologyInputs, read_topology
from engine.settings import SettingsReader

#: Scenario kind whose registry paths the engine reads.
SCENARIO_KIND = "qrep"

#: Db2 column type families the cost model knows, with their stored bytes when no length is given.
_TYPE_PATTERNS = (
    (re.compile(r"^(SMALLINT)$"), "int", 2),
    (re.compile(r"^(INT|INTEGER)$"), "int", 4),
    (re.compile(r"^(BIGINT)$"), "int", 8),
    (re.compile(r"^(DECIMAL|DEC|NUMERIC)(\((\d+)(,\s*\d+)?\))?$"), "decimal", None),
    (re.compile(r"^(REAL|FLOAT|DOUBLE|DECFLOAT)(\(\d+\))?$"), "float", 8),
    (re.compile(r"^(DATE)$"), "datetime", 4),
    (re.compile(r"^(TIME)$"), "datetime", 3),
    (re.compile(r"^(TIMESTAMP)(\(\d+\))?$"), "datetime", 10),
    (re.compile(r"^(CHAR|CHARACTER|VARCHAR|GRAPHIC|VARGRAPHIC|BINARY|VARBINARY)(\((\d+)\))?$"), "char", None),
    (re.compile(r"^(UNSPECIFIED)$"), "unspecified", None),
)
ALLOWED_TYPES = (
    "INTEGER, SMALLINT, BIGINT, DECIMAL(p,s), FLOAT, DATE, TIME, TIMESTAMP, CHAR(n), VARCHAR(n), "
    "GRAPHIC(n) or 'unspecified'"
)
#: Bytes of the unique-index key by ``table.index_column_type``.
KEY_BYTES = {"INTEGER": 4.0, "DATE": 4.0, "DECIMAL": 11.0, "CHAR": 20.0}


@dataclass(frozen=True)
class ColumnGroup:
    """Columns of one Db2 type: family (``int``, ``decimal``, ``char``...), count and bytes each."""

    family: str
    count: int
    bytes_each: float


@dataclass(frozen=True)
class QrepInputs:
    """Everything the Q Replication engine uses, validated; units in the names."""

    topology: str
    cpu_model: str
    mips_per_cp: float | None
    source_lpar_cps: int
    capture_lpar_cps: int
    apply_lpar_cps: int
    capture_colocated_with_source: bool
    apply_colocated_with_target: bool
    network_latency_ms: float
    network_mbps: float
    columns: tuple
    row_bytes: float
    unique_indexes: int
    key_bytes: float
    rows_per_txn: float
    insert_frac: float
    update_frac: float
    delete_frac: float
    columns_changed_per_update: float
    dependent_txn_pct: float
    offered_rows_per_s: float | None
    jobs: int | None
    think_time_ms: float
    capture_memory_limit_mb: float
    commit_interval_ms: float
    sleep_interval_ms: float
    trans_batch_sz: int
    persistent: bool
    capture_monitor_interval_ms: float
    max_message_size_kb: float
    changed_cols_only: bool
    num_apply_agents: int
    apply_memory_limit_mb: float
    apply_monitor_interval_ms: float
    conflict_action: str
    commit_count: int
    maxagents_correlid: int
    batchsz: int
    maxmsgl: float
    maxshortmsgs: int
    security: bool
    read_ahead: bool
    logload: float
    buffpool_pages: float
    dwp_start_pct: float
    global_trace: bool
    chinit_trace: bool
    shared_queue: bool
    compmsg: str
    ssl: bool
    compressibility: float
    locking: str
    mode: str
    initial_depth_msgs: float
    platform: PlatformInputs = ALL_ZOS
    catch_up_payload_msgs: float = 0.0
    topo: TopologyInputs = ONE_PRIVATE_QUEUE_PAIR

    @property
    def n_columns(self) -> int:
        """Columns of the replicated table."""
        return sum(g.count for g in self.columns)


def _column_groups(columns) -> tuple:
    if not isinstance(columns, dict) or not columns:
        raise ValueRangeError(
            "table.columns",
            columns,
            'a mapping of Db2 column type to column count, e.g. {"INTEGER": 10, "CHAR(20)": 10}',
        )
    groups = []
    for type_name, count in columns.items():
        path = f"table.columns.{type_name}"
        if isinstance(count, bool) or not isinstance(count, (int, float)) or count < 0 or count != int(count):
            raise ValueRangeError(path, count, "a whole number of columns, 0 or more")
        spelled = str(type_name).strip().upper().replace(" ", "")
        for pattern, family, fixed_bytes in _TYPE_PATTERNS:
            m = pattern.match(spelled)
            if not m:
                continue
            if family == "decimal":
                precision = int(m.group(3)) if m.group(3) else 5
                size = precision // 2 + 1
            elif family == "char":
                size = int(m.group(3)) if m.group(3) else 1
            else:
                size = fixed_bytes
            groups.append(ColumnGroup(family, int(count), float(size) if size is not None else float("nan")))
            break
        else:
            raise ValueRangeError(path, type_name, "a Db2 column type: " + ALLOWED_TYPES)
    if sum(g.count for g in groups) < 1:
        raise ValueRangeError("table.columns", columns, "at least one column")
    return tuple(groups)


def _row_bytes(r: SettingsReader, columns: tuple) -> float:
    """``table.row_bytes``, else the sum of the column types' stored bytes.

    Raises
    ------
    ValueRangeError
        Out of the registry range, or absent while a column type gives no length.
    """
    known_bytes = sum(g.count * g.bytes_each for g in columns if g.bytes_each == g.bytes_each)
    if r.raw("table.row_bytes") is not None or known_bytes <= 0:
        if r.raw("table.row_bytes") is None:
            raise ValueRangeError(
                "table.row_bytes", None, "the row length in bytes (the column types do not give it)"
            )
        return r.number("table.row_bytes")
    return float(known_bytes)


def read_inputs(settings: dict) -> tuple[QrepInputs, set[str]]:
    """Validate ``kind: qrep`` scenario settings.

    Parameters
    ----------
    settings : dict
        A scenario (``topology``, ``hardware``, ``table``, ``workload``, ``qcapture``,
        ``qapply``, ``mq``, ``target_db2``, ``run``). Missing settings take the values
        the seeds' tuned configuration used where the product default is not stated.

    Returns
    -------
    (QrepInputs, set of str)
        The inputs and the dotted settings paths read.

    Raises
    ------
    ValueRangeError
        A setting has the wrong type or is out of range; the message names the path.
    """
    r = SettingsReader(settings, SCENARIO_KIND)
    topology = r.choice("topology")
    cpu_model = r.choice("hardware.cpu_model")
    columns = _column_groups(r.raw("table.columns"))
    n_cols = sum(g.count for g in columns)
    row_bytes = _row_bytes(r, columns)
    unique_indexes = r.integer("table.unique_indexes")
    index_type = r.choice("table.index_column_type")

    rows_per_txn = r.number("workload.rows_per_txn")
    ins = r.number("workload.inserts_per_txn")
    upd = r.number("workload.updates_per_txn")
    dele = r.number("workload.deletes_per_txn")
    mix = ins + upd + dele
    if mix <= 0:
        ins, upd, dele, mix = 1.0, 0.0, 0.0, 1.0
    changed = r.number("workload.columns_changed_per_update")
    offered = r.optional("workload.offered_rows_per_s")
    jobs = r.optional_integer("workload.jobs")
    think = r.optional("workload.think_time_ms") or 0.0  # null: no think time

    mode = r.choice("run.mode")
    depth = r.number("run.initial_receive_queue_depth")
    payload = r.number("run.catch_up_payload_msgs")
    topo = read_topology(r)
    if mode != "steady" and depth <= 0 and not (mode == "catch-up" and payload > 0):
        raise ValueRangeError(
            "run.initial_receive_queue_depth",
            r.raw("run.initial_receive_queue_depth") or 0,
            f"a positive number of messages for run.mode '{mode}'"
            + (" (or a run.catch_up_payload_msgs)" if mode == "catch-up" else ""),
        )

    inputs = QrepInputs(
        topology=topology,
        cpu_model=cpu_model,
        mips_per_cp=r.optional("hardware.mips_per_cp"),
        source_lpar_cps=r.integer("hardware.source_lpar_cps"),
        capture_lpar_cps=r.integer("hardware.capture_lpar_cps"),
        apply_lpar_cps=r.integer("hardware.apply_lpar_cps"),
        capture_colocated_with_source=r.flag("hardware.capture_colocated_with_source"),
        apply_colocated_with_target=r.flag("hardware.apply_colocated_with_target"),
        network_latency_ms=r.number("hardware.network_latency_ms"),
        network_mbps=r.number("hardware.network_mbps"),
        columns=columns,
        row_bytes=row_bytes,
        unique_indexes=unique_indexes,
        key_bytes=KEY_BYTES[index_type],
        rows_per_txn=rows_per_txn,
        insert_frac=ins / mix,
        update_frac=upd / mix,
        delete_frac=dele / mix,
        columns_changed_per_update=min(changed, float(n_cols)),
        dependent_txn_pct=r.number("workload.dependent_txn_pct"),
        offered_rows_per_s=offered,
        jobs=jobs,
        think_time_ms=think,
        capture_memory_limit_mb=r.number("qcapture.memory_limit_mb"),
        commit_interval_ms=r.number("qcapture.commit_interval_ms"),
        sleep_interval_ms=r.number("qcapture.sleep_interval_ms"),
        trans_batch_sz=r.integer("qcapture.trans_batch_sz"),
        persistent=r.flag("qcapture.msg_persistence"),
        capture_monitor_interval_ms=r.number("qcapture.monitor_interval_ms"),
        max_message_size_kb=r.number("qcapture.max_message_size_kb"),
        changed_cols_only=r.flag("qcapture.changed_cols_only"),
        num_apply_agents=r.integer("qapply.num_apply_agents"),
        apply_memory_limit_mb=r.number("qapply.memory_limit_mb"),
        apply_monitor_interval_ms=r.number("qapply.monitor_interval_ms"),
        conflict_action=r.choice("qapply.conflict_action"),
        commit_count=r.integer("qapply.commit_count"),
        maxagents_correlid=r.integer("qapply.maxagents_correlid"),
        batchsz=r.integer("mq.batchsz"),
        maxmsgl=r.number("mq.maxmsgl"),
        maxshortmsgs=r.integer("mq.maxshortmsgs"),
        security=r.flag("mq.security"),
        read_ahead=r.flag("mq.read_ahead"),
        logload=r.number("mq.logload"),
        buffpool_pages=r.number("mq.buffpool_pages"),
        dwp_start_pct=r.number("mq.dwp_start_pct"),
        global_trace=r.flag("mq.global_trace"),
        chinit_trace=r.flag("mq.chinit_trace"),
        shared_queue=r.flag("mq.shared_queue"),
        compmsg=r.choice("mq.compmsg"),
        ssl=r.flag("mq.ssl"),
        compressibility=r.number("mq.compressibility"),
        locking=r.choice("target_db2.locking"),
        mode=mode,
        initial_depth_msgs=depth,
        catch_up_payload_msgs=payload,
        platform=read_platform(r),
        topo=topo,
    )
    return inputs, r.used
