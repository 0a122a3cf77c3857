"""Calibrated steady-state engine of Q Replication pipelines (scenario kind ``qrep``).

Entry points
------------
``predict(settings) -> Prediction``
    The contract of :mod:`engine.perf`: every metric of ../shared/validation/README.md that
    applies, the stages, the bottleneck (README vocabulary), ``ignored`` settings paths, the
    coefficient version and 90% bands from the calibration residuals.
``solve_settings(settings) -> Solution``
    The solved per-stage structure (stable; the time-domain simulator builds on it).
``fit_parameters(settings)`` and ``predict(settings, {name: value})``
    The contract of :mod:`engine.calibrate.fit` (``qrtune fit``): the coefficients a fit to monitor
    intervals may adjust, and a prediction with some coefficients overridden.

Mechanisms (coefficients fitted by ``python -m engine.calibrate.qrep``)
-----------------------------------------------------------------------
* Source workload: CPU per row by operation and per transaction on the source LPAR; an
  offered rate, a closed workload of ``jobs`` with think time (rate = jobs x rows /
  (think + response), response inflated by CPU contention and the Db2 commit), or driven
  to the maximum. Peer-to-peer version triggers run synchronously in the transaction.
* Q Capture: log read and decode per row, per column (weighted by type), per message byte,
  per index log record, per transaction and per message; MQPUT and MQCMIT CPU and elapsed
  (persistent messages are logged; the commit forces the log); messages per MQ commit
  limited by COMMIT_INTERVAL, the SLEEP_INTERVAL cycle and the per-commit transaction cap;
  MEMORY_LIMIT spills a transaction that does not fit; recursion filtering of applied rows
  in bidirectional and peer-to-peer flows.
* Messages (:mod:`.geometry`): TRANS_BATCH_SZ grouping, column suppression, unique-key
  before values, MAX_MESSAGE_SIZE/MAXMSGL splitting, 4 KB pages (MAXSHORTMSGS) and 32 KB
  channel segments.
* MQ: log bytes and log bandwidth, GLOBAL/CHINIT trace, security, private buffer pools or a
  coupling facility (shared queues), checkpoints (LOGLOAD), page-set reads and read-ahead.
* Channel: per message, per KB, per 32 KB segment and per BATCHSZ batch (persistent batches
  force the log), network round trip per batch and bandwidth; COMPMSG compression and TLS
  (16 KB segments, encryption, key renegotiation) from the MQ calculators, all in
  :mod:`.channel`, with ``mq.compressibility`` the share compression removes.
* Q Apply: one browser (MQ browse, parsing, dependency analysis per row, unique index and
  transaction) feeding NUM_APPLY_AGENTS agents; each agent's time per target transaction is
  Db2 class 2 elapsed (SQL CPU inflated by contention on the apply LPAR, commit, per-row and
  per-index waits, page-lock contention) plus its own CPU and the destructive MQGET.
  MAXAGENTS_CORRELID and COMMIT_COUNT limit parallelism, and a monster transaction (bigger
  than MEMORY_LIMIT) holds agents in proportion to how far it overflows; a busy agent's time
  grows with the other busy agents (``agent_latch_share``) and so does its CPU
  (``agent_cpu_share``): sub-linear scaling, more CPU per row as more agents work at once.
  Dependent transactions form chains the browser resolves within its look-ahead (what
  MEMORY_LIMIT holds): within it they cost only waits, beyond it they starve the agents
  (:mod:`.apply_parallel`).
* Latencies (:mod:`.latency`): the log reader's wait (half a SLEEP_INTERVAL plus its
  queueing) and cycle (SLEEP_INTERVAL / (1 - busy)), the
  data-sharing merged-log delay when Q Capture is not on the source LPAR, the MQ commit at
  COMMIT_INTERVAL or the transaction limit, whichever comes first, messages holding the
  transactions one log pass finds (at most TRANS_BATCH_SZ), the channel batch, the browser
  and the agents (M/M/c plus batch arrivals, bounded by MEMORY_LIMIT).
* Settings that cannot change the results at a configuration are reported in ``ignored``
  with their reason (:mod:`.inert`).
* Topologies beyond one private queue pair (coefficients in ``topologies.json``): shared
  queues in a CF list structure with SMDS or Db2 offload and SCM (:mod:`.shared_queue`),
  several queue maps (:mod:`.queue_maps`), a Db2 data-sharing source (:mod:`.data_sharing`),
  catch-up of a backlog while Q Capture runs (:mod:`.catch_up`), and SQL Replication as the
  comparison baseline (:mod:`.sql_replication`; ``topology: sql-replication`` or
  ``sql_apply.compare``).
* LPARs: CPs x MIPS per CP (CPU model table) with a multiprocessor loss per extra CP; the
  busy share of each LPAR inflates the elapsed time of CPU work (M/M/c factor), solved as
  a fixed point with the throughput (:mod:`.pipeline`).

Solved structure (``Solution.stages``, one :class:`~engine.perf.qrep.pipeline.Stage` each)
--------------------------------------------------------------------------------------------
In pipeline order; a stage appears only where it exists (drain runs have no capture side):

============== ===========================================================================
name           meaning
============== ===========================================================================
source_workload offered or closed-workload rate (absent when driven to the maximum)
source_cpu     LPAR running the workload (and Q Capture / Q Apply when colocated)
capture_cpu    LPAR running Q Capture and its queue manager, when separate
qcapture       Q Capture threads (worker, publisher with MQPUT/MQCMIT)
mq_log         capture-side MQ log bandwidth
mq_channel     sender-receiver channel
mq_pageset     reading messages back from the page set (only limits when the queue
               overflows its buffer pool, e.g. a drain)
apply_mq_log   apply-side MQ log bandwidth (persistent messages)
qapply_browser Q Apply browser (single thread per receive queue)
qapply_agents  NUM_APPLY_AGENTS parallel agents (``servers``), service = one target txn
qapply_cpu     LPAR running Q Apply and the target Db2, when separate
cf_structure   coupling-facility processors serving the shared queues' requests
smds           shared message data sets (``db2_offload`` with OFFLOAD(DB2)) of offloaded messages
============== ===========================================================================

With several queue maps, ``mq_channel``, ``qapply_browser`` and ``qapply_agents`` appear once
per map (``qapply_browser_map2``...), each capacity in the flow's rows/s.

Each stage gives ``capacity_rows_per_s``, ``capacity_msgs_per_s``, ``utilisation``,
``servers``, ``service_ms`` and ``latency_ms``. The flow-level geometry is
``Solution.geometry`` (``rows_per_msg``, ``msg_bytes``, ``txns_per_msg``,
``rows_per_target_txn``, ``pages_per_msg``, ``segments_per_msg``); the cycles are the
inputs' ``sleep_interval_ms`` and ``commit_interval_ms``, ``Solution.msgs_per_commit``,
the coefficients ``maxtrans_per_commit`` and ``log_merge_delay_ms`` (data-sharing merged log
read) and the functions of :mod:`engine.perf.qrep.latency` (``reader_cycle_ms``,
``commit_period_ms``, ``commit_wait_ms``, ``burst_wait_ms`` and the burst's split between Q
Apply's memory and the receive queue, ``burst_wait``) and :mod:`engine.perf.qrep.channel`
(``visible_ms``, ``batch_msgs``). ``Prediction.stages`` carries the same stages as
:class:`QrepStageResult` (capacity in rows/s plus ``capacity_msgs_per_s``, ``servers``,
``service_ms``, ``fixed_delay_ms``).

Bidirectional and peer-to-peer predictions also carry figures per system (``system1_...``,
``system2_...``: rows originated and applied, CPU per row with triggers and recursion
avoidance apart, LPAR busy), from :mod:`.systems`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

from engine.errors import ValueRangeError
from engine.limit import resource_bottleneck
from engine.perf.qrep import sql_replication, topology_coefficients, zos_mq_cpu
from engine.perf.qrep.catch_up import UNITS as CATCH_UP_UNITS
from engine.perf.qrep.coefficients import Coefficients, CoefficientsError, load
from engine.perf.qrep.inputs import QrepInputs, read_inputs
from engine.perf.qrep.parallel_sendqs import UNITS as PARALLEL_SENDQS_UNITS
from engine.perf.qrep.pipeline import VOCABULARY, Solution, Stage, solve
from engine.perf.qrep.queue_maps import base_name
from engine.perf.qrep.shared_queue import UNITS as SHARED_QUEUE_UNITS
from engine.perf.qrep.systems import metric_units, system_metrics
from engine.perf.result import Prediction, StageResult
from engine.settings import setting_paths, unused_settings

#: z value of a two-sided 90% band.
_BAND_Z = 1.645


@dataclass(frozen=True)
class QrepStageResult(StageResult):
    """A :class:`~engine.perf.result.StageResult` with the extra figures of a Q Replication stage.

    Attributes
    ----------
    capacity_msgs_per_s : float
        Capacity in MQ messages/s (``capacity`` is rows/s).
    servers : int
        Parallel servers of the stage.
    service_ms : float
        Time one server spends per message (per target transaction for agents).
    fixed_delay_ms : float
        Cycle delay of the stage at this load: Q Capture's half log-read cycle plus the merged-log
        delay (``qcapture``), the wait for Q Capture's MQ commit (``mq_channel``).
    backlog_read_ms : float
        Part of the stage's time per message spent reading messages back from the page set or a
        queue file at the modelled steady depth (``qapply_browser``, ``mq_channel``); the
        simulation models the depth, and these reads, itself.
    bottleneck_name : str
        The stage's resource in the published bottleneck vocabulary (``capture_cpu`` -> ``cpu``).
    is_bottleneck : bool
        This stage limits the throughput.
    """

    capacity_msgs_per_s: float = 0.0
    servers: int = 1
    service_ms: float = 0.0
    fixed_delay_ms: float = 0.0
    backlog_read_ms: float = 0.0
    bottleneck_name: str = ""
    is_bottleneck: bool = False


UNITS = {
    "capture_rows_per_s": "rows/s",
    "apply_rows_per_s": "rows/s",
    "apply_mb_per_s": "MB/s",
    "msg_size_kb": "KB",
    "channel_msgs_per_s": "msgs/s",
    "channel_mb_per_s": "MB/s",
    "end2end_latency_ms": "ms",
    "capture_latency_ms": "ms",
    "qlatency_ms": "ms",
    "apply_latency_ms": "ms",
    "capture_lpar_busy_pct": "%",
    "apply_lpar_busy_pct": "%",
    "source_lpar_busy_pct": "%",
    "capture_cpu_us_per_row": "us/row",
    "apply_cpu_us_per_row": "us/row",
    "total_cpu_us_per_row": "us/row",
    "apply_db2_class2_ms": "ms",
    "capture_mqput_us": "us",
    "capture_mqcommit_us": "us",
    "apply_mqget_us": "us",
    "capture_mq_log_mb_per_s": "MB/s",
    "apply_mq_log_mb_per_s": "MB/s",
    "msgs_per_mq_commit": "msgs",
    "queue_depth_msgs": "msgs",
    "rows_per_msg": "rows",
    "source_response_time_ms": "ms",
    "elapsed_s": "s",
    "backlog_growth_rows_per_s": "rows/s",
    "tps": "txns/s",
    **metric_units(),  # per system of a bidirectional or peer-to-peer configuration (.systems)
    **sql_replication.COMPARISON_UNITS,  # SQL Replication side by side (sql_apply.compare)
    **SHARED_QUEUE_UNITS,
    **PARALLEL_SENDQS_UNITS,
    **CATCH_UP_UNITS,
    **zos_mq_cpu.UNITS,
}

#: Settings that only matter when Q Capture and the channel run (not in a drain).
_CAPTURE_SIDE = (
    "workload.offered_rows_per_s",
    "workload.jobs",
    "workload.think_time_ms",
    "qcapture.memory_limit_mb",
    "qcapture.commit_interval_ms",
    "qcapture.sleep_interval_ms",
    "qcapture.monitor_interval_ms",
    "mq.batchsz",
    "mq.logload",
    "mq.security",
    "hardware.network_latency_ms",
    "hardware.network_mbps",
    "hardware.source_lpar_cps",
    "hardware.capture_lpar_cps",
    "hardware.capture_colocated_with_source",
    "hardware.apply_colocated_with_target",
    "mq.chinit_trace",
    "mq.compmsg",
    "mq.ssl",
    "mq.compressibility",
)


def solve_settings(settings: dict, coefficients: Coefficients | None = None) -> Solution:
    """Validate ``settings`` and solve the flow; see :func:`engine.perf.qrep.pipeline.solve`.

    Raises
    ------
    ValueRangeError
        A setting is invalid (the message names the path).
    CoefficientsError
        The coefficient file is missing or malformed.
    """
    inputs, _ = read_inputs(settings)
    if inputs.topology == "sql-replication":
        raise ValueRangeError(
            "topology",
            inputs.topology,
            "a Q Replication topology (SQL Replication is predicted, not solved per stage)",
        )
    return solve(inputs, coefficients or load())


def _used_paths(inputs: QrepInputs, used: set[str]) -> set[str]:
    used = set(used)
    if inputs.mode != "catch-up":
        used.discard("run.catch_up_payload_msgs")  # only a catch-up has a payload to capture
    if inputs.mode == "drain":
        used.difference_update(_CAPTURE_SIDE)
    else:
        if inputs.topology == "unidirectional":
            used.discard("hardware.apply_colocated_with_target")
        if inputs.mode == "steady":
            used.discard("run.initial_receive_queue_depth")
        if inputs.offered_rows_per_s is not None or inputs.jobs is None:
            used.discard("workload.think_time_ms")
        if inputs.jobs is not None:
            used.discard("workload.offered_rows_per_s")
    if inputs.compmsg == "NONE":
        used.discard("mq.compressibility")
    if inputs.maxagents_correlid and not inputs.jobs:
        used.discard("qapply.maxagents_correlid")  # correlation ids are known only for a closed workload
    return used


def metrics_of(sol: Solution) -> dict:
    """The published-metric view of a solution (names of ../shared/validation/README.md)."""
    inp, g = sol.inputs, sol.geometry
    x = sol.rows_per_s
    a_lpar = next(lp for lp in sol.lpars if "A" in lp.roles)
    m = {
        "apply_rows_per_s": x,
        "apply_mb_per_s": x / g.rows_per_msg * g.msg_bytes / 1e6,
        "msg_size_kb": g.msg_kb,
        "rows_per_msg": g.rows_per_msg,
        "apply_lpar_busy_pct": 100.0 * min(a_lpar.busy, 1.0),
        "apply_cpu_us_per_row": sol.apply_cpu_us_per_row,
        "apply_db2_class2_ms": sol.class2_ms,
        "apply_mqget_us": sol.get_us,
        "apply_mq_log_mb_per_s": sol.apply_log_mb_per_s,
    }
    if inp.mode == "drain":
        m["apply_latency_ms"] = sol.apply_latency_ms
        if x > 0:
            m["elapsed_s"] = inp.initial_depth_msgs * g.rows_per_msg / x
        return m
    c_lpar = next(lp for lp in sol.lpars if "C" in lp.roles)
    s_lpar = next(lp for lp in sol.lpars if "S" in lp.roles)
    m.update(
        {
            "capture_rows_per_s": x,
            "channel_msgs_per_s": sol.msgs_per_s,
            "channel_mb_per_s": sol.msgs_per_s * g.msg_bytes / 1e6,
            "capture_lpar_busy_pct": 100.0 * min(c_lpar.busy, 1.0),
            "source_lpar_busy_pct": 100.0 * min(s_lpar.busy, 1.0),
            "capture_cpu_us_per_row": sol.capture_cpu_us_per_row,
            "total_cpu_us_per_row": sol.total_cpu_us_per_row,
            "capture_mqput_us": sol.put_us,
            "capture_mqcommit_us": sol.commit_us,
            "capture_mq_log_mb_per_s": sol.capture_log_mb_per_s,
            "msgs_per_mq_commit": sol.msgs_per_commit,
            "queue_depth_msgs": sol.queue_depth_msgs,
            "tps": x / inp.rows_per_txn,
        }
    )
    if inp.jobs is not None:
        m["source_response_time_ms"] = sol.source_response_ms
    if sol.overloaded:
        m["backlog_growth_rows_per_s"] = sol.offered_rows_per_s - x
    else:
        m["capture_latency_ms"] = sol.capture_latency_ms
        m["qlatency_ms"] = sol.qlatency_ms
        m["apply_latency_ms"] = sol.apply_latency_ms
        m["end2end_latency_ms"] = sol.capture_latency_ms + sol.qlatency_ms + sol.apply_latency_ms
    return m


def _stage_results(sol: Solution) -> tuple:
    fixed = sol.fixed_delays_ms
    return tuple(
        QrepStageResult(
            name=s.name,
            capacity=s.capacity_rows_per_s,
            utilisation=s.utilisation,
            unit="rows/s",
            latency_ms=s.latency_ms,
            capacity_msgs_per_s=s.capacity_msgs_per_s,
            servers=s.servers,
            service_ms=s.service_ms,
            fixed_delay_ms=fixed.get(base_name(s.name), 0.0),
            backlog_read_ms=sol.backlog_us_per_msg.get(base_name(s.name), 0.0) / 1000.0,
            bottleneck_name=VOCABULARY[base_name(s.name)],
            is_bottleneck=s.name == sol.limiting_stage and resource_bottleneck(s.name) is not None,
        )
        for s in sol.stages
    )


def _band_factors(residuals: dict) -> dict:
    out = {}
    for name, r in residuals.items():
        if isinstance(r, dict) and isinstance(r.get("log_sd"), (int, float)):
            out[name] = math.exp(_BAND_Z * r["log_sd"])
    return out


def _bands(metrics: dict, c: Coefficients) -> dict:
    factors = c.__dict__.get("_band_factors")
    if factors is None:
        factors = c.__dict__["_band_factors"] = _band_factors(c.residuals)
    return {
        name: (v / factors[name], v * factors[name])
        for name, v in metrics.items()
        if name in factors and v > 0
    }


#: Coefficients :func:`fit_parameters` offers to a fit on monitor intervals (``qrtune fit``):
#: the ones steady monitor data identify (latency offsets and scales, the agents' commit
#: wait, the message header), each name -> (lowest, highest) multiple of its current value.
FIT_PARAMETERS = {
    "log_merge_delay_ms": (0.1, 5.0),
    "ch_batch_us": (0.1, 10.0),
    "maxtrans_per_commit": (0.2, 5.0),
    "class2_commit_ms": (0.1, 10.0),
    "msg_header_bytes": (0.1, 5.0),
}


#: Coefficients the 10.2.1+ timing columns pin (:func:`timing_fit_parameters`): the MQ API's
#: per-call costs behind MQGET_TIME (IBMQREP_APPLYMON), MQPUT_TIME (IBMQREP_CAPQMON) and
#: MQCMIT_TIME (IBMQREP_CAPMON); DBMS_TIME pins ``class2_commit_ms``, which the fit offers already.
TIMING_FIT_PARAMETERS = {
    "mq_get_us": (0.2, 5.0),
    "mq_put_us": (0.2, 5.0),
    "mq_commit_us": (0.2, 5.0),
}


def _fit_entries(multiples: dict) -> dict:
    """Name -> ``(current value, low, high, unit)`` of each coefficient of ``multiples`` (see :func:`fit_parameters`)."""
    c = load()
    out = {}
    for name, (lo_mult, hi_mult) in multiples.items():
        value = c.values[name]
        lo, hi = c.bounds.get(name, (0.0, float("inf")))
        low = max(value * lo_mult, lo if lo > 0 else 0.0)
        out[name] = (value, low, min(value * hi_mult, hi), c.units.get(name, ""))
    return out


def timing_fit_parameters(settings: dict) -> dict:
    """Coefficients a fit may adjust besides :func:`fit_parameters` when the intervals have the timing columns.

    The optional part of the contract of :mod:`engine.calibrate.fit`: the coefficients that the
    10.2.1+ columns (DBMS_TIME, MQGET_TIME, MQPUT_TIME, MQCMIT_TIME) measure directly and
    throughput and latencies barely move. Same form and errors as :func:`fit_parameters`.
    """
    return _fit_entries(TIMING_FIT_PARAMETERS)


def fit_parameters(settings: dict) -> dict:
    """Coefficients a fit to monitor intervals may adjust (the contract of :mod:`engine.calibrate.fit`).

    Parameters
    ----------
    settings : dict
        The project's scenario settings (the same coefficients serve every flow).

    Returns
    -------
    dict
        Name -> ``(current value, low, high, unit)``; the bounds are positive multiples of
        the current value inside the calibration bounds stored with the coefficients.

    Raises
    ------
    CoefficientsError
        The coefficient file is missing or malformed.
    """
    return _fit_entries(FIT_PARAMETERS)


def _coefficients(coefficients) -> Coefficients:
    if coefficients is None:
        return load()
    if isinstance(coefficients, Coefficients):
        return coefficients
    base = load()
    unknown = sorted(set(coefficients) - set(base.values))
    if unknown:
        raise CoefficientsError(
            f"coefficients: unknown name(s) {', '.join(unknown)}; the Q Replication engine "
            f"has {', '.join(sorted(base.values))}"
        )
    return base.with_values(**coefficients)


def _sql_comparison(inputs: QrepInputs, c: Coefficients, sol: Solution) -> dict:
    """SQL Replication's figures beside a Q Replication flow's (``sql_apply.compare``), else {}."""
    if not inputs.topo.compare_sql:
        return {}
    driven = sol if sol.inputs.offered_rows_per_s is None and sol.inputs.jobs is None else None
    if driven is None:
        driven = solve(dataclasses.replace(inputs, offered_rows_per_s=None, jobs=None), c)
    return sql_replication.comparison_metrics(inputs, c, topology_coefficients.load(), driven.rows_per_s)


def predict(settings: dict, coefficients: Coefficients | Mapping[str, float] | None = None) -> Prediction:
    """Predict a ``kind: qrep`` scenario at steady state (or the drain of a pre-loaded queue).

    Parameters
    ----------
    settings : dict
        Scenario settings (../shared/validation/README.md format).
    coefficients : Coefficients or mapping of str to float, optional
        Coefficients to use instead of ``assets/coefficients/qrep.json``; a mapping overrides
        the named coefficients of the file (the contract of :mod:`engine.calibrate.fit`).

    Returns
    -------
    Prediction

    Raises
    ------
    ValueRangeError
        A setting is invalid; the message names the path, the value and what is allowed.
    CoefficientsError
        The coefficient file is missing or malformed.
    """
    c = _coefficients(coefficients)
    inputs, used = read_inputs(settings)
    if inputs.topology == "sql-replication":
        return sql_replication.prediction(settings, inputs, c, topology_coefficients.load())
    sol = solve(inputs, c)
    paths = setting_paths(settings)
    unused = unused_settings(settings, _used_paths(inputs, used), paths)
    present = set(paths)
    inert_here = {p: why for p, why in sol.inert_settings.items() if p in present}
    metrics = metrics_of(sol)
    metrics.update(system_metrics(sol, c))
    metrics.update(zos_mq_cpu.metrics(sol, c))
    metrics.update(sol.topology_metrics)
    metrics.update(_sql_comparison(inputs, c, sol))
    return Prediction.explained(
        "qrep",
        metrics,
        {**{p: "the Q Replication engine does not read it for this project" for p in unused}, **inert_here},
        units={k: UNITS.get(k, "") for k in metrics},
        stages=_stage_results(sol),
        bottleneck=resource_bottleneck(sol.bottleneck),
        coefficients_version=c.version,
        bands=_bands(metrics, c),
    )


__all__ = [
    "FIT_PARAMETERS",
    "VOCABULARY",
    "QrepStageResult",
    "Solution",
    "Stage",
    "fit_parameters",
    "metrics_of",
    "predict",
    "solve_settings",
]
