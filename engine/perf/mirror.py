"""Db2 Mirror for i node pairs: a closed queueing network solved with MVA.

Mechanism
---------
A transaction of the workload issues ``ops_per_txn`` database operations, a
share of them modifies (``write_pct``). Per transaction it visits:

``cpu``
    the source node's cores (a ``multi`` station): CPU per operation, more on
    slow (HDD) storage, plus the source side of every mirrored action;
``storage``
    the source storage: one synchronous write per modify, by storage type;
``mirror_link``
    a RoCE/RDMA round trip for every mirrored action (modifies, reads for
    update, opens for update and, under commitment control, the commit of a
    transaction that mirrored any of them: read-only work is not mirrored,
    seed 002 2.2), a pure delay;
``mirror_link_transfer``
    the bytes of those actions over the link speed ``link.speed_gbps``: a
    modify sends its row image (``workload.row_bytes``), every action its
    RoCE v2 framing (:data:`ROCE_FRAME_OVERHEAD_BYTES` per frame of at most
    :data:`ROCE_MTU_BYTES`); one server per direction, so a busy link queues;
``target_cpu``
    the target node's cores doing the remote action (QDBMSRVR jobs);
``mirror_target_io``
    the target's synchronous write of each modify, on the same storage
    subsystem as the source when both nodes share it (Case Study #1), plus
    page faults when the replication jobs run in a pool of their own;
``db_wait``
    the database's own waits that do not queue (journal and log forces, SQL
    engine waits), ``wait_ms_per_op`` of the API profile (fitted for SQL, whose
    always-busy job sets otherwise could only wait in a saturated storage queue).

While a job waits for the remote acknowledgement it polls for the RDMA
completion and burns a fraction ``spin_fraction`` of otherwise idle source
cores (the seeds' CPU rose with more cores at the same work, and stayed level
while throughput fell). In ``active-active`` both nodes run half the jobs and
mirror to each other, so each node's cores serve source and target work.

Row locks (seed 002, 2.5 and 6.4): a read for update under Db2 Mirror acquires
the row lock on both nodes, by an RDMA flow to acquire it and a later one to
release it; the target's server job does lock bookkeeping only (a share
``lock_cpu_share`` of a mirrored write's CPU on each side, no remote write) but
must have the row in memory to lock it, so a share ``lock_target_miss_frac`` of
remote locks waits for a read on the target's storage (``read_ms``) unless the
objects were pre-loaded there (``hardware.target_preload``, SETOBJACC).
Opens for update are mirrored the same way (one flow each).

Populations: ``job_sets`` are always-busy jobs (``jobs_per_job_set`` each,
a short think time); ``users`` are interactive users with a long think time
served by a pool of jobs (one per ``users_per_job`` users), solved as a
flow-equivalent server; with neither, ``default_jobs_per_core`` jobs per source
core run the workload back to back (a batch or tuned interactive stream).
Such a stream is an application program around the database: per database
operation it spends ``app_cpu_ms_per_op`` of application CPU and
``app_wait_ms_per_op`` waiting outside the database (its own reads, printing,
the terminal): one profile (``streams.stream``) for every style, since no published client run
states its style (``workload.style`` is reported in ``ignored``).

Every mirrored run also reports the change against the same workload without
Db2 Mirror (``throughput_change_pct``, ``response_time_change_pct``,
``runtime_change_pct``, ``cpu_change_pct``). ``cpu_change_pct`` is the change
of the *source node's CPU utilisation*, i.e. CPU per unit of work times the
rate of work: the mirror's source CPU per modify and per lock raises the first,
the synchronous wait for the target lowers the second, so a job stream that
mostly waits on the target (locks that miss the target's memory) runs much
longer at about the same utilisation, while one whose mirrored actions are
mostly CPU (writes to a pre-loaded target) shows a higher utilisation.

Coefficients come from ``assets/coefficients/mirror.json`` (written by
``python -m engine.calibrate.misc``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.errors import FieldError
from engine.perf.coeffload import load
from engine.perf.mva import Station, solve_mva, throughput_curve
from engine.perf.result import Prediction, StageResult
from engine.settings import SettingsReader, setting_paths, unused_settings


@dataclass(frozen=True)
class MirrorConfig:
    """Validated settings of one Db2 Mirror scenario (see module docstring), read by :func:`parse_settings`."""

    mode: str
    api: str
    source_cores: float
    target_cores: float
    storage: str
    shared_storage: bool
    source_memory_gb: float | None
    target_memory_gb: float | None
    target_pool_separate: bool
    source_pool_separate: bool
    write_frac: float | None
    reads_for_update: bool
    opens_for_update_per_txn: float
    commitment_control: bool
    users: int | None
    job_sets: int | None
    think_time_ms: float | None
    distance_km: float
    link_gbps: float
    row_bytes: float
    target_preload: bool
    source_preload: bool
    resync_tracked_changes: float | None
    resync_parallel_degree: int


#: ``hardware.{role}_memory_pool`` -> the replication server jobs run apart from the application's pool.
POOL_SEPARATE = {"*BASE": True, "separate": True, "application": False}


#: Scenario kind whose registry paths the engine reads.
SCENARIO_KIND = "db2mirror"
#: Largest RDMA payload of one RoCE frame, bytes (the InfiniBand path MTU of 4,096 that RoCE
#: adapters use on jumbo-frame Ethernet).
ROCE_MTU_BYTES = 4096.0
#: Bytes a RoCE v2 frame takes on the wire beyond its payload: preamble and start delimiter 8,
#: Ethernet header 14, IPv4 20, UDP 8, InfiniBand base transport header 12, RDMA extended
#: transport header 16, invariant CRC 4, frame check sequence 4, inter-frame gap 12
#: (IEEE 802.3; InfiniBand Architecture Specification, Annex A17 RoCEv2).
ROCE_FRAME_OVERHEAD_BYTES = 98.0
#: Station of the mirrored bytes' transfer over the link speed.
TRANSFER = "mirror_link_transfer"


def _pool_separate(r: SettingsReader, role: str) -> bool:
    """Whether the replication server jobs of ``role`` run apart from the application's memory pool.

    *BASE (the default, apart from the application's pool) or a pool of their own: separate;
    the application's pool: the replication jobs share it (7.3.6).
    """
    return POOL_SEPARATE[r.choice(f"hardware.{role}_memory_pool")]


def _write_pct(r: SettingsReader) -> float | None:
    """The modifying share of operations (%): ``workload.write_pct``, else what ``read_pct`` leaves."""
    write_pct = r.optional("workload.write_pct")
    read_pct = r.optional("workload.read_pct")
    if write_pct is None and read_pct is not None:
        write_pct = 100.0 - read_pct  # the operations that are not reads modify
    return write_pct


def parse_settings(settings: dict) -> tuple[MirrorConfig, set[str]]:
    """Read a ``db2mirror`` scenario into a :class:`MirrorConfig` through the registry's specs.

    Returns the config and the settings paths used.

    Raises
    ------
    ValueRangeError
        A value is of the wrong type or outside its registry range; the message names the path.
    FieldError
        ``workload.users`` and ``workload.job_sets`` are both set.
    """
    r = SettingsReader(settings, SCENARIO_KIND)
    source_cores = r.number("hardware.source_cores")
    # the registry's null meaning of a node's cores: not stated, same as the source
    target_cores = (
        source_cores if r.raw("hardware.target_cores") is None else r.number("hardware.target_cores")
    )
    write_pct = _write_pct(r)
    cfg = MirrorConfig(
        mode=r.choice("mode"),
        api=r.choice("workload.api"),
        source_cores=source_cores,
        target_cores=target_cores,
        storage=r.choice("hardware.storage"),
        # one storage subsystem for both nodes (Case Study #1) only when the scenario says so
        shared_storage=r.flag("hardware.shared_storage"),
        source_memory_gb=r.optional("hardware.source_memory_gb"),
        target_memory_gb=r.optional("hardware.target_memory_gb"),
        target_pool_separate=_pool_separate(r, "target"),
        source_pool_separate=_pool_separate(r, "source"),
        write_frac=None if write_pct is None else write_pct / 100.0,
        reads_for_update=r.flag("workload.reads_for_update"),
        opens_for_update_per_txn=r.number("workload.opens_for_update_per_txn"),
        commitment_control=r.flag("workload.commitment_control"),
        users=r.optional_integer("workload.users"),
        job_sets=r.optional_integer("workload.job_sets"),
        think_time_ms=r.optional("workload.think_time_ms"),
        distance_km=r.number("link.distance_km"),
        link_gbps=r.number("link.speed_gbps"),
        row_bytes=r.number("workload.row_bytes"),
        target_preload=r.flag("hardware.target_preload"),
        source_preload=r.flag("hardware.source_preload"),
        resync_tracked_changes=r.optional("resync.tracked_changes"),
        resync_parallel_degree=r.integer("resync.parallel_degree"),
    )
    r.choice("workload.style")  # checked; one profile serves every style (see inert_settings)
    if cfg.users is not None and cfg.job_sets is not None:
        raise FieldError("workload.users", cfg.users, "null when workload.job_sets is set (one population)")
    return cfg, r.used


# --------------------------------------------------------------------------- demands


@dataclass(frozen=True)
class Demands:
    """Per-transaction service demands in seconds (source side unless named).

    ``app_wait_s`` is the application's own waiting of a job stream (0 for job sets and users);
    ``cpu_s`` includes the stream's application CPU; ``link_transfer_s`` is the time the
    transaction's mirrored bytes occupy one direction of the link.
    """

    cpu_s: float
    storage_s: float
    link_s: float
    target_cpu_s: float
    target_io_s: float
    mirrored_ops: float
    app_wait_s: float = 0.0
    link_transfer_s: float = 0.0


def is_stream(cfg: MirrorConfig) -> bool:
    """True for a back-to-back job stream (neither users nor job sets stated)."""
    return cfg.users is None and cfg.job_sets is None


def stream_profile(cfg: MirrorConfig, coeffs: dict) -> dict:
    """Application CPU and wait per database operation of a job stream (one profile for every style)."""
    return coeffs["streams"]["stream"]


def demands(cfg: MirrorConfig, coeffs: dict) -> Demands:
    """Service demands per transaction for ``cfg`` (seconds)."""
    g = coeffs["global"]
    p = coeffs["profiles"][cfg.api]
    ops = p["ops_per_txn"]
    w = cfg.write_frac if cfg.write_frac is not None else p["write_share_default"]
    hdd = 1.0 + (g["hdd_cpu_factor"] if cfg.storage == "HDD" else 0.0)
    write_s = g["write_ms"][cfg.storage] / 1000.0 * p["ios_per_write"]
    cpu = ops * p["cpu_ms_per_op"] / 1000.0 * hdd
    app_wait = 0.0
    if is_stream(cfg):
        sp = stream_profile(cfg, coeffs)
        cpu += ops * sp["app_cpu_ms_per_op"] / 1000.0
        app_wait = ops * sp["app_wait_ms_per_op"] / 1000.0
    storage = ops * w * write_s
    if cfg.mode == "none":
        return Demands(cpu, storage, 0.0, 0.0, 0.0, 0.0, app_wait)
    reads = ops * (1.0 - w)
    # actions mirrored with a remote write: modifies, and the commit under commitment control
    mirrored_writes = ops * w
    # actions mirrored as row locks (no remote write): reads for update, opens for update
    locks = reads * g["rfu_share"] if cfg.reads_for_update else 0.0
    lock_like = locks + cfg.opens_for_update_per_txn
    commits = g["commit_ops"] * mirrored_txn_share(cfg, w, ops, g) if cfg.commitment_control else 0.0
    rtt_s = (g["rdma_rtt_ms"] + 2 * cfg.distance_km * g["fiber_us_per_km"] / 1000.0) / 1000.0
    share = g["lock_cpu_share"]
    src_cpu_op = p["mirror_src_cpu_ms_per_op"] / 1000.0 * hdd
    tgt_cpu_op = p["mirror_tgt_cpu_ms_per_op"] / 1000.0 * hdd
    cpu += (mirrored_writes + commits) * src_cpu_op + lock_like * share * src_cpu_op
    tgt_cpu = (mirrored_writes + commits) * tgt_cpu_op + lock_like * share * tgt_cpu_op
    faults, miss = _replica_node_waits(cfg, g)
    mirrored = mirrored_writes + commits + lock_like
    lock_read_s = miss * g["read_ms"][cfg.storage] / 1000.0
    tgt_io = mirrored_writes * write_s + mirrored * faults * write_s + lock_like * lock_read_s
    # a row lock is acquired and later released on the target: two flows
    flows = mirrored_writes + commits + 2.0 * locks + cfg.opens_for_update_per_txn
    wire_bytes = mirrored_writes * flow_bytes(cfg.row_bytes) + (flows - mirrored_writes) * flow_bytes(0.0)
    transfer_s = wire_bytes * 8.0 / (cfg.link_gbps * 1e9)
    return Demands(cpu, storage, flows * rtt_s, tgt_cpu, tgt_io, mirrored, app_wait, transfer_s)


def mirrored_txn_share(cfg: MirrorConfig, w: float, ops: float, g: dict) -> float:
    """Share of transactions that mirror any action, so that their commit is mirrored too.

    Read-only work is not mirrored (seed 002, 2.2): a transaction of ``ops`` operations, each
    independently a modify (share ``w``) or a read that locks its row for update (``rfu_share``
    of the reads with ``workload.reads_for_update``), mirrors something unless none of its
    operations does, ``(1 - p) ** ops``; a transaction that opens a file for update always does.
    """
    if cfg.opens_for_update_per_txn > 0.0:
        return 1.0
    p = w + (1.0 - w) * (g["rfu_share"] if cfg.reads_for_update else 0.0)
    return 1.0 - (1.0 - p) ** ops


def mirrors_anything(cfg: MirrorConfig) -> bool:
    """Whether the workload has any mirrored action (a modify, a read or an open for update);
    ``workload.write_pct`` not stated takes the profile's share, which modifies."""
    writes = cfg.write_frac is None or cfg.write_frac > 0.0
    return writes or cfg.reads_for_update or cfg.opens_for_update_per_txn > 0.0


def flow_bytes(payload_bytes: float) -> float:
    """Bytes one mirrored action puts on the link: its payload in RoCE v2 frames of at most
    :data:`ROCE_MTU_BYTES`, each with :data:`ROCE_FRAME_OVERHEAD_BYTES` (at least one frame)."""
    frames = max(1, math.ceil(payload_bytes / ROCE_MTU_BYTES))
    return payload_bytes + frames * ROCE_FRAME_OVERHEAD_BYTES


def _node_faults(cfg: MirrorConfig, g: dict, role: str) -> float:
    """Page faults per mirrored action of the replication jobs on node ``role``.

    Fewer with more memory (``pool_ref_memory_gb`` / memory); in active-passive the jobs in a
    pool of their own fault (a share ``pool_shared_fault_ratio``; 7.3.6) and in the application's
    pool do not, in active-active a pool of their own faults fully and the shared pool a share.
    """
    mem = getattr(cfg, f"{role}_memory_gb") or g["pool_ref_memory_gb"]
    separate = getattr(cfg, f"{role}_pool_separate")
    faults = g["pool_faults_per_op"] * (g["pool_ref_memory_gb"] / mem)
    if cfg.mode == "active-active":
        return faults * (1.0 if separate else g["pool_shared_fault_ratio"])
    return faults * (g["pool_shared_fault_ratio"] if separate else 0.0)


def _replica_node_waits(cfg: MirrorConfig, g: dict) -> tuple[float, float]:
    """(page faults per mirrored action, share of mirrored row locks that read their row first).

    Active-passive: the target node serves every mirrored action. Active-active: each node is
    the replica of the other's half of the work, so both nodes' memory, pool and pre-loading count.
    """

    def miss(role: str) -> float:
        return 0.0 if getattr(cfg, f"{role}_preload") else g["lock_target_miss_frac"]

    if cfg.mode == "active-active":
        faults = 0.5 * (_node_faults(cfg, g, "source") + _node_faults(cfg, g, "target"))
        return faults, 0.5 * (miss("source") + miss("target"))
    return _node_faults(cfg, g, "target"), miss("target")


def stations(cfg: MirrorConfig, d: Demands, coeffs: dict) -> list[Station]:
    """The closed network's stations for ``cfg`` (active-active folds both nodes symmetrically)."""
    st = _stations(cfg, d, coeffs)
    p = coeffs["profiles"][cfg.api]
    wait_s = p.get("wait_ms_per_op", 0.0) * p["ops_per_txn"] / 1000.0
    if wait_s > 0:
        # the database's own waits that do not queue (journal and log forces, SQL engine waits)
        st.append(Station("db_wait", wait_s, "delay"))
    return st


def _stations(cfg: MirrorConfig, d: Demands, coeffs: dict) -> list[Station]:
    g = coeffs["global"]
    servers = float(g["storage_servers"][cfg.storage])
    src_c = max(1.0, cfg.source_cores)
    tgt_c = max(1.0, cfg.target_cores)
    if cfg.mode == "active-active":
        # half the transactions start on each node; each node's CPU serves its own source work and the
        # other node's target work
        node = 0.5 * (d.cpu_s + d.target_cpu_s)
        io = 0.5 * (d.storage_s + d.target_io_s)
        st = [
            Station("cpu", node, "multi", src_c),
            Station("target_cpu", node, "multi", tgt_c),
            Station("mirror_link", d.link_s, "delay"),
            # each node's half of the work sends its bytes on its own direction of the link
            Station(TRANSFER, d.link_transfer_s, "multi", 2),
        ]
        if cfg.shared_storage:
            st.append(Station("mirror_target_io", 2 * io, "multi", servers))
        else:
            st += [
                Station("storage", io, "multi", servers),
                Station("mirror_target_io", io, "multi", servers),
            ]
        return st
    st = [Station("cpu", d.cpu_s, "multi", src_c)]
    if cfg.mode == "none":
        st.append(Station("storage", d.storage_s, "multi", servers))
        return st
    st += [
        Station("mirror_link", d.link_s, "delay"),
        Station(TRANSFER, d.link_transfer_s, "queue"),
        Station("target_cpu", d.target_cpu_s, "multi", tgt_c),
    ]
    if cfg.shared_storage:
        st.append(Station("mirror_target_io", d.storage_s + d.target_io_s, "multi", servers))
    else:
        st += [
            Station("storage", d.storage_s, "multi", servers),
            Station("mirror_target_io", d.target_io_s, "multi", servers),
        ]
    return st


# --------------------------------------------------------------------------- populations


def _users_fes(st: list[Station], users: int, think_s: float, jobs: int) -> tuple[float, float]:
    """Users with think time served by a pool of ``jobs`` jobs: returns (txn/s, response s).

    The job pool is a flow-equivalent server whose rate with ``n`` busy jobs is the
    sub-network's exact MVA throughput ``X(min(n, jobs))``; the users form a
    finite-source birth-death chain in front of it.
    """
    curve = throughput_curve(st, jobs)
    x_of = np.array([c[0] for c in curve])
    n = np.arange(users + 1)
    mu = np.empty(users + 1)
    mu[0] = 1.0
    mu[1:] = x_of[np.minimum(n[1:], jobs) - 1]
    # lambda_n = (users - n) / think  (finite source)
    lam = (users - n[:-1]) / think_s
    logp = np.concatenate([[0.0], np.cumsum(np.log(lam) - np.log(mu[1:]))])
    logp -= logp.max()
    p = np.exp(logp)
    p /= p.sum()
    x = float((p[1:] * mu[1:]).sum())
    busy = float((p * np.minimum(n, jobs)).sum())
    return x, busy / x if x > 0 else float("inf")


@dataclass(frozen=True)
class Solution:
    """Solved operating point of one configuration."""

    txn_per_s: float
    response_s: float
    source_cpu_busy: float
    target_cpu_busy: float
    utilisation: dict
    residence_s: dict


def solve(cfg: MirrorConfig, coeffs: dict) -> Solution:
    """Solve the closed network for ``cfg``; see the module docstring."""
    g = coeffs["global"]
    p = coeffs["profiles"][cfg.api]
    d = demands(cfg, coeffs)
    st = stations(cfg, d, coeffs)
    if cfg.users is not None:
        think_s = (cfg.think_time_ms / 1000.0) if cfg.think_time_ms is not None else p["user_think_s"]
        jobs = max(1, int(round(cfg.users / p["users_per_job"])))
        x, r = _users_fes(st, cfg.users, think_s, jobs)
        res = solve_mva(st, min(jobs, max(1.0, x * r)), 0.0, method="schweitzer")
        resid = res.residence_s
    else:
        if cfg.job_sets is not None:
            n = cfg.job_sets * p["jobs_per_job_set"]
            think_s = (cfg.think_time_ms if cfg.think_time_ms is not None else p["job_think_ms"]) / 1000.0
        else:
            # a back-to-back stream whose cycle includes the application's own waits
            n = g["default_jobs_per_core"] * cfg.source_cores * (2 if cfg.mode == "active-active" else 1)
            think_s = (cfg.think_time_ms or 0.0) / 1000.0
            st = st + [Station("application", d.app_wait_s, "delay")]
        res = solve_mva(st, n, think_s, method="schweitzer" if not float(n).is_integer() else "auto")
        x, r, resid = res.throughput_per_s, res.response_s, res.residence_s
    util = {s.name: x * s.queue_demand_s for s in st if s.kind != "delay"}
    src_c, tgt_c = cfg.source_cores, cfg.target_cores
    if cfg.mode == "active-active":
        src_busy = x * 0.5 * (d.cpu_s + d.target_cpu_s)
        tgt_busy = src_busy
    else:
        src_busy = x * d.cpu_s
        tgt_busy = x * d.target_cpu_s
    # polling for RDMA completions: jobs waiting remotely burn part of the idle cores
    remote_s = sum(resid.get(k, 0.0) for k in ("mirror_link", TRANSFER, "target_cpu", "mirror_target_io"))
    if cfg.mode == "active-active":
        remote_s *= 0.5  # each node hosts half the waiting jobs
    if cfg.mode != "none":
        waiting = x * remote_s
        spin_src = g["spin_fraction"] * min(max(src_c - src_busy, 0.0), waiting)
        if cfg.mode == "active-active":  # each node spins on its own idle cores
            tgt_busy += g["spin_fraction"] * min(max(tgt_c - tgt_busy, 0.0), waiting)
        src_busy += spin_src
    return Solution(x, r, min(src_busy, src_c), min(tgt_busy, tgt_c), util, dict(resid))


# --------------------------------------------------------------------------- outputs


def resync_time_s(cfg: MirrorConfig, coeffs: dict) -> float | None:
    """Time to apply ``resync_tracked_changes`` tracked row changes to the blocked node, in seconds.

    Each change costs one remote action (RDMA round trip, target CPU, target write);
    ``resync_parallel_degree`` streams run at once, bounded by the target's cores.
    """
    if cfg.resync_tracked_changes is None:
        return None
    g = coeffs["global"]
    p = coeffs["profiles"][cfg.api]
    per_change_s = (g["rdma_rtt_ms"] + p["mirror_tgt_cpu_ms_per_op"] + g["write_ms"][cfg.storage]) / 1000.0
    streams = max(1, min(cfg.resync_parallel_degree, int(math.ceil(cfg.target_cores))))
    return cfg.resync_tracked_changes * per_change_s / streams


def _metrics(cfg: MirrorConfig, sol: Solution, coeffs: dict) -> dict:
    p = coeffs["profiles"][cfg.api]
    m = {
        "tps": sol.txn_per_s,
        "throughput": sol.txn_per_s * p["throughput_units_per_txn"],
        "response_time_ms": 1000.0 * sol.response_s,
        "source_cpu_pct": 100.0 * sol.source_cpu_busy / cfg.source_cores,
    }
    if cfg.mode != "none":
        m["target_cpu_pct"] = 100.0 * sol.target_cpu_busy / cfg.target_cores
    return m


UNITS = {
    "tps": "txn/s",
    "throughput": "ops/s",
    "response_time_ms": "ms",
    "source_cpu_pct": "%",
    "target_cpu_pct": "%",
    "throughput_change_pct": "%",
    "response_time_change_pct": "%",
    "runtime_change_pct": "%",
    "cpu_change_pct": "%",
    "resync_time_s": "s",
}


def evaluate(cfg: MirrorConfig, coeffs: dict) -> tuple[dict, Solution]:
    """Metrics (README names) and the solution for ``cfg`` with ``coeffs``."""
    sol = solve(cfg, coeffs)
    m = _metrics(cfg, sol, coeffs)
    if cfg.mode != "none":
        base = solve(replace(cfg, mode="none"), coeffs)
        m["throughput_change_pct"] = 100.0 * (sol.txn_per_s / base.txn_per_s - 1.0)
        m["response_time_change_pct"] = 100.0 * (sol.response_s / base.response_s - 1.0)
        m["runtime_change_pct"] = 100.0 * (base.txn_per_s / sol.txn_per_s - 1.0)
        m["cpu_change_pct"] = 100.0 * (
            (sol.source_cpu_busy / cfg.source_cores) / (base.source_cpu_busy / cfg.source_cores) - 1.0
        )
    t = resync_time_s(cfg, coeffs)
    if t is not None:
        m["resync_time_s"] = t
    return m, sol


def predict(settings: dict) -> Prediction:
    """Predict a ``db2mirror`` scenario.

    Raises
    ------
    FieldError
        A setting is out of range (the message names it).
    """
    cfg, used = parse_settings(settings)
    coeffs = load("mirror")
    m, sol = evaluate(cfg, coeffs)
    d = demands(cfg, coeffs)
    st = stations(cfg, d, coeffs)
    stages = []
    for s in st:
        cap_txn = s.capacity_per_s
        stages.append(
            StageResult(
                s.name,
                cap_txn,
                sol.utilisation.get(s.name, 0.0),
                "txn/s",
                1000.0 * sol.residence_s.get(s.name, 0.0),
            )
        )
    if cfg.mode == "none":
        bottleneck = (
            "cpu" if sol.utilisation.get("cpu", 0) >= sol.utilisation.get("storage", 0) else "storage"
        )
    else:
        cands = {
            "cpu": max(sol.utilisation.get("cpu", 0.0), sol.source_cpu_busy / cfg.source_cores),
            "mirror_target_io": max(
                sol.utilisation.get("mirror_target_io", 0.0), sol.utilisation.get("storage", 0.0)
            ),
            "mirror_link": max(
                sol.residence_s.get("mirror_link", 0.0) / max(sol.response_s, 1e-12),
                sol.utilisation.get(TRANSFER, 0.0),
            ),
            "target_cpu": sol.utilisation.get("target_cpu", 0.0),
        }
        bottleneck = max(cands, key=cands.get)
    units = {k: UNITS.get(k, "") for k in m}
    reasons = {p: "not used by the Db2 Mirror engine" for p in unused_settings(settings, used)}
    present = set(setting_paths(settings))
    reasons.update({p: why for p, why in inert_settings(cfg, settings).items() if p in present})
    return Prediction.explained(
        "db2mirror",
        m,
        reasons,
        units=units,
        stages=tuple(stages),
        bottleneck=bottleneck,
        coefficients_version=coeffs.get("version", ""),
    )


def inert_settings(cfg: MirrorConfig, settings: dict) -> dict:
    """Settings path -> why it cannot change this scenario's results (reported in ``ignored``)."""
    wl = settings.get("workload") or {}
    out = {"workload.name": "a label: the engine never reads physics from free text"}
    if wl.get("write_pct") is not None:
        out["workload.read_pct"] = "workload.write_pct gives the modifying share; the rest are reads"
    out["workload.style"] = (
        "one application profile serves every job stream (the published client runs do not state a style)"
    )
    if cfg.mode != "active-active":
        out["hardware.source_memory_gb"] = (
            "active-passive: the replication server jobs run on the target only"
        )
        out["hardware.source_memory_pool"] = out["hardware.source_memory_gb"]
        out["hardware.source_preload"] = "active-passive: only the target's memory serves mirrored row locks"
    if not (cfg.reads_for_update or cfg.opens_for_update_per_txn) or cfg.mode == "none":
        why = "no mirrored row locks (workload.reads_for_update false, no opens for update)"
        out["hardware.target_preload"] = out["hardware.source_preload"] = why
    if cfg.mode == "none":
        why = "mode none: nothing is mirrored"
        for k in (
            "target_memory_gb",
            "target_memory_pool",
            "source_memory_pool",
            "source_memory_gb",
            "shared_storage",
        ):
            out[f"hardware.{k}"] = why
    if cfg.resync_tracked_changes is None:
        out["resync.parallel_degree"] = "no resync.tracked_changes to apply"
    if cfg.mode == "none":
        out["link.speed_gbps"] = out["link.distance_km"] = out["workload.row_bytes"] = (
            "mode none: nothing is mirrored"
        )
    elif not mirrors_anything(cfg):
        why = "read-only work is not mirrored: nothing crosses the link"
        out["link.speed_gbps"] = out["link.distance_km"] = out["workload.row_bytes"] = why
    elif cfg.write_frac == 0.0:
        out["workload.row_bytes"] = "no mirrored row changes (workload.write_pct 0)"
    return out
