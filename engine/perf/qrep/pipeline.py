"""Steady-state solver of a Q Replication flow: stage capacities, utilisations and latencies.

The throughput ``X`` (rows/s of one flow) is the fixed point of

    X = min(workload(X), u * min_s capacity_s(X))

where every capacity falls as CPU contention rises with ``X`` (CPU utilisation of each LPAR
stretches the elapsed time of its CPU work, :func:`engine.perf.qrep.queueing.cpu_inflation`)
and a closed workload's rate falls as its response time grows. ``u`` is the share of the
bottleneck's capacity a workload driven to the maximum sustains (coefficient
``max_drive_utilisation``); for an offered rate or a closed workload ``u`` is 1 and a rate
above the capacity is reported as overload (the backlog grows, latencies are not finite).

Bidirectional and peer-to-peer flows are symmetric: each system runs its own workload,
captures it and applies the other system's, so every LPAR carries both directions' work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.errors import ValueRangeError
from engine.perf import mq_bufferpool
from engine.perf.qrep import (
    apply_parallel,
    catch_up,
    channel,
    data_sharing,
    distributed_qm,
    inert,
    latency,
    parallel_sendqs,
    platform_flow,
    queue_maps,
    shared_queue,
    topology_coefficients,
)
from engine.perf.qrep.costs import (
    StaticDemands,
    dependent_share,
    parallel_agents,
    static_demands,
)
from engine.perf.qrep.geometry import Geometry, message_geometry
from engine.perf.qrep.inputs import QrepInputs
from engine.perf.qrep.platforms import FlowPlatform
from engine.perf.qrep.queueing import RHO_CAP, blocking_factor, cpu_inflation, mmc_wait
from engine.perf.qrep.topology_inert import topology_inert_settings

#: Stage name -> bottleneck vocabulary of ../shared/validation/README.md.
VOCABULARY = {
    "source_workload": "source_workload",
    "source_cpu": "cpu",
    "capture_cpu": "cpu",
    "qcapture": "qcapture",
    "mq_log": "mq_log",
    "mq_channel": "mq_channel",
    "mq_pageset": "mq_pageset",
    "apply_mq_log": "mq_log",
    "qapply_browser": "qapply_browser",
    "qapply_agents": "qapply_agents",
    "qapply_cpu": "qapply_cpu",
    "cf_structure": "cf_structure",
    "smds": "smds",
    "db2_offload": "db2_offload",
    **platform_flow.STAGE_VOCABULARY,
}
_LPAR_STAGE = {"S": "source_cpu", "C": "capture_cpu", "A": "qapply_cpu"}


@dataclass(frozen=True)
class Stage:
    """One stage at the solved operating point.

    Attributes
    ----------
    name : str
        Stage name (keys of :data:`VOCABULARY`).
    capacity_rows_per_s, capacity_msgs_per_s : float
        Most the stage carries, in rows/s and MQ messages/s.
    utilisation : float
        Carried rate over capacity.
    servers : int
        Parallel servers (agents, processors; 1 for single-threaded stages).
    service_ms : float
        Time one server spends on one unit (a message, or a target transaction for the agents).
    latency_ms : float
        Mean time a transaction spends in the stage (waiting and service).
    fixed_delay_ms : float
        Delay that does not depend on load (sleep interval, log availability, batching).
    """

    name: str
    capacity_rows_per_s: float
    capacity_msgs_per_s: float
    utilisation: float
    servers: int = 1
    service_ms: float = 0.0
    latency_ms: float = 0.0
    fixed_delay_ms: float = 0.0

    @property
    def vocabulary(self) -> str:
        """The bottleneck name of this stage."""
        return VOCABULARY[queue_maps.base_name(self.name)]


@dataclass(frozen=True)
class Lpar:
    """One LPAR: the roles it hosts (S workload, C capture, A apply), CPs and load."""

    roles: str
    cps: int
    busy: float
    inflation: float
    cpu_us_per_row: float


@dataclass(frozen=True)
class Solution:
    """A solved flow. Rates in rows/s or messages/s, times in ms unless the name says us."""

    inputs: QrepInputs
    geometry: Geometry
    demands: StaticDemands
    rows_per_s: float
    overloaded: bool
    offered_rows_per_s: float
    msgs_per_commit: float
    stages: tuple
    lpars: tuple
    bottleneck: str
    limiting_stage: str
    time_factor: float
    capture_latency_ms: float
    qlatency_ms: float
    apply_latency_ms: float
    class2_ms: float
    agent_ms: float
    put_us: float
    commit_us: float
    get_us: float
    capture_cpu_us_per_row: float
    apply_cpu_us_per_row: float
    total_cpu_us_per_row: float
    capture_log_mb_per_s: float
    apply_log_mb_per_s: float
    source_response_ms: float
    queue_depth_msgs: float = 0.0
    agent_contention_row_ref_us: float = 0.0
    ooo_browse_row_ref_us: float = 0.0
    parallel_agents: float = 0.0
    graph_agents: float = 0.0
    inert_settings: dict = field(default_factory=dict)
    fixed_delays_ms: dict = field(default_factory=dict)
    backlog_us_per_msg: dict = field(default_factory=dict)
    topology_metrics: dict = field(default_factory=dict)

    @property
    def msgs_per_s(self) -> float:
        """MQ messages per second of the flow."""
        return self.rows_per_s / self.geometry.rows_per_msg


#: Stage order of :attr:`Solution.stages` (pipeline order).
STAGE_ORDER = (
    "source_workload",
    "source_cpu",
    "capture_cpu",
    "qcapture",
    "mq_log",
    "mq_log_disk",
    "mq_channel",
    "cf_structure",
    "smds",
    "db2_offload",
    "mq_pageset",
    "apply_mq_log",
    "apply_mq_log_disk",
    "mq_svrconn",
    "mq_client",
    "qapply_browser",
    "qapply_agents",
    "qapply_cpu",
)
#: LPAR role letter -> the ``hardware`` setting giving its CPs (named in errors).
_LPAR_CPS_SETTING = {
    "S": "hardware.source_lpar_cps",
    "C": "hardware.capture_lpar_cps",
    "A": "hardware.apply_lpar_cps",
}
#: Smallest capacity reported for a stage (rows/s) so that ratios stay finite.
MIN_CAPACITY_ROWS_PER_S = 1e-9


def _lpar_layout(inp: QrepInputs) -> list:
    """(roles, cps) of the LPARs of one system carrying the flow (drain: apply only)."""
    if inp.mode == "drain":
        return [("A", inp.apply_lpar_cps)]
    if inp.topology == "unidirectional":
        if inp.capture_colocated_with_source:
            return [("SC", inp.source_lpar_cps), ("A", inp.apply_lpar_cps)]
        return [("S", inp.source_lpar_cps), ("C", inp.capture_lpar_cps), ("A", inp.apply_lpar_cps)]
    if inp.capture_colocated_with_source and inp.apply_colocated_with_target:
        return [("SCA", inp.source_lpar_cps)]
    if inp.capture_colocated_with_source:
        return [("SC", inp.source_lpar_cps), ("A", inp.apply_lpar_cps)]
    return [("S", inp.source_lpar_cps), ("C", inp.capture_lpar_cps), ("A", inp.apply_lpar_cps)]


def _cpu_model(inp: QrepInputs, c) -> tuple[float, str]:
    """(time factor vs the reference CP, the storage of its page sets) for the inputs' CPU model.

    The time factor is ``(reference MIPS / MIPS per CP) ** mips_scaling_exponent``: rated MIPS
    ratios need not hold for replication work, so the exponent is fitted.
    """
    model = c.cpu_models.get(inp.cpu_model)
    if model is None and inp.mips_per_cp is None:
        raise ValueRangeError(
            "hardware.cpu_model",
            inp.cpu_model,
            "one of " + ", ".join(sorted(c.cpu_models)) + " (or give hardware.mips_per_cp)",
        )
    mips = inp.mips_per_cp or float(model["mips_per_cp"])
    storage = (model or {}).get("storage", "ds8000")
    return (c.reference_mips / mips) ** c.mips_scaling_exponent, storage


def _processor_text(inp: QrepInputs) -> str:
    """The processors an LPAR error names: ``"1 MIPS (hardware.mips_per_cp)"`` or the CPU model."""
    if inp.mips_per_cp is not None:
        return f"{inp.mips_per_cp:,.4g} MIPS (hardware.mips_per_cp)"
    return f"a {inp.cpu_model} (hardware.cpu_model)"


def cpu_model_time_factor(inp: QrepInputs, c) -> float:
    """Time factor of the inputs' CPU model against the reference CP (see :func:`_cpu_model`)."""
    return _cpu_model(inp, c)[0]


def pageset_read_us(pages: float, storage: str, c) -> float:
    """Wait (us) of reading one message's ``pages`` 4 KB pages back from a page set on ``storage``.

    DS8000-class disk: the MQ mover's page-set read, one synchronous I/O and each page's transfer
    (:func:`engine.perf.mq_bufferpool.pageset_read_wait_us`, fitted on seed 003's page-set
    measurements); the 2005 study's ESS 800: ``page_read_us_ess800`` per page (fitted on its runs).
    """
    if storage == "ess800":
        return pages * c.page_read_us_ess800
    return mq_bufferpool.pageset_read_wait_us(pages)


def buffer_pool(inp: QrepInputs, c, geometry: Geometry, storage: str) -> tuple[float, float]:
    """A z/OS queue manager's buffer pool for the flow's messages: ``(messages held, us per page-set read)``.

    Beyond what the buffer pool holds (deferred write starts at DWP start % of BUFFPOOL's pages) messages
    are read back from the page set (:func:`pageset_read_us` on the processor's ``storage``), divided
    by ``read_ahead_depth`` with READ_AHEAD on. The simulation uses the same model for the transmit
    queue's and the receive queue's own queue manager (:func:`queue_manager_pool`).
    """
    pages = geometry.pages_per_msg
    held_msgs = inp.dwp_start_pct / 100.0 * inp.buffpool_pages / pages
    read_us = pageset_read_us(pages, storage, c) / (c.read_ahead_depth if inp.read_ahead else 1.0)
    return held_msgs, read_us


def queue_manager_pool(inp: QrepInputs, c) -> tuple[float, float]:
    """:func:`buffer_pool` of the queue manager whose BUFFPOOL and READ_AHEAD ``inp`` carries.

    Returns
    -------
    held_msgs : float
        Messages of the flow's size the buffer pool holds before they go to the page set.
    read_us : float
        Wait to read one message back from the page set, us.

    Raises
    ------
    ValueRangeError
        The inputs' CPU model is unknown (it gives the storage's page read time).
    """
    return buffer_pool(inp, c, message_geometry(inp, c), _cpu_model(inp, c)[1])


class _Flow:
    """Rate-independent quantities of one flow, and its capacities at a given throughput.

    Every attribute carries its unit; CPU figures named ``*_ref_us`` are reference-CPU
    microseconds (multiplied by ``time_factor`` and the LPAR's CPU inflation to get elapsed).
    """

    def __init__(self, inp: QrepInputs, c, txns_available: float = math.inf):
        self.inp, self.c = inp, c
        self.geometry = g = message_geometry(inp, c, txns_available)
        self.k = topology_coefficients.load()
        d = distributed_qm.with_distributed_mq_calls(static_demands(inp, g, c), inp, g.msg_bytes)
        self.demands = d = data_sharing.with_merge_cost(d, inp, self.k)
        self.sq = shared_queue.costs(inp, self.k, c.cf_access_us, g.msg_bytes, self._queued_msgs(inp, c, g))
        self.time_factor, storage = _cpu_model(inp, c)
        self.platform = FlowPlatform(inp.platform, self.time_factor)
        self.drain = inp.mode == "drain"
        self.closed = inp.jobs is not None and not self.drain
        self.open_rows_per_s = None if self.drain else inp.offered_rows_per_s
        self.driven = not self.closed and self.open_rows_per_s is None
        self.layout = _lpar_layout(inp)
        self._lpar_setup(inp, c, g, d)
        self._capture_setup(inp, c, g, d)
        self._apply_setup(inp, c, g, d, storage)
        platform_flow.adjust(self)

    # -- set-up -------------------------------------------------------------------------
    @staticmethod
    def _queued_msgs(inp, c, g) -> float:
        """Messages on the shared queues: a backlog (drain, catch-up) or a commit's worth on each."""
        if inp.mode != "steady":
            return inp.initial_depth_msgs
        return 2.0 * max(1.0, c.maxtrans_per_commit / g.txns_per_msg)

    def _lpar_setup(self, inp, c, g, d) -> None:
        rows_per_msg = g.rows_per_msg
        self.source_row_ref_us = d.source_row_us
        drain_mq_msg_ref_us = d.apply_channel_msg_us if self.drain else 0.0  # no receiver channel
        self.apply_row_ref_us = (
            d.apply_db2_row_us
            + d.apply_agent_row_us
            + (d.browser_msg_us + d.get_cpu_us) / rows_per_msg
            + d.apply_commit_us / g.rows_per_target_txn
            + (d.apply_mq_other_msg_us - drain_mq_msg_ref_us) / rows_per_msg
            + d.apply_other_row_us
        )
        self.capture_fixed_row_ref_us = (
            d.capture_reader_row_us
            + d.capture_worker_row_us
            + (d.put_cpu_us + d.capture_mq_other_msg_us) / rows_per_msg
        )
        monitor_ref_cps_per_row_per_s = c.monitor_row_ms / 1000.0
        self.lpar_time_factor, self.lpar_free_ref_cps, self.lpar_roles = [], [], []
        self.lpar_base_ref_cps = []
        for roles, cps in self.layout:
            base_cps = c.lpar_base_cps
            if "C" in roles:
                base_cps += monitor_ref_cps_per_row_per_s * 1000.0 / inp.capture_monitor_interval_ms
            if "A" in roles:
                base_cps += monitor_ref_cps_per_row_per_s * 1000.0 / inp.apply_monitor_interval_ms
            mp_factor = (1.0 + c.mp_loss * (cps - 1)) * self.platform.speed(roles)
            free_cps = cps / (self.time_factor * mp_factor) - base_cps
            if free_cps <= 0.0:
                raise ValueRangeError(
                    _LPAR_CPS_SETTING[roles[-1]], cps, self._base_load_needs(base_cps, roles)
                )
            self.lpar_base_ref_cps.append(base_cps)
            self.lpar_time_factor.append(self.time_factor * mp_factor)
            self.lpar_free_ref_cps.append(free_cps)
            self.lpar_roles.append(("S" in roles, "C" in roles, "A" in roles))

    def _base_load_needs(self, base_cps: float, roles: str) -> str:
        """What an LPAR too small for its base load of ``base_cps`` reference CPs needs (error text).

        ``n`` CPs carry ``n / (t s (1 + mp_loss (n - 1)))`` reference CPs (``t s`` the time factor
        of its processors), so the base load needs ``n >= k (1 - mp_loss) / (1 - k mp_loss)`` with
        ``k = base_cps t s``; no ``n`` does when ``k mp_loss >= 1``.
        """
        k = base_cps * self.time_factor * self.platform.speed(roles)
        loss = self.c.mp_loss
        load = f"the LPAR's base load of z/OS, Db2, MQ and monitors ({base_cps:.2g} reference CPs)"
        speed = _processor_text(self.inp)
        if k * loss >= 1.0:
            return f"faster processors than {speed}: no number of them carries {load}"
        needed = math.ceil(k * (1.0 - loss) / (1.0 - k * loss) - 1e-9)
        return f"at least {needed:,} CPs of {speed} to carry {load}, or faster processors"

    def _capture_setup(self, inp, c, g, d) -> None:
        persistent = inp.persistent
        self.shared_queue_us = self.sq.request_us if inp.shared_queue else 0.0
        self.max_msgs_per_commit = max(1.0, c.maxtrans_per_commit / g.txns_per_msg)
        self.reader_or_worker_ref_us = max(d.capture_reader_row_us, d.capture_worker_row_us)
        self.capture_blocking = blocking_factor(
            inp.capture_memory_limit_mb * 1048576.0 / max(g.txn_bytes * c.capture_memory_expansion, 1.0)
        )
        self.log_force_us_per_msg = c.mq_log_force_kb_us * g.msg_kb if persistent else 0.0
        self.channel_cpu_us_per_msg = channel.cpu_us_per_msg(inp, c, g, d, self.time_factor)
        self.wire_us_per_msg = channel.wire_us_per_msg(inp, g.msg_bytes, d.wire_fraction)
        self.batch_end_us = channel.batch_end_us(inp, c)
        self.log_bytes_per_s_max = c.mq_log_mb_s_max * 1e6
        self.apply_log_cap_rows_per_s = (
            self.log_bytes_per_s_max * g.rows_per_msg / d.apply_log_bytes_per_msg
            if d.apply_log_bytes_per_msg > 0
            else 0.0
        )

    def _apply_setup(self, inp, c, g, d, storage) -> None:
        target_txn_bytes = g.msg_bytes * g.msgs_per_target_txn
        memory_bytes = inp.apply_memory_limit_mb * 1048576.0
        self.apply_memory_txns = apply_parallel.lookahead_txns(inp.apply_memory_limit_mb, target_txn_bytes)
        self.agents = parallel_agents(inp)
        # a transaction bigger than MEMORY_LIMIT is applied alone (monster): the share of the
        # agents it holds grows with how far it overflows the memory, not as a switch
        overflow = target_txn_bytes / memory_bytes
        self.monster_share = min(1.0, max(0.0, overflow - 1.0)) if overflow > 1.0 else 0.0
        self.dependent = dependent_share(inp, g)
        self.graph_agents = apply_parallel.graph_parallelism(
            self.agents, self.dependent, self.apply_memory_txns
        )
        self.parallelism = self.graph_agents * (1.0 - self.monster_share) + self.monster_share
        self.agent_blocking = blocking_factor(self.apply_memory_txns)
        # the receive queue's buffer pool and page set (a shared queue misses none: pageset_miss_share)
        self.pool_msgs, self.pageset_msg_us = buffer_pool(inp, c, g, storage)
        self.pageset_miss = self.pageset_miss_share(self.depth_msgs(0.0)) if self.drain else 0.0
        self.browser_fixed_us = self.shared_queue_us
        self.class2_cpu_ref_us = d.apply_db2_row_us * g.rows_per_target_txn + d.apply_commit_us
        self.agent_cpu_ref_us = (
            d.apply_agent_row_us * g.rows_per_target_txn + d.get_cpu_us * g.msgs_per_target_txn
        )
        self.agent_fixed_ms = c.agent_txn_ms + self.shared_queue_us * g.msgs_per_target_txn / 1000.0
        self.all_agents = queue_maps.total_parallelism(self.parallelism, inp)
        self.latch_stretch_full = apply_parallel.stretch(self.all_agents, c.agent_latch_share)
        # CPU per row of the agents' own work (Db2 SQL and commit, agent, destructive MQGET), which
        # contention between busy agents stretches by agent_cpu_share per other busy agent
        self.agent_cpu_row_ref_us = (self.class2_cpu_ref_us + self.agent_cpu_ref_us) / g.rows_per_target_txn
        self.pageset_cap_rows_per_s = g.rows_per_msg * 1e6 / self.pageset_msg_us

    # -- rate-dependent -----------------------------------------------------------------
    def depth_msgs(self, msgs_per_commit: float) -> float:
        """Modelled depth of the flow's queues, messages: the pre-loaded queue of a drain; at steady
        state a commit's messages on the transmission queue and on the receive queue."""
        return self.inp.initial_depth_msgs if self.drain else 2.0 * msgs_per_commit

    def depth_msgs_at(self, rows_per_s: float) -> float:
        """:meth:`depth_msgs` with Q Capture's commit at ``rows_per_s`` (a drain's pre-loaded queue)."""
        return self.depth_msgs(0.0 if self.drain else self.msgs_per_commit(rows_per_s))

    def pageset_miss_share(self, depth_msgs: float) -> float:
        """Share of messages read back from the page set at ``depth_msgs`` (z/OS buffer pools)."""
        if self.inp.shared_queue or depth_msgs <= 0.0:
            return 0.0
        return max(0.0, 1.0 - self.pool_msgs / depth_msgs)

    def backlog_us_per_msg(self, depth_msgs: float) -> dict:
        """Per stage, time per message (us) spent reading back what ``depth_msgs`` puts beyond the
        queues' memory (the simulation models depth, and these reads, itself)."""
        drain_read_ahead = self.drain and self.inp.read_ahead  # a drain's read-ahead is its own stage
        read_us = 0.0 if drain_read_ahead else self.pageset_msg_us
        out = {"qapply_browser": self.pageset_miss_share(depth_msgs) * read_us, "mq_channel": 0.0}
        platform_flow.backlog_us_per_msg(self, depth_msgs, out)
        return out

    def msgs_per_commit(self, rows_per_s: float) -> float:
        """Messages in one Q Capture MQ commit at ``rows_per_s``.

        Q Capture sends what it has at the end of each commit period
        (:func:`engine.perf.qrep.latency.commit_period_ms`); it never waits for a group to fill.
        """
        msgs_per_s = rows_per_s / self.geometry.rows_per_msg
        per_period = msgs_per_s * latency.commit_period_ms(self, rows_per_s) / 1000.0
        return min(max(per_period, 1.0), self.max_msgs_per_commit)

    def lpar_loads(self, rows_per_s: float, capture_row_ref_us: float, apply_extra_row_ref_us: float) -> list:
        """Per LPAR: (busy share, CPU inflation, capacity rows/s, reference us per row); the LPAR of
        Q Apply also carries ``apply_extra_row_ref_us`` per row that depends on the operating point
        (the busy agents' contention, the browser's out-of-order search)."""
        out = []
        for i, (_, cps) in enumerate(self.layout):
            has_s, has_c, has_a = self.lpar_roles[i]
            row_ref_us = (
                (self.source_row_ref_us if has_s else 0.0)
                + (capture_row_ref_us if has_c else 0.0)
                + (self.apply_row_ref_us + apply_extra_row_ref_us if has_a else 0.0)
            )
            busy = (
                (rows_per_s * row_ref_us * 1e-6 + self.lpar_base_ref_cps[i]) * self.lpar_time_factor[i] / cps
            )
            inflation = cpu_inflation(cps, busy, self.c.contention_kappa)
            capacity = max(self.lpar_free_ref_cps[i] / (row_ref_us * 1e-6), MIN_CAPACITY_ROWS_PER_S)
            out.append((busy, inflation, capacity, row_ref_us))
        return out

    def evaluate(
        self,
        rows_per_s: float,
        full: bool,
        msgs_per_commit: float | None = None,
        depth_msgs: float | None = None,
    ):
        """Workload demand and stage capacities at ``rows_per_s`` (a :class:`_Point` when ``full``);
        ``msgs_per_commit`` and the queues' ``depth_msgs`` default to their values at that rate."""
        d, g, t = self.demands, self.geometry, self.time_factor
        mpc = self.msgs_per_commit(rows_per_s) if msgs_per_commit is None else msgs_per_commit
        capture_row_ref_us = self.capture_fixed_row_ref_us + d.commit_cpu_us / mpc / g.rows_per_msg
        ooo_ref_us = parallel_sendqs.browse_ref_us_per_row(self, mpc)  # out-of-order arrival
        loads = self.lpar_loads(rows_per_s, capture_row_ref_us, ooo_ref_us)
        inflation = self._inflation(loads)
        # the agents busy at this rate (their time at this CPU contention) contend for CPU too
        cpu_stretch = self.agent_cpu_stretch(rows_per_s, inflation["A"])
        if cpu_stretch > 1.0:
            extra_ref_us = ooo_ref_us + (cpu_stretch - 1.0) * self.agent_cpu_row_ref_us
            loads = self.lpar_loads(rows_per_s, capture_row_ref_us, extra_ref_us)
            inflation = self._inflation(loads)
        p = _Point(mpc, loads, inflation)
        p.agent_cpu_stretch = cpu_stretch
        p.ooo_ref_us = ooo_ref_us
        p.backlog_us = self.backlog_us_per_msg(self.depth_msgs(mpc) if depth_msgs is None else depth_msgs)
        self._apply_capacities(p, t, inflation["A"])
        if not self.drain:
            self._capture_capacities(p, rows_per_s, t, inflation["C"], inflation["A"])
        platform_flow.add_stages(self, p)
        if not self.drain:
            channel.cap_by_window(self, p)
        p.demand_rows_per_s, p.source_response_ms = self._workload(t, inflation["S"])
        p.caps = queue_maps.split(p.caps, self.inp)
        if self.inp.shared_queue:
            p.caps += shared_queue.stages(self.sq, self.inp.topo, self.k, g.rows_per_msg)
        if not full:
            return p.demand_rows_per_s, min(cap for _, cap, _, _ in p.caps)
        return p

    def _inflation(self, loads: list) -> dict:
        """Per role (S, C, A): the CPU time factor on its LPAR's processors at ``loads``."""
        inflation = {"S": 1.0, "C": 1.0, "A": 1.0}
        for (roles, _), (_, f, _, _) in zip(self.layout, loads):
            for role in roles:
                inflation[role] = f * self.platform.speed(roles)
        return inflation

    def agent_times_ms(self, f_a: float, cpu_stretch: float = 1.0) -> tuple[float, float]:
        """(Db2 class 2 elapsed, an agent's time) per target transaction, ms, without latch stretch,
        at the apply LPAR's CPU factor ``f_a`` and the agents' CPU contention ``cpu_stretch``."""
        cpu_factor = self.time_factor * f_a * cpu_stretch / 1000.0
        class2_ms = self.class2_cpu_ref_us * cpu_factor + self.demands.class2_wait_ms
        return class2_ms, class2_ms + self.agent_cpu_ref_us * cpu_factor + self.agent_fixed_ms

    def agent_cpu_stretch(self, rows_per_s: float, f_a: float) -> float:
        """Factor on the agents' CPU per row from contention between the agents busy at ``rows_per_s``
        (:func:`engine.perf.qrep.apply_parallel.stretch` with ``agent_cpu_share``)."""
        share = self.c.agent_cpu_share
        if share <= 0.0 or rows_per_s <= 0.0:
            return 1.0
        txns_per_s = rows_per_s / self.geometry.rows_per_target_txn
        busy = apply_parallel.busy_agents(
            txns_per_s, self.agent_times_ms(f_a)[1], self.c.agent_latch_share, self.all_agents
        )
        return apply_parallel.stretch(busy, share)

    def _apply_capacities(self, p, t: float, f_a: float) -> None:
        g, d = self.geometry, self.demands
        p.ooo_us = parallel_sendqs.browse_us_per_msg(self, p, t, f_a)  # out-of-order arrival
        p.browser_us = (
            d.browser_msg_us * t * f_a + self.browser_fixed_us + p.backlog_us["qapply_browser"] + p.ooo_us
        )
        p.class2_ms, p.agent_ms = self.agent_times_ms(f_a, p.agent_cpu_stretch)
        agent_cap = (
            self.parallelism
            * g.rows_per_target_txn
            * 1000.0
            / (p.agent_ms * self.latch_stretch_full)
            * self.agent_blocking
        )
        for i, (roles, cps) in enumerate(self.layout):
            p.caps.append((_LPAR_STAGE[roles[0]], p.loads[i][2], cps, 0.0))
        p.caps.append(("qapply_browser", g.rows_per_msg * 1e6 / p.browser_us, 1, p.browser_us / 1000.0))
        p.caps.append(("qapply_agents", agent_cap, self.agents, p.agent_ms))
        if self.drain and self.inp.read_ahead and not self.inp.shared_queue:
            p.caps.append(("mq_pageset", self.pageset_cap_rows_per_s, 1, self.pageset_msg_us / 1000.0))

    def _capture_capacities(self, p, rows_per_s: float, t: float, f_c: float, f_a: float) -> None:
        g, d, c = self.geometry, self.demands, self.c
        mpc = p.mpc
        p.worker_us = self.reader_or_worker_ref_us * t * f_c
        p.put_us = d.put_cpu_us * t * f_c + self.shared_queue_us
        zos_force_us = c.mq_log_io_us + self.log_force_us_per_msg * mpc
        p.commit_us = d.commit_cpu_us * t * f_c + platform_flow.commit_force_us(self, mpc, zos_force_us)
        publisher_us = (p.put_us + p.commit_us / mpc) / g.rows_per_msg
        busiest_us = max(p.worker_us, publisher_us)
        p.capture_log_bytes_per_row = (
            d.capture_log_bytes_per_msg + c.restart_bytes_per_commit / mpc
        ) / g.rows_per_msg
        p.channel_us = channel.send_us_per_msg(self, p, f_c, f_a)
        p.caps.append(
            ("qcapture", 1e6 / busiest_us * self.capture_blocking, 1, busiest_us * g.rows_per_msg / 1000.0)
        )
        p.caps.append(("mq_log", self.log_bytes_per_s_max / p.capture_log_bytes_per_row, 1, 0.0))
        p.caps.append(("mq_channel", g.rows_per_msg * 1e6 / p.channel_us, 1, p.channel_us / 1000.0))
        if self.apply_log_cap_rows_per_s:
            p.caps.append(("apply_mq_log", self.apply_log_cap_rows_per_s, 1, 0.0))

    def _workload(self, t: float, f_s: float) -> tuple[float, float]:
        """(rows/s the workload offers at this contention, source response time ms)."""
        inp = self.inp
        if self.closed:
            response_ms = inp.rows_per_txn * self.source_row_ref_us * t * f_s / 1000.0 + self.c.src_commit_ms
            return inp.jobs * inp.rows_per_txn * 1000.0 / (inp.think_time_ms + response_ms), response_ms
        return (self.open_rows_per_s if self.open_rows_per_s is not None else math.inf), 0.0


class _Point:
    """The flow evaluated at one throughput (filled by :meth:`_Flow.evaluate`)."""

    def __init__(self, mpc: float, loads: list, inflation: dict):
        self.mpc = mpc
        self.loads = loads
        self.inflation = inflation
        self.caps: list = []  # (stage name, capacity rows/s, servers, service ms)
        self.worker_us = self.put_us = self.commit_us = self.channel_us = 0.0
        self.capture_log_bytes_per_row = 0.0
        self.backlog_us: dict = {}  # stage -> us per message reading back from page set / queue file
        self.agent_cpu_stretch = 1.0  # factor on the agents' CPU from contention between busy agents
        self.ooo_ref_us = 0.0  # the browser's reference us per row searching for out-of-order messages

    @property
    def capacity_rows_per_s(self) -> float:
        """Capacity of the most limiting stage."""
        return min(cap for _, cap, _, _ in self.caps)


def _throughput(flow: _Flow) -> float:
    """The throughput fixed point ``X = min(workload(X), u * min capacity(X))`` in rows/s."""
    share = flow.c.max_drive_utilisation if flow.driven else 1.0

    def gap(x: float) -> float:
        demand, cap_min = flow.evaluate(x, False)
        return min(demand, share * cap_min) - x

    # upper bound: no contention, no page-set reads and the fullest MQ commits (capacities only
    # fall from there, except that more messages per commit make commits cheaper, which this
    # bound includes)
    demand0, cap0 = flow.evaluate(
        0.0, False, msgs_per_commit=flow.max_msgs_per_commit, depth_msgs=0.0 if not flow.drain else None
    )
    hi = min(demand0, share * cap0)
    if hi <= 0.0:
        return 0.0
    gap_hi = gap(hi)
    if gap_hi >= 0.0:
        return hi
    # one fixed-point step from above lands just below the root when capacities vary slowly
    lo = hi + gap_hi
    gap_lo = gap(lo) if lo > 0.0 else 1.0
    if gap_lo < 0.0 or lo <= 0.0:
        lo, gap_lo = 0.0, None
    return _root(gap, lo, hi, fa=gap_lo, fb=gap_hi)


def solve(inp: QrepInputs, c) -> Solution:
    """Solve one flow at steady state (or the drain of a pre-loaded receive queue).

    Parameters
    ----------
    inp : QrepInputs
        Validated inputs (:func:`engine.perf.qrep.inputs.read_inputs`).
    c : Coefficients
        Fitted coefficients (:mod:`engine.perf.qrep.coefficients`).

    Returns
    -------
    Solution

    Raises
    ------
    ValueRangeError
        An LPAR cannot even carry its base load (too few CPs or too slow processors).
    """
    if inp.mode == "catch-up":
        return catch_up.solve(inp, c, _solve_flow, STAGE_ORDER)
    return _solve_flow(inp, c)


#: Most re-solves with the message packing of the last throughput (:func:`_packed_flow`).
PACKING_ROUNDS = 8
#: Relative change of transactions per message below which the packing has converged.
PACKING_RTOL = 1e-6


def _packed_flow(inp: QrepInputs, c) -> tuple[_Flow, float]:
    """The flow whose messages hold what one log pass finds at its own throughput, and that rate.

    TRANS_BATCH_SZ groups are full at high rates; at light load a message holds the
    transactions of one pass over the log (:func:`engine.perf.qrep.latency.txns_per_pass`),
    which depends on the throughput, which depends on the packing: a fixed point reached by
    re-solving from full groups (fewer transactions per message only lower the throughput a
    flow can carry, so the iteration settles within a few rounds).
    """
    flow = _Flow(inp, c)
    rows_per_s = _throughput(flow)
    if flow.drain:
        return flow, rows_per_s
    for _ in range(PACKING_ROUNDS):
        available = latency.txns_per_pass(flow, rows_per_s)
        if available >= inp.trans_batch_sz and flow.geometry.txns_per_msg >= inp.trans_batch_sz:
            break
        packed = _Flow(inp, c, available)
        old_txns = flow.geometry.txns_per_msg
        flow, rows_per_s = packed, _throughput(packed)
        if abs(packed.geometry.txns_per_msg - old_txns) <= PACKING_RTOL * old_txns:
            break
    return flow, rows_per_s


def _solve_flow(inp: QrepInputs, c) -> Solution:
    """Solve a steady flow (at the backlog's depth in a catch-up) or a drain."""
    flow, rows_per_s = _packed_flow(inp, c)
    point = flow.evaluate(rows_per_s, True)
    overloaded = (not flow.driven) and point.demand_rows_per_s > point.capacity_rows_per_s * (1.0 + 1e-9)
    return _assemble(flow, rows_per_s, point, overloaded)


def _root(
    f, a: float, b: float, rtol: float = 1e-9, fa: float | None = None, fb: float | None = None
) -> float:
    """Root of ``f`` on ``[a, b]`` with ``f(a) > 0 > f(b)`` (Illinois regula falsi).

    The throughput gap is nearly linear, so this takes a handful of evaluations; ``fa`` and
    ``fb`` may pass values already known.
    """
    fa = f(a) if fa is None else fa
    fb = f(b) if fb is None else fb
    if fa <= 0.0:
        return a
    side = 0
    tol = rtol * abs(b) + 1e-12
    for _ in range(100):
        x = (a * fb - b * fa) / (fb - fa)
        fx = f(x)
        if fx == 0.0 or abs(fx) <= tol:
            return x
        if fx > 0.0:
            a, fa = x, fx
            if side == 1:
                fb *= 0.5
            side = 1
        else:
            b, fb = x, fx
            if side == -1:
                fa *= 0.5
            side = -1
        if b - a <= tol:
            break
    return 0.5 * (a + b)


def _single_server_latency_ms(service_ms: float, rho: float) -> float:
    """Mean time in an M/M/1 stage: service plus wait ``rho / (1 - rho)`` services."""
    r = min(rho, RHO_CAP)
    return service_ms / (1.0 - r)


def _stages(flow: _Flow, rows_per_s: float, point: _Point) -> list:
    """The stages at the operating point, each with its utilisation and latency."""
    g, c = flow.geometry, flow.c
    stages = []
    for name, cap, servers, service_ms in point.caps:
        rho = min(rows_per_s / cap, 1.0) if cap > 0 else 1.0
        if queue_maps.base_name(name) == "qapply_agents":
            txns_per_s = rows_per_s / g.rows_per_target_txn
            busy = apply_parallel.busy_agents(txns_per_s, service_ms, c.agent_latch_share, flow.all_agents)
            service_ms *= apply_parallel.stretch(busy, c.agent_latch_share)
            latency = service_ms + mmc_wait(servers, rho, service_ms)
        elif servers == 1 and service_ms > 0:
            latency = _single_server_latency_ms(service_ms, rho)
        else:
            latency = 0.0
        stages.append(Stage(name, cap, cap / g.rows_per_msg, rho, servers, service_ms, latency, 0.0))
    if point.demand_rows_per_s != math.inf:
        demand = point.demand_rows_per_s
        stages.append(
            Stage(
                "source_workload",
                demand,
                demand / g.rows_per_msg,
                min(rows_per_s / demand, 1.0) if demand > 0 else 0.0,
                flow.inp.jobs or 1,
                point.source_response_ms,
                point.source_response_ms,
                0.0,
            )
        )
    stages.sort(
        key=lambda st: (STAGE_ORDER.index(queue_maps.base_name(st.name)), queue_maps.map_index(st.name))
    )
    return stages


def _bottleneck(flow: _Flow, stages: list, point: _Point) -> tuple[str, str]:
    """(bottleneck, name of the limiting stage).

    The limiting stage is the one with the least capacity (the busiest: every stage carries the
    same rows/s); the page set limits only a drain. The bottleneck is that stage's name, the
    same in every output (``engine.evaluate`` translates it to the published vocabulary).
    Agents whose time is mostly Db2 waits under page locking are reported as ``target_db2``; a
    browser mostly waiting for page-set reads (a drain without read-ahead) as ``mq_pageset``.
    """
    candidates = [st for st in stages if st.name != "mq_pageset" or flow.drain]
    limiting = min(candidates, key=lambda st: st.capacity_rows_per_s)
    wait_share = flow.demands.class2_wait_ms / point.class2_ms if point.class2_ms > 0 else 0.0
    limiting_base = queue_maps.base_name(limiting.name)
    if limiting_base == "qapply_agents" and wait_share > 0.5 and flow.inp.locking == "page":
        return "target_db2", limiting.name
    pageset_us = flow.pageset_miss * flow.pageset_msg_us if not flow.inp.read_ahead else 0.0
    if limiting_base == "qapply_browser" and flow.drain and pageset_us > 0.5 * point.browser_us:
        return "mq_pageset", limiting.name
    return limiting.name, limiting.name


def _assemble(flow: _Flow, rows_per_s: float, point: _Point, overloaded: bool) -> Solution:
    """Turn the evaluated operating point into a :class:`Solution`."""
    inp, g, d, c, t = flow.inp, flow.geometry, flow.demands, flow.c, flow.time_factor
    stages = _stages(flow, rows_per_s, point)
    bottleneck, limiting = _bottleneck(flow, stages, point)
    lpars = tuple(
        Lpar(roles, cps, busy, f, row_ref_us * flow.lpar_time_factor[i])
        for i, ((roles, cps), (busy, f, _, row_ref_us)) in enumerate(zip(flow.layout, point.loads))
    )
    by_name, map_point = queue_maps.one_map_view({st.name: st for st in stages}, point, inp)
    mp = {
        role: (1.0 + c.mp_loss * (lp.cps - 1)) * flow.platform.speed(lp.roles)
        for lp in lpars
        for role in lp.roles
    }
    apply_cpu = (
        (
            d.apply_db2_row_us
            + d.apply_agent_row_us
            + (d.browser_msg_us + d.get_cpu_us) / g.rows_per_msg
            + d.apply_commit_us / g.rows_per_target_txn
        )
        * t
        * mp["A"]
    )
    contention_ref_us = (point.agent_cpu_stretch - 1.0) * flow.agent_cpu_row_ref_us
    apply_cpu += (contention_ref_us + point.ooo_ref_us) * t * mp["A"]
    apply_other = (d.apply_mq_other_msg_us / g.rows_per_msg + d.apply_other_row_us) * t * mp["A"]
    get_us = _get_elapsed(inp, g, c, t, point.inflation["A"])
    if flow.drain and not inp.read_ahead:  # the browse waits for the page-set read
        get_us += 0.5 * flow.pageset_miss * flow.pageset_msg_us
    apply_lat = latency.apply_latency_ms(flow, by_name, map_point)
    common = dict(
        inputs=inp,
        geometry=g,
        demands=d,
        rows_per_s=rows_per_s,
        overloaded=overloaded,
        offered_rows_per_s=point.demand_rows_per_s,
        stages=tuple(stages),
        lpars=lpars,
        bottleneck=bottleneck,
        limiting_stage=limiting,
        time_factor=t,
        backlog_us_per_msg=dict(point.backlog_us),
        queue_depth_msgs=flow.depth_msgs(point.mpc),
        apply_latency_ms=apply_lat,
        class2_ms=point.class2_ms,
        agent_ms=point.agent_ms * flow.latch_stretch_full,
        agent_contention_row_ref_us=contention_ref_us,
        ooo_browse_row_ref_us=point.ooo_ref_us,
        parallel_agents=float(flow.agents),
        graph_agents=flow.graph_agents,
        get_us=get_us,
        apply_cpu_us_per_row=apply_cpu,
        apply_log_mb_per_s=d.apply_log_bytes_per_msg * rows_per_s / g.rows_per_msg / 1e6,
        inert_settings={**inert.inert_settings(flow, rows_per_s), **topology_inert_settings(flow)},
        topology_metrics={
            **(
                shared_queue.metrics(flow.sq, inp.topo, rows_per_s / g.rows_per_msg, rows_per_s)
                if inp.shared_queue
                else {}
            ),
            **parallel_sendqs.metrics(flow, point, t, point.inflation["A"], (by_name, map_point)),
        },
    )
    if flow.drain:
        return Solution(
            **common,
            msgs_per_commit=0.0,
            capture_latency_ms=0.0,
            qlatency_ms=0.0,
            put_us=0.0,
            commit_us=0.0,
            capture_cpu_us_per_row=0.0,
            total_cpu_us_per_row=0.0,
            capture_log_mb_per_s=0.0,
            source_response_ms=0.0,
        )
    cap_cpu = (
        (
            d.capture_reader_row_us
            + d.capture_worker_row_us
            + (d.put_cpu_us + d.commit_cpu_us / point.mpc) / g.rows_per_msg
        )
        * t
        * mp["C"]
    )
    cap_other = d.capture_mq_other_msg_us / g.rows_per_msg * t * mp["C"]
    trigger = d.trigger_row_us * t * mp["S"] if inp.topology == "peer-to-peer" else 0.0
    fixed = {
        "qcapture": latency.reader_wait_ms(flow, rows_per_s) + latency.log_merge_delay_ms(flow),
        # the wait for Q Capture's MQCMIT, on the stage the messages leave the send queue by: the
        # channel, or the client's gets when Q Apply reads the send queue (no channel)
        ("mq_client" if flow.platform.inputs.no_channel else "mq_channel"): latency.commit_wait_ms(
            flow, rows_per_s
        ),
    }
    return Solution(
        **common,
        msgs_per_commit=point.mpc,
        fixed_delays_ms=fixed,
        capture_latency_ms=latency.capture_latency_ms(flow, by_name, map_point, rows_per_s),
        qlatency_ms=latency.qlatency_ms(flow, by_name, map_point, rows_per_s),
        put_us=point.put_us,
        commit_us=point.commit_us,
        capture_cpu_us_per_row=cap_cpu,
        total_cpu_us_per_row=cap_cpu + cap_other + apply_cpu + apply_other + trigger,
        capture_log_mb_per_s=point.capture_log_bytes_per_row * rows_per_s / 1e6,
        source_response_ms=point.source_response_ms,
    )


def _get_elapsed(inp, g, c, t, inflation) -> float:
    """Mean elapsed time of Q Apply's MQGETs (a browse and a destructive get per message), us."""
    api_trace = 1.0 + c.mq_trace_factor * (1.0 if inp.global_trace else 0.0)
    browse = (c.mq_get_us + c.mq_get_kb_us * g.msg_kb) * api_trace * t * inflation
    destructive = browse + (c.mq_get_persistent_us * api_trace * t * inflation if inp.persistent else 0.0)
    shared = c.cf_access_us if inp.shared_queue else 0.0
    return 0.5 * (browse + destructive) + shared
