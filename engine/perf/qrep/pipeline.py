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
from dataclasses import dataclass

from engine.errors import ValueRangeError
from engine.perf.qrep.costs import (StaticDemands, dependent_share, effective_agents, parallel_agents,
                                    static_demands)
from engine.perf.qrep.geometry import Geometry, message_geometry
from engine.perf.qrep.inputs import QrepInputs
from engine.perf.qrep.queueing import blocking_factor, cpu_inflation, mmc_wait

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
    "qapply_browser": "qapply_cpu",
    "qapply_agents": "qapply_agents",
    "qapply_cpu": "qapply_cpu",
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
        return VOCABULARY[self.name]


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

    @property
    def msgs_per_s(self) -> float:
        """MQ messages per second of the flow."""
        return self.rows_per_s / self.geometry.rows_per_msg


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


def _cpu_model(inp: QrepInputs, c) -> tuple[float, float]:
    """(time factor vs the reference CP, page-set read time in us) for the inputs' CPU model.

    The time factor is ``(reference MIPS / MIPS per CP) ** mips_scaling_exponent``: rated MIPS
    ratios need not hold for replication work, so the exponent is fitted.
    """
    model = c.cpu_models.get(inp.cpu_model)
    if model is None and inp.mips_per_cp is None:
        raise ValueRangeError("hardware.cpu_model", inp.cpu_model, "one of " + ", ".join(sorted(c.cpu_models))
                              + " (or give hardware.mips_per_cp)")
    mips = inp.mips_per_cp or float(model["mips_per_cp"])
    storage = (model or {}).get("storage", "ds8000")
    page_read = getattr(c, f"page_read_us_{storage}", c.page_read_us_ds8000)
    return (c.reference_mips / mips) ** c.mips_scaling_exponent, page_read


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
    """
    g = message_geometry(inp, c)
    d = static_demands(inp, g, c)
    t, page_read_us = _cpu_model(inp, c)
    drain = inp.mode == "drain"
    layout = _lpar_layout(inp)
    mp = [1.0 + c.mp_loss * (n - 1) for _, n in layout]
    kappa = c.contention_kappa
    rpm = g.rows_per_msg
    kb = g.msg_kb
    rows_tgt = g.rows_per_target_txn
    persistent = inp.persistent
    shared_us = c.cf_access_us if inp.shared_queue else 0.0
    max_trans_msgs = max(1.0, c.maxtrans_per_commit / g.txns_per_msg)
    commit_s = inp.commit_interval_ms / 1000.0
    sleep_s = inp.sleep_interval_ms / 1000.0
    chinit_trace = 1.0 + c.chinit_trace_factor * (1.0 if inp.chinit_trace else 0.0)
    net_bw_us = g.msg_bytes * d.wire_fraction * 8.0 / inp.network_mbps if inp.network_mbps else 0.0

    # rate-independent parts of each role's CPU per row (reference us)
    s_row = d.source_row_us
    a_as_row = (d.apply_db2_row_us + d.apply_agent_row_us + (d.browser_msg_us + d.get_cpu_us) / rpm
                + d.apply_commit_us / rows_tgt)
    a_mq_msg = d.apply_mq_other_msg_us - (d.chinit_msg_us + d.channel_receive_us if drain else 0.0)
    a_row = a_as_row + a_mq_msg / rpm + d.apply_other_row_us
    monitor_cps = c.monitor_row_ms / 1000.0  # reference CPs per (monitor row per s)
    base = []
    for roles, _ in layout:
        b = c.lpar_base_cps
        if "C" in roles:
            b += monitor_cps * 1000.0 / inp.capture_monitor_interval_ms
        if "A" in roles:
            b += monitor_cps * 1000.0 / inp.apply_monitor_interval_ms
        base.append(b)
    cap_mem_buffer = inp.capture_memory_limit_mb * 1048576.0 / max(g.txn_bytes * c.capture_memory_expansion, 1.0)
    target_bytes = g.msg_bytes * g.msgs_per_target_txn
    app_mem_buffer = inp.apply_memory_limit_mb * 1048576.0 / max(target_bytes, 1.0)
    agents = parallel_agents(inp)
    if target_bytes > inp.apply_memory_limit_mb * 1048576.0:
        agents = 1  # a monster transaction is applied alone
    dependent = dependent_share(inp, g)
    parallelism = effective_agents(agents, dependent)
    pages = g.pages_per_msg
    miss = 0.0
    if drain:
        bp_msgs = 0.85 * inp.buffpool_pages / pages
        miss = max(0.0, 1.0 - bp_msgs / inp.initial_depth_msgs)
    pageset_msg_us = pages * page_read_us / (c.read_ahead_depth if inp.read_ahead else 1.0)
    closed = inp.jobs is not None and not drain
    open_rate = None if drain else inp.offered_rows_per_s

    # per-LPAR constants: time factor with the multiprocessor loss, CPU capacity, role flags
    lp_tm = [t * m for m in mp]
    lp_free = [n / (t * m) - b for (_, n), m, b in zip(layout, mp, base)]
    lp_flags = [("S" in roles, "C" in roles, "A" in roles) for roles, _ in layout]
    c_fixed = d.capture_reader_row_us + d.capture_worker_row_us + (d.put_cpu_us + d.capture_mq_other_msg_us) / rpm
    reader_or_worker = max(d.capture_reader_row_us, d.capture_worker_row_us)
    agent_blocking = blocking_factor(app_mem_buffer)
    capture_blocking = blocking_factor(cap_mem_buffer)
    msgs_tgt = g.msgs_per_target_txn
    brw_fixed_us = shared_us + miss * (0.0 if inp.read_ahead else pageset_msg_us)
    class2_cpu_us = d.apply_db2_row_us * rows_tgt + d.apply_commit_us
    agent_cpu_us = d.apply_agent_row_us * rows_tgt + d.get_cpu_us * msgs_tgt
    agent_fixed_ms = c.agent_txn_ms + shared_us * msgs_tgt / 1000.0
    log_force_kb_us = c.mq_log_force_kb_us * kb if persistent else 0.0
    ch_cpu_us = ((c.ch_msg_us + c.ch_kb_us * kb * d.wire_fraction + c.ch_seg_us * g.segments_per_msg) * chinit_trace
                 + d.channel_send_us + d.channel_receive_us) * t
    ch_fixed_us = ((c.ch_batch_us + (c.ch_batch_log_us if persistent else 0.0) + 2000.0 * inp.network_latency_ms)
                   / float(inp.batchsz) + net_bw_us + 2.0 * shared_us)
    log_cap_bytes = c.mq_log_mb_s_max * 1e6
    apply_log_cap = log_cap_bytes * rpm / d.apply_log_bytes_per_msg if d.apply_log_bytes_per_msg > 0 else 0.0
    pageset_cap = rpm * 1e6 / pageset_msg_us

    def evaluate(x: float, full: bool, mpc: float | None = None):
        if mpc is None:
            cycle = commit_s
            if sleep_s > 0:
                w_guess = reader_or_worker * t * x * 1e-6
                cycle = sleep_s / max(1.0 - (w_guess if w_guess < 0.95 else 0.95), 0.05)
            mpc = x / rpm * (commit_s if commit_s < cycle else cycle)
            mpc = max_trans_msgs if mpc > max_trans_msgs else (1.0 if mpc < 1.0 else mpc)
        c_row = c_fixed + d.commit_cpu_us / mpc / rpm
        f_s = f_c = f_a = 1.0
        cap_min = math.inf
        lp_caps = []
        busies = []
        for i, (roles, n) in enumerate(layout):
            has_s, has_c, has_a = lp_flags[i]
            demand = (s_row if has_s else 0.0) + (c_row if has_c else 0.0) + (a_row if has_a else 0.0)
            busy = (x * demand * 1e-6 + base[i]) * lp_tm[i] / n
            f = cpu_inflation(n, busy, kappa)
            if has_s:
                f_s = f
            if has_c:
                f_c = f
            if has_a:
                f_a = f
            cap = lp_free[i] / (demand * 1e-6)
            cap = cap if cap > 1e-9 else 1e-9
            cap_min = cap if cap < cap_min else cap_min
            if full:
                lp_caps.append(cap)
                busies.append((roles, n, busy, f, demand * lp_tm[i]))
        brw_us = d.browser_msg_us * t * f_a + brw_fixed_us
        brw_cap = rpm * 1e6 / brw_us
        class2 = class2_cpu_us * t * f_a / 1000.0 + d.class2_wait_ms
        agent_ms = class2 + agent_cpu_us * t * f_a / 1000.0 + agent_fixed_ms
        agent_cap = parallelism * rows_tgt * 1000.0 / agent_ms * agent_blocking
        cap_min = min(cap_min, brw_cap, agent_cap)
        if drain:
            if inp.read_ahead:
                cap_min = min(cap_min, pageset_cap)
        else:
            worker_us = reader_or_worker * t * f_c
            put_el = d.put_cpu_us * t * f_c + shared_us
            commit_el = d.commit_cpu_us * t * f_c + c.mq_log_io_us + log_force_kb_us * mpc
            publisher_us = (put_el + commit_el / mpc) / rpm
            busiest_us = worker_us if worker_us > publisher_us else publisher_us
            cap_q = 1e6 / busiest_us * capture_blocking
            log_c = (d.capture_log_bytes_per_msg + c.restart_bytes_per_commit / mpc) / rpm
            log_cap = log_cap_bytes / log_c
            ch_us = ch_cpu_us * 0.5 * (f_c + f_a) + ch_fixed_us
            ch_cap = rpm * 1e6 / ch_us
            cap_min = min(cap_min, cap_q, log_cap, ch_cap)
            if apply_log_cap:
                cap_min = min(cap_min, apply_log_cap)
        if closed:
            resp_ms = inp.rows_per_txn * s_row * t * f_s / 1000.0 + c.src_commit_ms
            demand = inp.jobs * inp.rows_per_txn * 1000.0 / (inp.think_time_ms + resp_ms)
        else:
            resp_ms = 0.0
            demand = open_rate if open_rate is not None else math.inf
        if not full:
            return demand, cap_min
        caps = [(_LPAR_STAGE[roles[0]], cap, n, 0.0) for (roles, n), cap in zip(layout, lp_caps)]
        caps.append(("qapply_browser", brw_cap, 1, brw_us / 1000.0))
        caps.append(("qapply_agents", agent_cap, agents, agent_ms))
        if drain:
            if inp.read_ahead:
                caps.append(("mq_pageset", pageset_cap, 1, pageset_msg_us / 1000.0))
            worker_us = put_el = commit_el = ch_us = log_c = None
        else:
            caps.append(("qcapture", cap_q, 1, busiest_us * rpm / 1000.0))
            caps.append(("mq_log", log_cap, 1, 0.0))
            caps.append(("mq_channel", ch_cap, 1, ch_us / 1000.0))
            if apply_log_cap:
                caps.append(("apply_mq_log", apply_log_cap, 1, 0.0))
        infl = {"S": f_s, "C": f_c, "A": f_a}
        return dict(mpc=mpc, lpars=busies, infl=infl, caps=caps, cap_min=cap_min, demand=demand, class2=class2,
                    agent_ms=agent_ms, brw_us=brw_us, resp_ms=resp_ms, put_el=put_el, commit_el=commit_el,
                    worker_us=worker_us, ch_us=ch_us, log_c=log_c, app_mem_buffer=app_mem_buffer, dependent=dependent)

    u = c.max_drive_utilisation
    driven = not closed and open_rate is None

    def gap(x: float) -> float:
        demand, cap_min = evaluate(x, False)
        return min(demand, (u if driven else 1.0) * cap_min) - x

    # upper bound: no contention and the fullest MQ commits (capacities only fall from there,
    # except that more messages per commit make commits cheaper, which this bound includes)
    demand0, cap0 = evaluate(0.0, False, mpc=max_trans_msgs)
    hi = min(demand0, (u if driven else 1.0) * cap0)
    g_hi = gap(hi) if hi > 0.0 else 0.0
    if hi <= 0.0:
        x = 0.0
    elif g_hi >= 0.0:
        x = hi
    else:
        # one fixed-point step from above lands just below the root when capacities vary slowly
        lo = hi + g_hi
        g_lo = gap(lo) if lo > 0.0 else 1.0
        if g_lo < 0.0 or lo <= 0.0:
            lo, g_lo = 0.0, None
        x = _root(gap, lo, hi, fa=g_lo, fb=g_hi)
    s = evaluate(x, True)
    overloaded = (not driven) and s["demand"] > s["cap_min"] * (1.0 + 1e-9)
    return _assemble(inp, g, d, c, t, x, s, overloaded, rows_tgt)


def _root(f, a: float, b: float, rtol: float = 1e-9, fa: float | None = None, fb: float | None = None) -> float:
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


def _assemble(inp, g, d, c, t, x, s, overloaded, rows_tgt) -> Solution:
    """Turn the evaluated operating point into a :class:`Solution`."""
    rpm = g.rows_per_msg
    msg_rate = x / rpm
    drain = inp.mode == "drain"
    stages = []
    latency = {}
    for name, cap, servers, service_ms in s["caps"]:
        rho = min(x / cap, 1.0) if cap > 0 else 1.0
        if name == "qapply_agents":
            lat = service_ms + mmc_wait(servers, rho, service_ms)
        elif servers == 1 and service_ms > 0:
            lat = service_ms + (rho / (1.0 - rho) * service_ms if rho < 0.995 else 199.0 * service_ms)
        else:
            lat = 0.0
        latency[name] = lat
        stages.append(Stage(name, cap, cap / rpm, rho, servers, service_ms, lat, 0.0))
    order = {n: i for i, n in enumerate(("source_workload", "source_cpu", "capture_cpu", "qcapture", "mq_log",
                                         "mq_channel", "mq_pageset", "apply_mq_log", "qapply_browser",
                                         "qapply_agents", "qapply_cpu"))}
    if s["demand"] != math.inf:
        stages.append(Stage("source_workload", s["demand"], s["demand"] / rpm, min(x / s["demand"], 1.0)
                            if s["demand"] > 0 else 0.0, inp.jobs or 1, s["resp_ms"], s["resp_ms"], 0.0))
    stages.sort(key=lambda st: order[st.name])

    candidates = [st for st in stages if st.name != "mq_pageset" or drain]
    limiting = min(candidates, key=lambda st: st.capacity_rows_per_s)
    if limiting.name == "qapply_agents" and s["class2"] > 0 and d.class2_wait_ms / s["class2"] > 0.5 \
            and inp.locking == "page":
        bottleneck = "target_db2"
    elif limiting.name == "qapply_browser" and drain and not inp.read_ahead and \
            s["brw_us"] > 0 and (s["brw_us"] - d.browser_msg_us * t * s["infl"]["A"]) / s["brw_us"] > 0.5:
        bottleneck = "mq_pageset"
    else:
        bottleneck = limiting.vocabulary

    lpars = tuple(Lpar(roles, n, busy, f, cpu_row) for roles, n, busy, f, cpu_row in s["lpars"])
    a_lpar = next(lp for lp in lpars if "A" in lp.roles)
    mp_a = 1.0 + c.mp_loss * (a_lpar.cps - 1)
    apply_cpu = (d.apply_db2_row_us + d.apply_agent_row_us + (d.browser_msg_us + d.get_cpu_us) / rpm
                 + d.apply_commit_us / rows_tgt) * t * mp_a
    apply_other = (d.apply_mq_other_msg_us / rpm + d.apply_other_row_us) * t * mp_a
    get_us = _get_elapsed(inp, g, c, t, s["infl"]["A"])
    if drain and not inp.read_ahead:  # the browse waits for the page-set read
        get_us += 0.5 * (s["brw_us"] - d.browser_msg_us * t * s["infl"]["A"])
    apply_log = d.apply_log_bytes_per_msg * msg_rate / 1e6

    if drain:
        cap_lat = q_lat = 0.0
        cap_cpu = total = put_us = commit_us = cap_log = 0.0
        src_resp = 0.0
        mpc = 0.0
        apply_lat = _apply_latency(c, inp, g, stages, latency, s["infl"]["A"], mpc, s["app_mem_buffer"], s["dependent"])
    else:
        c_lpar = next(lp for lp in lpars if "C" in lp.roles)
        mp_c = 1.0 + c.mp_loss * (c_lpar.cps - 1)
        mpc = s["mpc"]
        cap_cpu = (d.capture_reader_row_us + d.capture_worker_row_us + (d.put_cpu_us + d.commit_cpu_us / mpc) / rpm
                   ) * t * mp_c
        cap_other = d.capture_mq_other_msg_us / rpm * t * mp_c
        trig_src = 0.0
        if inp.topology == "peer-to-peer":
            s_lpar = next(lp for lp in lpars if "S" in lp.roles)
            trig_src = d.trigger_row_us * t * (1.0 + c.mp_loss * (s_lpar.cps - 1))
        total = cap_cpu + cap_other + apply_cpu + apply_other + trig_src
        put_us = s["put_el"]
        commit_us = s["commit_el"]
        cap_log = s["log_c"] * x / 1e6
        rho_w = min(x * s["worker_us"] / 1e6, 0.995)
        txn_rate = x / inp.rows_per_txn
        group_wait_ms = (g.txns_per_msg - 1.0) / 2.0 / txn_rate * 1000.0 if txn_rate > 0 and g.txns_per_msg > 1 \
            else 0.0
        cap_lat = (c.cap_log_delay_ms + inp.sleep_interval_ms / 2.0 * (1.0 - rho_w) + c.cap_busy_latency_ms * rho_w
                   + group_wait_ms + 2.0 * s["worker_us"] * inp.rows_per_txn / 1000.0 + put_us / 1000.0)
        commit_wait_ms = 0.5 * mpc / msg_rate * 1000.0 if msg_rate > 0 else 0.0
        # a persistent message becomes visible on the receive queue when the receiver commits its
        # channel batch (the rest of the batch arrives, then the syncpoint with its log force);
        # non-persistent messages (NPMSPEED FAST) are put outside the batch and visible at once
        batch_wait_ms = 0.0
        if inp.persistent:
            batch_msgs = min(float(inp.batchsz), mpc)
            batch_wait_ms = 0.5 * batch_msgs * s["ch_us"] / 1000.0 + (c.ch_batch_us + c.ch_batch_log_us) / 1000.0
        q_lat = (commit_wait_ms + commit_us / 1000.0 + latency["mq_channel"] + batch_wait_ms
                 + inp.network_latency_ms + c.mq_staging_ms + latency["qapply_browser"])
        apply_lat = _apply_latency(c, inp, g, stages, latency, s["infl"]["A"], mpc, s["app_mem_buffer"], s["dependent"])
        src_resp = s["resp_ms"]
    return Solution(
        inputs=inp, geometry=g, demands=d, rows_per_s=x, overloaded=overloaded,
        offered_rows_per_s=s["demand"], msgs_per_commit=mpc, stages=tuple(stages), lpars=lpars,
        bottleneck=bottleneck, limiting_stage=limiting.name, time_factor=t, capture_latency_ms=cap_lat, qlatency_ms=q_lat,
        apply_latency_ms=apply_lat, class2_ms=s["class2"], agent_ms=s["agent_ms"], put_us=put_us,
        commit_us=commit_us, get_us=get_us, capture_cpu_us_per_row=cap_cpu, apply_cpu_us_per_row=apply_cpu,
        total_cpu_us_per_row=total, capture_log_mb_per_s=cap_log, apply_log_mb_per_s=apply_log,
        source_response_ms=src_resp,
    )


def _apply_latency(c, inp, g, stages, latency, f_a: float, mpc: float, app_mem_buffer: float,
                   dependent: float) -> float:
    """APPLY_LATENCY (ms): from the MQGET of a transaction's first message to the target commit.

    Three parts (seed 000, 2.2.1 and 4.2-4.6):

    * the agent's own time: Db2 class 2 elapsed of the target transaction (rows, unique
      indexes, commit, lock waits, CPU contention), agent CPU and the destructive MQGET, plus
      the M/M/c wait for a free agent (``latency["qapply_agents"]``);
    * waiting for a predecessor: a dependent target transaction (share ``dependent``, see
      :func:`~engine.perf.qrep.costs.dependent_share`) starts only when the one it depends on
      commits, on average half an agent service later;
    * draining a burst: Q Capture's MQ commit (or the channel batch, whichever is smaller)
      makes ``K`` messages visible at once, so the browser hands the agents ``K`` target
      transactions together and the average one waits ``(K - 1) / 2`` aggregate services
      (the agents' time per target transaction: rows per target transaction over their
      capacity); a drain has no bursts;
    * Q Apply's in-memory work queue between the browser and the agents, growing as
      ``rho / (1 - rho)`` of the agents' utilisation with scale ``apply_queue_ms``, stretched
      by CPU contention on the apply LPAR (the agents and the browser wait for processors;
      inflation factor ``f_a`` to the power ``apply_cpu_wait_exponent``).

    The queued part cannot exceed what Q Apply's MEMORY_LIMIT holds (``app_mem_buffer``
    target transactions, each an aggregate service); beyond that, messages wait on the
    receive queue (QLATENCY).
    """
    agents = next(st for st in stages if st.name == "qapply_agents")
    rho = min(agents.utilisation, 0.995)
    per_txn_ms = g.rows_per_target_txn * 1000.0 / agents.capacity_rows_per_s
    burst_wait = 0.0
    if inp.mode != "drain":
        burst_txns = max(1.0, min(mpc, float(inp.batchsz)) / g.msgs_per_target_txn)
        burst_wait = per_txn_ms * (burst_txns - 1.0) / 2.0
    work_queue = c.apply_queue_ms * f_a ** c.apply_cpu_wait_exponent * rho / (1.0 - rho)
    queued = min(burst_wait + work_queue, app_mem_buffer * per_txn_ms)
    return latency["qapply_agents"] + dependent * agents.service_ms / 2.0 + queued


def _get_elapsed(inp, g, c, t, inflation) -> float:
    """Mean elapsed time of Q Apply's MQGETs (a browse and a destructive get per message), us."""
    api_trace = 1.0 + c.mq_trace_factor * (1.0 if inp.global_trace else 0.0)
    browse = (c.mq_get_us + c.mq_get_kb_us * g.msg_kb) * api_trace * t * inflation
    destructive = browse + (c.mq_get_persistent_us * api_trace * t * inflation if inp.persistent else 0.0)
    shared = c.cf_access_us if inp.shared_queue else 0.0
    return 0.5 * (browse + destructive) + shared
