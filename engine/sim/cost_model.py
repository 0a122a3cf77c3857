"""The one place the simulation reads the steady-state engine's cost model (:mod:`engine.perf.qrep`).

Everything the simulation takes from the Q Replication steady-state engine besides the stage
capacities of its prediction goes through this module, so a change of that engine's internals
is adapted here:

* :func:`qrep_delays`: fitted coefficients used as delays and sizes (the merged-log read
  delay of a data-sharing group, source transactions per MQ commit, channel time per batch);
* :func:`dependent_share`: the share of target transactions that depend on an earlier one;
* :func:`graph_agents_share`: the share of the agents the steady state's dependency graph keeps
  busy within Q Apply's look-ahead (the simulation resolves the dependencies itself);
* :func:`apply_wait_share`: how an agent's service time splits into CPU (deterministic for a
  transaction of a given size) and Db2 class 2 waits (random), from the cost model's service
  demands at the operating point;
* :func:`queue_pool`: messages a queue's buffer pool holds and the page-set read wait, the
  steady-state engine's model with each queue manager's own settings.

Every function degrades to "mechanism left out" with a note when the engine does not offer
what it reads (a missing coefficient, settings it cannot solve).
"""

from __future__ import annotations

import copy
import math

from engine.errors import QrtuneError
from engine.perf.qrep.data_sharing import merge_delay_factor
from engine.registry.platform_knobs import ZOS
from engine.sim.knobs import SCENARIO_KIND, knob

#: Coefficients of the steady-state Q Replication engine the simulation uses:
#: field -> (coefficient name, factor to the field's unit).
DELAY_COEFFICIENTS = {
    "maxtrans_per_commit": ("maxtrans_per_commit", 1.0),
    "ch_batch_s": ("ch_batch_us", 1e-6),
    "ch_batch_log_s": ("ch_batch_log_us", 1e-6),
}
#: Coefficient giving the time before Q Capture can read a committed change from the log, ms:
#: the data-sharing group's merged-log delay (only when Q Capture runs on another LPAR than the
#: source workload).
LOG_DELAY_COEFFICIENT = "log_merge_delay_ms"


def _coefficient_values(coefficients) -> dict:
    """Name -> value of the Q Replication coefficients (a mapping overrides the file's)."""
    from engine.perf.qrep.coefficients import load

    if coefficients is not None and hasattr(coefficients, "values") and not callable(coefficients.values):
        return dict(coefficients.values)
    values = dict(load().values)
    values.update({k: float(v) for k, v in dict(coefficients or {}).items()})
    return values


def _log_delay_s(settings: dict, values: dict) -> tuple[float | None, str]:
    """Time before Q Capture can read a committed change from the log, s, and where it came from (in a
    user's words: the note that quotes it is printed by ``qrtune simulate`` and the Simulation tab)."""
    if LOG_DELAY_COEFFICIENT not in values:
        return None, ""
    if knob(settings, "platform.source_db2") != ZOS:  # db2ReadLog: no data-sharing merged log
        return 0.0, "db2ReadLog of a Db2 for Linux, UNIX and Windows"
    factor = merge_delay_factor(
        knob(settings, "hardware.data_sharing_members"),
        knob(settings, "hardware.capture_colocated_with_source"),
    )
    delay_ms = float(values[LOG_DELAY_COEFFICIENT]) * factor
    return delay_ms * 1e-3, "the fitted data-sharing merged-log read delay"


def qrep_delays(settings: dict, coefficients=None) -> tuple[dict, list[str]]:
    """Fitted coefficients of the steady-state engine (:mod:`engine.perf.qrep.coefficients`) used as delays.

    Parameters
    ----------
    settings : dict
        Scenario settings (whether Q Capture shares the source workload's LPAR).
    coefficients : Coefficients or mapping of str to float, optional
        The coefficients the prediction was made with (a mapping overrides the named ones of
        ``assets/coefficients/qrep.json``, as :func:`engine.perf.qrep.predict` takes them).

    Returns
    -------
    delays : dict
        ``log_delay_s`` (from :data:`LOG_DELAY_COEFFICIENT`) and the fields of
        :data:`DELAY_COEFFICIENTS` in s (``maxtrans_per_commit`` in transactions); a
        coefficient the engine does not have is left out (the simulation then omits that
        mechanism).
    notes : list of str
        One note per coefficient left out.
    """
    try:
        values = _coefficient_values(coefficients)
    except Exception as e:  # noqa: BLE001 - any failure to load means: no fitted delays
        return {}, [f"no fitted coefficients (Q Replication coefficients not loadable: {e})"]
    out, notes = {}, []
    log_delay_s, source = _log_delay_s(settings, values)
    if log_delay_s is None:
        notes.append(
            "no log-read delay in the Q Replication coefficients: Q Capture reads a commit at its next cycle"
        )
    else:
        out["log_delay_s"] = log_delay_s
        notes.append(
            f"Q Capture reads a committed change {1000 * log_delay_s:.3g} ms after its commit ({source})"
        )
    for field_name, (coeff, factor) in DELAY_COEFFICIENTS.items():
        if coeff in values:
            out[field_name] = float(values[coeff]) * factor
        else:
            notes.append(f"coefficient {coeff} not in the Q Replication coefficients: mechanism left out")
    if "ch_batch_log_s" in out:  # a distributed queue manager forces its own log at a batch's end
        out["ch_batch_log_s"] = 1e-6 * _platform_batch_log_us(settings, out["ch_batch_log_s"] * 1e6)
    return out, notes


def _platform_batch_log_us(settings: dict, zos_batch_log_us: float) -> float:
    """Per-batch log time (us) with each side's queue manager on its platform (:mod:`engine.perf.qrep.channel`)."""
    from engine.perf.qrep import channel
    from engine.perf.qrep.inputs import read_inputs
    from engine.perf.qrep.platforms import assumptions

    platform = read_inputs(settings)[0].platform
    # persistence is applied by the caller (the log time counts only for persistent batches)
    return channel.batch_log_us(platform, True, zos_batch_log_us, assumptions())


def _solution(settings: dict, coefficients=None):
    """The steady-state engine's solved flow of ``settings`` (:func:`engine.perf.qrep.solve_settings`)."""
    from engine.perf.qrep import _coefficients, solve_settings

    return solve_settings(settings, _coefficients(coefficients))


def dependent_share(settings: dict, coefficients=None) -> tuple[float, list[str]]:
    """Share of target transactions that depend on an earlier one, as the steady-state engine has it.

    :func:`engine.perf.qrep.costs.dependent_share` of the settings' inputs and message geometry
    (with the same ``coefficients``): ``workload.dependent_txn_pct`` per source transaction,
    ``1 - (1 - p) ** n`` for a target transaction of ``n`` source transactions (TRANS_BATCH_SZ,
    COMMIT_COUNT).

    Returns
    -------
    share : float
        0..1; 0 without dependencies or when the engine cannot read the settings.
    notes : list of str
    """
    pct = knob(settings, "workload.dependent_txn_pct")
    if not pct:
        return 0.0, []
    try:
        from engine.perf.qrep import _coefficients
        from engine.perf.qrep.costs import dependent_share as steady_state_share
        from engine.perf.qrep.geometry import message_geometry
        from engine.perf.qrep.inputs import read_inputs

        inputs, _ = read_inputs(settings)
        share = float(steady_state_share(inputs, message_geometry(inputs, _coefficients(coefficients))))
    except (QrtuneError, ImportError) as e:
        return 0.0, [
            f"dependent transactions not simulated (the steady-state engine cannot read the settings: {e})"
        ]
    note = (
        f"{100 * share:.3g}% of target transactions wait for the one before them to commit "
        f"(workload.dependent_txn_pct {float(pct):g}%)"
    )
    return share, [note]


def graph_agents_share(settings: dict, coefficients=None) -> tuple[float, list[str]]:
    """Share of the agents the steady state's dependency graph keeps busy (1: all of them).

    The steady-state engine limits the agents to the chains of dependent transactions its
    look-ahead (MEMORY_LIMIT) holds (:func:`engine.perf.qrep.apply_parallel.graph_parallelism`)
    and its ``qapply_agents`` capacity carries that limit. The simulation holds MEMORY_LIMIT and
    makes each dependent transaction wait for the one before it, so it finds the limit itself:
    it takes the agents' capacity without it (divided by this share).

    Returns
    -------
    share : float
        ``graph agents / agents``, 0..1; 1 when the engine cannot solve the settings.
    notes : list of str
    """
    try:
        sol = _solution(settings, coefficients)
        graph, agents = float(sol.graph_agents), float(sol.parallel_agents)
    except (QrtuneError, ImportError, AttributeError) as e:
        return 1.0, [f"agents' capacity taken as predicted (the cost model gives no dependency graph: {e})"]
    if not (agents > 0 and 0 < graph < agents):
        return 1.0, []
    share = graph / agents
    note = (
        f"the steady state's dependency graph keeps {graph:.3g} of {agents:.0f} agents busy within "
        "Q Apply's look-ahead (MEMORY_LIMIT); the simulation resolves the dependencies in its own "
        "memory and takes the agents' capacity without that limit"
    )
    return share, [note]


def apply_wait_share(settings: dict, coefficients=None) -> tuple[float, list[str]]:
    """Share of an agent's mean service time that is Db2 class 2 *wait* (not CPU), from the cost model.

    The steady-state engine builds an agent's time per target transaction from service demands
    (:class:`engine.perf.qrep.costs.StaticDemands`): Db2 SQL and commit CPU per row and per
    transaction, agent CPU, the MQGET (all stretched by the apply LPAR's CPU contention), plus
    ``class2_wait_ms``, the non-CPU part of Db2 class 2 elapsed (log force at commit,
    synchronous I/O, lock waits). The simulation draws the CPU part as deterministic for a
    transaction of given rows and the wait part as exponential (see
    :func:`engine.sim.pipeline.service_multiplier`); this gives the share of the second.

    Returns
    -------
    share : float
        ``class2_wait_ms / agent_ms`` at the operating point, 0..1 (0 when the engine cannot
        solve the settings or does not expose the two).
    notes : list of str
    """
    try:
        sol = _solution(settings, coefficients)
        wait_ms = float(sol.demands.class2_wait_ms)
        agent_ms = float(sol.agent_ms)
    except (QrtuneError, ImportError, AttributeError) as e:
        return 0.0, [f"agents' service taken as deterministic (the cost model gives no class 2 wait: {e})"]
    if not (agent_ms > 0 and math.isfinite(wait_ms) and wait_ms >= 0):
        return 0.0, ["agents' service taken as deterministic (the cost model gives no agent time)"]
    share = min(1.0, wait_ms / agent_ms)
    note = (
        f"agents' service: {100 * (1 - share):.0f}% CPU (fixed for a transaction's rows), "
        f"{100 * share:.0f}% Db2 class 2 wait drawn exponential (mean {wait_ms:.3g} ms of {agent_ms:.3g} "
        f"ms per target transaction, from the cost model)"
    )
    return share, [note]


def queue_manager_settings(qm: dict, settings: dict) -> dict:
    """``settings`` as the queue manager with parameters ``qm`` has them: each of its knobs that the
    scenario reads as one ``mq.*`` setting (BUFFPOOL, READ_AHEAD...) set to its own value."""
    from engine.registry import KINDS

    out = copy.deepcopy(settings)
    mq = out.setdefault("mq", {})
    for spec in KINDS["queue_manager"].params:
        path = spec.scenario_paths.get(SCENARIO_KIND, "")
        if path.startswith("mq.") and path.count(".") == 1 and qm.get(spec.name) is not None:
            mq[path[3:]] = qm[spec.name]
    return out


def _zos_pool(qm: dict, settings: dict, coefficients, which: str) -> tuple[float, float, list[str]]:
    """The steady-state model of a z/OS queue manager's buffer pool and page set, with its own settings."""
    from engine.perf.qrep import _coefficients
    from engine.perf.qrep.inputs import read_inputs
    from engine.perf.qrep.pipeline import queue_manager_pool

    try:
        inputs, _ = read_inputs(queue_manager_settings(qm, settings))
        held, read_us = queue_manager_pool(inputs, _coefficients(coefficients))
    except QrtuneError as e:
        return (
            math.inf,
            0.0,
            [f"{which}: buffer pool not modelled (the steady-state engine cannot read the settings: {e})"],
        )
    note = (
        f"{which} holds {held:,.0f} messages in its buffer pool (BUFFPOOL {inputs.buffpool_pages:,.0f} pages); a "
        f"message beyond that is read back from the page set in {read_us / 1000:.3g} ms (READ_AHEAD "
        f"{'on' if inputs.read_ahead else 'off'}; the steady-state engine's buffer-pool model)"
    )
    return held, read_us * 1e-6, [note]


def cf_structure_of(settings: dict) -> tuple | None:
    """``(TopologyInputs, TopologyCoefficients)`` of a shared queue's CF structure, or None for
    private queues (:mod:`engine.sim.cf_course` walks it through the run)."""
    if not knob(settings, "mq.shared_queue"):
        return None
    from engine.perf.qrep import topology_coefficients
    from engine.perf.qrep.inputs import read_inputs

    return read_inputs(settings)[0].topo, topology_coefficients.load()


def queue_pool(
    qm: dict, settings: dict, msg_bytes: float, which: str, coefficients=None
) -> tuple[float, float, list[str]]:
    """Messages a queue's buffer pool holds and the wait to read one back from the page set (s).

    The steady-state engine's models with the queue manager's own settings: a z/OS buffer pool
    and page set (:func:`engine.perf.qrep.pipeline.queue_manager_pool`), a distributed queue
    manager's queue buffer and queue file
    (:func:`engine.perf.qrep.distributed_qm.queue_file_backlog`), a shared queue's CF
    structure (:func:`engine.perf.qrep.shared_queue.sim_holding`).

    Parameters
    ----------
    qm : dict
        The queue manager node's parameters (may be empty).
    settings : dict
        Scenario settings (BUFFPOOL and READ_AHEAD when the node does not give them).
    msg_bytes : float
        Bytes of a typical message.
    which : str
        ``"transmit queue"`` or ``"receive queue"``, for the notes.
    coefficients : Coefficients or mapping, optional
        The Q Replication engine's coefficients (page read time, read-ahead depth).

    Returns
    -------
    capacity_msgs, pageset_read_s, notes
        ``(inf, 0, notes)`` for a queue manager without a BUFFPOOL size.
    """
    if qm.get("shared_queue", knob(settings, "mq.shared_queue")):  # the CF structure and SMDS
        from engine.perf.qrep import shared_queue, topology_coefficients
        from engine.perf.qrep.inputs import read_inputs

        held, note = shared_queue.sim_holding(
            read_inputs(settings)[0], topology_coefficients.load(), msg_bytes
        )
        return held, 0.0, [f"{which}: {note}"]
    if qm.get("os_platform", ZOS) != ZOS:  # queue buffer and queue file, not a buffer pool and page set
        from engine.perf.qrep.distributed_qm import queue_file_backlog
        from engine.perf.qrep.platforms import assumptions

        persistent = bool(knob(settings, "qcapture.msg_persistence"))
        held, read_s, note = queue_file_backlog(qm, persistent, msg_bytes, assumptions())
        return held, read_s, [f"{which}: {note}"]
    if not qm.get("buffpool_pages", knob(settings, "mq.buffpool_pages")):
        return math.inf, 0.0, [f"no BUFFPOOL size: the {which} never reaches the page set"]
    return _zos_pool(qm, settings, coefficients, which)
