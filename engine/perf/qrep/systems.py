"""Figures per system of a bidirectional or peer-to-peer configuration.

In a two-way configuration each system (a Db2 subsystem with its Q Capture, queue manager
and Q Apply) runs its own workload, captures those changes and sends them to its partner,
and applies the partner's changes. The steady-state solver (:mod:`.pipeline`) models the
two systems alike: it solves the flow the first system originates, and the partner's flow
is its mirror image, so every LPAR of the solution carries one system's share of both
directions (its workload and Q Capture on the flow's rows, its Q Apply on the partner's).

:func:`system_metrics` turns a solved :class:`~engine.perf.qrep.pipeline.Solution` into
flat metrics ``system1_<figure>`` and ``system2_<figure>`` (:data:`FIGURES`), so they travel
with every prediction, stored run and comparison like any other metric. Per system:

* ``originated_rows_per_s`` (O): rows its workload changes and its Q Capture sends;
  ``applied_rows_per_s`` (A): the partner's rows its Q Apply applies.
* Its CPU, split into disjoint parts, each per the rows that cause it (reference-CPU
  demands of :mod:`.costs` scaled by the CPU model's time factor and the multiprocessor
  loss of the LPAR that runs the work):
  ``source_cpu_us_per_row`` (workload SQL, per originated row), ``capture_cpu_us_per_row``
  (Q Capture and capture-side MQ, per originated row), ``apply_cpu_us_per_row`` (Q Apply,
  its Db2 SQL and commit, apply-side MQ, per applied row), ``trigger_cpu_us_per_row``
  (peer-to-peer version-maintenance triggers, per changed row: they fire for the rows
  the workload changes and for the rows Q Apply applies; 0 for bidirectional) and
  ``recursion_cpu_us_per_row`` (recursion avoidance, per applied row: Q Capture reads and
  discards the applied row, Q Apply records the applied transaction).
* ``cpu_us_per_row``: all of it per row the system captures or applies (the seeds' "CPU
  cost divided by the sum of the captured and applied rows on each system"):

      cpu_us_per_row * (O + A) = source * O + capture * O + apply * A
                                 + trigger * (O + A) + recursion * A

* ``replication_cpu_us_per_row``: the same without the workload's own SQL (what
  replication adds; the seeds deduct the cost of the workload without replication):
  ``replication_cpu_us_per_row * (O + A) = cpu_us_per_row * (O + A) - source * O``.
  With symmetric systems (O = A) the replication CPU of a system per row it originates
  is the flow's ``total_cpu_us_per_row`` (both ends of one flow per row):
  ``replication_cpu_us_per_row * (O + A) = total_cpu_us_per_row * O``, i.e. half of it
  per row captured or applied.
* ``lpar_busy_pct``: the system's processors busy, all its LPARs together (CPU used over
  CPs, including each LPAR's fixed load), and ``busiest_lpar_busy_pct``, its busiest LPAR.

The LPARs' fixed load (system address spaces, monitor) is in the busy shares but not in the
CPU per row, like the flow's ``capture_cpu_us_per_row`` and ``apply_cpu_us_per_row``.

:func:`systems_of` reads the figures back from metrics (a prediction or a stored run) and
names each system after its project's source Db2 node (:func:`engine.two_way_note.symmetry_note`
says when a project's second flow is set up differently from the first: the engine uses the first).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Figures of one system: (name, label, unit), in reading order.
FIGURES = (
    ("originated_rows_per_s", "rows originated (own workload, captured)", "rows/s"),
    ("applied_rows_per_s", "rows applied (the partner's changes)", "rows/s"),
    ("cpu_us_per_row", "CPU per row captured or applied", "us/row"),
    ("replication_cpu_us_per_row", "replication CPU per row captured or applied", "us/row"),
    ("trigger_cpu_us_per_row", "peer-to-peer triggers per changed row", "us/row"),
    ("recursion_cpu_us_per_row", "recursion avoidance per applied row", "us/row"),
    ("source_cpu_us_per_row", "workload SQL per originated row", "us/row"),
    ("capture_cpu_us_per_row", "Q Capture and MQ per originated row", "us/row"),
    ("apply_cpu_us_per_row", "Q Apply, Db2 and MQ per applied row", "us/row"),
    ("lpar_busy_pct", "processors busy (all its LPARs)", "%"),
    ("busiest_lpar_busy_pct", "busiest LPAR busy", "%"),
)
FIGURE_NAMES = tuple(name for name, _, _ in FIGURES)
FIGURE_LABELS = {name: label for name, label, _ in FIGURES}
FIGURE_UNITS = {name: unit for name, _, unit in FIGURES}

#: Metric-name prefix of system ``k`` (1 or 2): ``system1_cpu_us_per_row``.
PREFIX = "system"
_METRIC = re.compile(rf"^{PREFIX}(\d+)_(.+)$")

#: Topologies with two systems.
TWO_WAY = ("bidirectional", "peer-to-peer")


def metric_name(index: int, figure: str) -> str:
    """Metric name of ``figure`` for system ``index`` (1-based): ``system1_cpu_us_per_row``."""
    return f"{PREFIX}{index}_{figure}"


def parse_metric(name: str) -> tuple[int, str] | None:
    """``(system index, figure)`` of a system metric name, or None for any other metric."""
    m = _METRIC.match(name)
    if m is None or m.group(2) not in FIGURE_UNITS:
        return None
    return int(m.group(1)), m.group(2)


def is_system_metric(name: str) -> bool:
    """True for the per-system metrics this module adds (``system1_...``, ``system2_...``)."""
    return parse_metric(name) is not None


def metric_units() -> dict:
    """Unit of every system metric name (both systems)."""
    return {metric_name(k, f): u for k in (1, 2) for f, u in FIGURE_UNITS.items()}


def _role_factors(sol, mp_loss: float) -> dict:
    """Reference-CPU microseconds -> CP microseconds on the LPAR hosting each role (S, C, A)."""
    from engine.perf.qrep.platforms import FlowPlatform

    platform = FlowPlatform(sol.inputs.platform, sol.time_factor)  # Linux/UNIX/Windows servers' core speed
    out = {}
    for lp in sol.lpars:
        factor = sol.time_factor * (1.0 + mp_loss * (lp.cps - 1)) * platform.speed(lp.roles)
        for role in lp.roles:
            out[role] = factor
    return out


def contention_cpu_us_per_row(sol, coefficients) -> float:
    """CPU (us on the apply LPAR's CPs) per applied row the busy agents of ``sol`` spend contending.

    It grows with the agents working at once (:mod:`engine.perf.qrep.apply_parallel`), so with the
    rate and an agent's time per transaction: two flows alike but for peer-to-peer triggers (which
    lengthen a transaction) differ by it besides the triggers' own CPU.
    """
    return sol.agent_contention_row_ref_us * _role_factors(sol, coefficients.mp_loss)["A"]


def _one_system(parts: dict, originated: float, applied: float, lpars) -> dict:
    """Figures of one system from its per-row parts and the rows it originates and applies."""
    handled = originated + applied
    o_share = originated / handled if handled > 0 else 0.5
    a_share = 1.0 - o_share
    replication = (
        o_share * parts["capture"] + a_share * (parts["apply"] + parts["recursion"]) + parts["trigger"]
    )
    cpu = replication + o_share * parts["source"]
    cps = sum(lp.cps for lp in lpars)
    busy = [min(max(lp.busy, 0.0), 1.0) for lp in lpars]
    return {
        "originated_rows_per_s": originated,
        "applied_rows_per_s": applied,
        "cpu_us_per_row": cpu,
        "replication_cpu_us_per_row": replication,
        "trigger_cpu_us_per_row": parts["trigger"],
        "recursion_cpu_us_per_row": parts["recursion"],
        "source_cpu_us_per_row": parts["source"],
        "capture_cpu_us_per_row": parts["capture"],
        "apply_cpu_us_per_row": parts["apply"],
        "lpar_busy_pct": 100.0 * sum(b * lp.cps for b, lp in zip(busy, lpars)) / cps,
        "busiest_lpar_busy_pct": 100.0 * max(busy),
    }


def system_metrics(sol, coefficients) -> dict:
    """Per-system metrics of a solved bidirectional or peer-to-peer flow; ``{}`` otherwise.

    Parameters
    ----------
    sol : Solution
        From :func:`engine.perf.qrep.pipeline.solve` (steady state; a drain has no systems).
    coefficients : Coefficients
        The coefficients the solution was solved with (for the multiprocessor loss).

    Returns
    -------
    dict
        ``system1_<figure>`` and ``system2_<figure>`` -> value for every figure of
        :data:`FIGURES` (units :func:`metric_units`). System 1 originates the solved flow;
        system 2 is its partner, whose flow the solver models as the mirror image.
    """
    inp = sol.inputs
    if inp.topology not in TWO_WAY or inp.mode == "drain":
        return {}
    d, g = sol.demands, sol.geometry
    rpm, rows_tgt = g.rows_per_msg, g.rows_per_target_txn
    f = _role_factors(sol, coefficients.mp_loss)
    mpc = sol.msgs_per_commit
    # each role's reference-CPU demand per row as the solver charges it to its LPAR, in disjoint parts
    capture_row = (
        d.capture_reader_row_us
        - d.recursion_row_us
        + d.capture_worker_row_us
        + (d.put_cpu_us + d.capture_mq_other_msg_us + d.commit_cpu_us / mpc) / rpm
    )
    apply_row = (
        d.apply_sql_row_us
        + d.apply_agent_row_us
        + (d.browser_msg_us + d.get_cpu_us + d.apply_mq_other_msg_us) / rpm
        + d.apply_commit_us / rows_tgt
        + d.apply_other_row_us
        + sol.agent_contention_row_ref_us
        + sol.ooo_browse_row_ref_us
    )
    trig = d.trigger_row_us
    x = sol.rows_per_s
    # symmetric systems: each originates the flow's rate and applies its partner's (the same)
    originated = applied = x
    handled = originated + applied
    trigger = (
        (trig * f["S"] * originated + trig * f["A"] * applied) / handled
        if handled > 0
        else 0.5 * trig * (f["S"] + f["A"])
    )
    parts = {
        "source": d.source_sql_row_us * f["S"],
        "capture": capture_row * f["C"],
        "apply": apply_row * f["A"],
        "trigger": trigger,
        "recursion": d.recursion_row_us * f["C"] + d.recursion_txn_row_us * f["A"],
    }
    out = {}
    for k in (1, 2):
        for name, value in _one_system(parts, originated, applied, sol.lpars).items():
            out[metric_name(k, name)] = value
    return out


@dataclass(frozen=True)
class SystemFigures:
    """One system's figures, named after the project's node.

    Attributes
    ----------
    index : int
        1 for the system originating the project's first flow, 2 for its partner.
    node_id : str
        Id of the system's source Db2 node ("" when no project is known).
    label : str
        The system's name: its source Db2 node's label without "(source)" (``Db2 A``), or
        ``system 1`` / ``system 2`` without a project.
    values : dict
        Figure name (:data:`FIGURE_NAMES`) -> value; figures the metrics lack are absent.
    """

    index: int
    node_id: str
    label: str
    values: dict

    def get(self, figure: str) -> float | None:
        """The value of ``figure`` or None."""
        return self.values.get(figure)

    def to_json(self) -> dict:
        """Plain data: ``id``, ``label``, ``metric_prefix`` and every figure."""
        return {
            "id": self.node_id,
            "label": self.label,
            "metric_prefix": f"{PREFIX}{self.index}_",
            **{k: v for k, v in self.values.items()},
        }


def system_nodes(project) -> list[tuple[str, str]]:
    """``(node id, label)`` of each system of a two-way ``project``, in flow order.

    A system is named after the source Db2 node of the flow it originates (its label
    without a trailing "(source)"). Returns ``[]`` for other topologies or when the
    project has fewer than two complete flows.
    """
    from engine.topology import partner_flows

    out = []
    for flow in partner_flows(project):
        node = flow[0]
        label = re.sub(r"\s*\((source|target)\)\s*$", "", node.label or "").strip() or node.id
        out.append((node.id, label))
    return out


def systems_of(metrics: dict, project=None) -> tuple[SystemFigures, ...]:
    """The systems whose figures ``metrics`` carry, named after ``project``'s nodes when given.

    Parameters
    ----------
    metrics : dict
        Metric name -> value (a prediction's or a stored run's).
    project : engine.model.Project, optional
        Names the systems (:func:`system_nodes`); without it they are ``system 1`` and ``system 2``.

    Returns
    -------
    tuple of SystemFigures
        Empty when the metrics have no system figures (unidirectional, drain, other kinds).
    """
    found: dict[int, dict] = {}
    for name, value in metrics.items():
        parsed = parse_metric(name)
        if parsed is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        found.setdefault(parsed[0], {})[parsed[1]] = float(value)
    if not found:
        return ()
    nodes = system_nodes(project)
    out = []
    for index in sorted(found):
        values = {f: found[index][f] for f in FIGURE_NAMES if f in found[index]}
        node_id, label = nodes[index - 1] if index - 1 < len(nodes) else ("", f"system {index}")
        out.append(SystemFigures(index, node_id, label, values))
    return tuple(out)


__all__ = [
    "FIGURES",
    "FIGURE_LABELS",
    "FIGURE_NAMES",
    "FIGURE_UNITS",
    "SystemFigures",
    "is_system_metric",
    "metric_name",
    "metric_units",
    "parse_metric",
    "system_metrics",
    "system_nodes",
    "systems_of",
]
