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
from engine.registry import scenario_specs

TOPOLOGIES = ("unidirectional", "bidirectional", "peer-to-peer", "sql-replication")
CONFLICT_ACTIONS = ("I", "F", "D", "Q")
LOCKING = ("row", "page")
COMPMSG = ("NONE", "ZLIBFAST", "ZLIBHIGH")
RUN_MODES = ("steady", "drain", "catch-up")

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
    topo: TopologyInputs = ONE_PRIVATE_QUEUE_PAIR

    @property
    def n_columns(self) -> int:
        """Columns of the replicated table."""
        return sum(g.count for g in self.columns)


_PARTS: dict = {}
#: Settings path -> registry spec: the one source of every knob's default and range.
SPECS = scenario_specs("qrep")
#: Marks an argument the registry supplies (default, lowest or highest value).
REGISTRY = object()


class _Reader:
    """Reads dotted paths from settings, remembering every path it touched."""

    def __init__(self, settings: dict):
        self.settings = settings
        self.used: set[str] = set()

    def raw(self, path: str, default=None):
        self.used.add(path)
        cur = self.settings
        parts = _PARTS.get(path)
        if parts is None:
            parts = _PARTS[path] = tuple(path.split("."))
        for part in parts:
            if not isinstance(cur, dict) or part not in cur:
                return default
            cur = cur[part]
        return default if cur is None else cur

    def number(self, path, default=REGISTRY, lo=REGISTRY, hi=REGISTRY, integer=False, nullable=False):
        spec = SPECS.get(path)
        if spec is not None:
            default = spec.default if default is REGISTRY else default
            lo = spec.minimum if lo is REGISTRY else lo
            hi = spec.maximum if hi is REGISTRY else hi
        value = self.raw(path, None)
        if value is None:
            if nullable:
                return None
            value = default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ValueRangeError(path, value, _range_text(lo, hi, integer))
        if integer and value != int(value):
            raise ValueRangeError(path, value, _range_text(lo, hi, integer))
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueRangeError(path, value, _range_text(lo, hi, integer))
        return int(value) if integer else float(value)

    def flag(self, path, default=REGISTRY):
        if default is REGISTRY:
            default = SPECS[path].default
        value = self.raw(path, None)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if value in ("Y", "N", "y", "n"):
            return value in ("Y", "y")
        raise ValueRangeError(path, value, "true or false")

    def choice(self, path, default=REGISTRY, choices=REGISTRY):
        spec = SPECS.get(path)
        default = spec.default if default is REGISTRY else default
        choices = spec.choices if choices is REGISTRY else choices
        value = self.raw(path, None)
        if value is None:
            return default
        if value not in choices:
            raise ValueRangeError(path, value, "one of " + ", ".join(repr(c) for c in choices))
        return value


def _range_text(lo, hi, integer):
    kind = "an integer" if integer else "a number"
    if lo is not None and hi is not None:
        return f"{kind} from {lo:g} to {hi:g}"
    if lo is not None:
        return f"{kind} of at least {lo:g}"
    return kind


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
    r = _Reader(settings)
    topology = r.choice("topology", "unidirectional", TOPOLOGIES)
    cpu_model = r.raw("hardware.cpu_model", "z196-2817-778")
    if not isinstance(cpu_model, str):
        raise ValueRangeError("hardware.cpu_model", cpu_model, "a CPU model name")
    columns = _column_groups(r.raw("table.columns", None))
    n_cols = sum(g.count for g in columns)
    known_bytes = sum(g.count * g.bytes_each for g in columns if g.bytes_each == g.bytes_each)
    row_bytes = r.number(
        "table.row_bytes",
        None if known_bytes <= 0 else known_bytes,
        lo=1,
        hi=2_000_000,
        nullable=known_bytes <= 0,
    )
    if row_bytes is None:
        raise ValueRangeError(
            "table.row_bytes", None, "the row length in bytes (the column types do not give it)"
        )
    unique_indexes = r.number("table.unique_indexes", integer=True)
    index_type = r.choice("table.index_column_type")

    rows_per_txn = r.number("workload.rows_per_txn")
    ins = r.number("workload.inserts_per_txn")
    upd = r.number("workload.updates_per_txn")
    dele = r.number("workload.deletes_per_txn")
    mix = ins + upd + dele
    if mix <= 0:
        ins, upd, dele, mix = 1.0, 0.0, 0.0, 1.0
    changed = r.number("workload.columns_changed_per_update")
    offered = r.number("workload.offered_rows_per_s", nullable=True)
    jobs = r.number("workload.jobs", integer=True, nullable=True)
    think = r.number("workload.think_time_ms", nullable=True) or 0.0  # null: no think time

    mode = r.choice("run.mode", "steady", RUN_MODES)
    depth = r.number("run.initial_receive_queue_depth")
    topo = read_topology(r)
    if mode != "steady" and depth <= 0:
        raise ValueRangeError(
            "run.initial_receive_queue_depth",
            r.raw("run.initial_receive_queue_depth", 0),
            f"a positive number of messages for run.mode '{mode}'",
        )

    inputs = QrepInputs(
        topology=topology,
        cpu_model=cpu_model,
        mips_per_cp=r.number("hardware.mips_per_cp", nullable=True),
        source_lpar_cps=r.number("hardware.source_lpar_cps", integer=True),
        capture_lpar_cps=r.number("hardware.capture_lpar_cps", integer=True),
        apply_lpar_cps=r.number("hardware.apply_lpar_cps", integer=True),
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
        trans_batch_sz=r.number("qcapture.trans_batch_sz", integer=True),
        persistent=r.flag("qcapture.msg_persistence"),
        capture_monitor_interval_ms=r.number("qcapture.monitor_interval_ms"),
        max_message_size_kb=r.number("qcapture.max_message_size_kb"),
        changed_cols_only=r.flag("qcapture.changed_cols_only"),
        num_apply_agents=r.number("qapply.num_apply_agents", integer=True),
        apply_memory_limit_mb=r.number("qapply.memory_limit_mb"),
        apply_monitor_interval_ms=r.number("qapply.monitor_interval_ms"),
        conflict_action=r.choice("qapply.conflict_action"),
        commit_count=r.number("qapply.commit_count", integer=True),
        maxagents_correlid=r.number("qapply.maxagents_correlid", integer=True),
        batchsz=r.number("mq.batchsz", integer=True),
        maxmsgl=r.number("mq.maxmsgl"),
        maxshortmsgs=r.number("mq.maxshortmsgs", integer=True),
        security=r.flag("mq.security"),
        read_ahead=r.flag("mq.read_ahead"),
        logload=r.number("mq.logload"),
        buffpool_pages=r.number("mq.buffpool_pages"),
        global_trace=r.flag("mq.global_trace"),
        chinit_trace=r.flag("mq.chinit_trace"),
        shared_queue=r.flag("mq.shared_queue"),
        compmsg=r.choice("mq.compmsg"),
        ssl=r.flag("mq.ssl"),
        compressibility=r.number("mq.compressibility"),
        locking=r.choice("target_db2.locking"),
        mode=mode,
        initial_depth_msgs=depth,
        platform=read_platform(r),
        topo=topo,
    )
    return inputs, r.used
