"""Goals from a form: the Advisor's goal kinds in a DBA's words, turned into the goal text the engine takes.

A form names a goal kind (:data:`GOAL_KINDS`: "Reach a target rate with the fewest apply agents",
"Minimise END2END latency at a target rate", ...), a value in the kind's unit (a rate in rows/s,
a CPU limit in %, an outage in minutes) and, where a project has several, the node it is about,
by its label (which Q Apply, which Q Capture's queue maps). :func:`goal_text` builds the one-line
goal of :func:`engine.advise.goals.goal_from_text` from them, so a goal from the form and the same
goal typed are one goal; :func:`goal_from_form` parses it.

Every refusal is a :class:`~engine.errors.FieldError` naming the form's field (``Target rate``,
``Q Apply``), the value and what is allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.advise.goals import fewest_agents_text, mirror_baseline_text, outage_pool_text
from engine.errors import FieldError
from engine.model import Project
from engine.registry import kind as registry_kind


@dataclass(frozen=True)
class GoalKind:
    """One goal a user can choose.

    Attributes
    ----------
    id : str
        Stable id (kept in settings; never shown).
    label : str
        What the form lists, in a DBA's words.
    value_field : str
        The value's field name (``Target rate``), or empty when the goal takes no value.
    unit : str
        The value's unit (``rows/s``, ``%``, ``min``).
    minimum, maximum : float
        Inclusive bounds of the value.
    node_kind : str
        The node kind the goal is about (chosen by label when the project has several), or empty.
    node_field : str
        The node field's name (``Q Apply``).
    offered_when : str
        The node kind a project must have for the goal to be offered.
    """

    id: str
    label: str
    value_field: str = ""
    unit: str = ""
    minimum: float = 0.0
    maximum: float = math.inf
    node_kind: str = ""
    node_field: str = ""
    offered_when: str = "qapply"


_MAX_RATE = float(registry_kind("source_db2").param("offered_rows_per_s").maximum or 1e7)


def _at_target_rate(
    kind_id: str, label: str, node_kind: str = "qapply", node_field: str = "Q Apply"
) -> GoalKind:
    """A goal whose value is the rate to hold, rows/s, on a node chosen by label."""
    return GoalKind(kind_id, label, "Target rate", "rows/s", 1.0, _MAX_RATE, node_kind, node_field)


#: Every goal kind, in the order the form lists them.
GOAL_KINDS: tuple[GoalKind, ...] = (
    _at_target_rate("fewest_agents", "Reach a target rate with the fewest apply agents"),
    _at_target_rate(
        "fewest_queue_maps", "Reach a target rate with the fewest queue maps", "qcapture", "Q Capture"
    ),
    _at_target_rate("min_end2end", "Minimise END2END latency at a target rate"),
    _at_target_rate("min_cpu_per_row", "Minimise Q Apply CPU per row at a target rate"),
    GoalKind(
        "max_rate",
        "Reach the highest rate with Q Apply CPU under a limit",
        value_field="Q Apply CPU limit",
        unit="%",
        minimum=1.0,
        maximum=100.0,
        node_kind="qapply",
        node_field="Q Apply",
    ),
    GoalKind(
        "outage_pool",
        "Hold a channel outage in the transmit queue's buffer pool (smallest BUFFPOOL)",
        value_field="Outage length",
        unit="min",
        minimum=0.1,
        maximum=7 * 24 * 60.0,
    ),
    GoalKind(
        "mirror_job_sets",
        "Bring Db2 Mirror throughput back to the unmirrored baseline with the fewest job sets",
        offered_when="db2_mirror_node",
    ),
    GoalKind(
        "mirror_cores",
        "Bring Db2 Mirror throughput back to the unmirrored baseline with the fewest cores",
        offered_when="db2_mirror_node",
    ),
)
_BY_ID = {k.id: k for k in GOAL_KINDS}

#: The knobs the latency, CPU and rate goals search: apply agents on the chosen Q Apply, and
#: TRANS_BATCH_SZ on every Q Capture.
_AGENTS_RANGE = "1..32"
_BATCH_RANGE = "1..10"
#: A target rate is held when throughput is within the solver's tolerance of it (as fewest-agents).
_HOLD = 0.999


def number_text(value: float) -> str:
    """``value`` as the form shows it: ``60,000``, ``1``, ``0.1`` (whole numbers without decimals)."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,g}"


def goal_kinds(project: Project) -> tuple[GoalKind, ...]:
    """The goal kinds offered for ``project``: those whose node kind it has."""
    kinds = {n.kind for n in project.nodes}
    return tuple(k for k in GOAL_KINDS if k.offered_when in kinds)


def goal_kind(kind_id: str, project: Project) -> GoalKind:
    """The kind ``kind_id`` offered for ``project``.

    Raises
    ------
    FieldError
        ``Goal``: an unknown kind, or one the project cannot run; the message lists those it can.
    """
    offered = goal_kinds(project)
    if kind_id not in {k.id for k in offered}:
        shown = _BY_ID[kind_id].label if kind_id in _BY_ID else kind_id
        allowed = "; ".join(k.label for k in offered) or "no goal for this kind of project"
        raise FieldError("Goal", shown, f"one of: {allowed}")
    return _BY_ID[kind_id]


def default_value(kind: GoalKind, project: Project) -> float | None:
    """The value the form starts with: the project's offered rate (60,000 rows/s when none is set),
    90% CPU, 20 minutes of outage; None for a goal without a value."""
    from engine.studies.sweep_pick import target_rate

    if kind.unit == "rows/s":
        return target_rate(project) or 60_000.0
    return {"%": 90.0, "min": 20.0}.get(kind.unit)


def node_labels(kind: GoalKind, project: Project) -> list[str]:
    """The labels of the nodes the goal can be about, in the project's order (empty: none to choose)."""
    return [n.label for n in project.nodes if kind.node_kind and n.kind == kind.node_kind]


def parse_value(kind: GoalKind, text: str) -> float:
    """The form's value: a number (``30,000`` and ``30_000`` read as 30000) within the kind's bounds.

    Raises
    ------
    FieldError
        Naming the value's field, the text and the bounds with the unit.
    """
    allowed = f"a number from {number_text(kind.minimum)} to {number_text(kind.maximum)} {kind.unit}"
    try:
        value = float(str(text).strip().replace(",", "").replace("_", ""))
    except ValueError:
        raise FieldError(kind.value_field, text, allowed) from None
    if not math.isfinite(value) or not kind.minimum <= value <= kind.maximum:
        raise FieldError(kind.value_field, text, allowed)
    return value


def _target(kind: GoalKind, project: Project, node_label: str | None) -> str:
    """The goal text's target for the kind's node: the kind (``qapply``) when the project has one such
    node, else the id of the node labelled ``node_label``.

    Raises
    ------
    FieldError
        Several nodes and ``node_label`` is none of their labels.
    """
    nodes = [n for n in project.nodes if n.kind == kind.node_kind]
    if len(nodes) <= 1:
        return kind.node_kind
    chosen = [n for n in nodes if n.label == node_label]
    if len(chosen) != 1:
        raise FieldError(
            kind.node_field, node_label or "(none)", "one of: " + ", ".join(n.label for n in nodes)
        )
    return chosen[0].id


def _at_rate(objective: str, target: str, rate: float) -> str:
    """Minimise ``objective`` over apply agents and TRANS_BATCH_SZ with the workload offered at ``rate``."""
    return (
        f"min {objective} subject to apply_rows_per_s>={_HOLD * rate:g} "
        f"over {target}.num_apply_agents={_AGENTS_RANGE} qcapture.trans_batch_sz={_BATCH_RANGE} "
        f"with source_db2.offered_rows_per_s={rate:g}"
    )


def goal_text(project: Project, kind_id: str, value_text: str = "", node_label: str | None = None) -> str:
    """The goal the engine takes (:func:`engine.advise.goals.goal_from_text`) for a filled-in form.

    Parameters
    ----------
    project : Project
    kind_id : str
        A :data:`GOAL_KINDS` id offered for the project (:func:`goal_kinds`).
    value_text : str
        The value as typed, in the kind's unit (ignored by a goal without a value).
    node_label : str, optional
        The label of the node the goal is about, when the project has several of its kind.

    Raises
    ------
    FieldError
        Naming the form's field (``Goal``, ``Target rate``, ``Q Apply`` ...), the value and what
        is allowed.
    """
    kind = goal_kind(kind_id, project)
    value = parse_value(kind, value_text) if kind.value_field else 0.0
    target = _target(kind, project, node_label) if kind.node_kind else ""
    if kind.id == "fewest_agents":
        return fewest_agents_text(value, target=target)
    if kind.id == "fewest_queue_maps":
        maps = registry_kind("qcapture").param("queue_maps")
        return (
            f"min {target}.queue_maps subject to apply_rows_per_s>={_HOLD * value:g} "
            f"over {target}.queue_maps={int(maps.minimum or 1)}..{int(maps.maximum or 64)} "
            f"with source_db2.offered_rows_per_s={value:g}"
        )
    if kind.id == "min_end2end":
        return _at_rate("end2end_latency_ms", target, value)
    if kind.id == "min_cpu_per_row":
        return _at_rate("apply_cpu_us_per_row", target, value)
    if kind.id == "max_rate":
        return (
            f"max apply_rows_per_s subject to apply_lpar_busy_pct<={value:g} "
            f"over {target}.num_apply_agents={_AGENTS_RANGE} qcapture.trans_batch_sz={_BATCH_RANGE}"
        )
    if kind.id == "outage_pool":
        return outage_pool_text(project, value)
    return mirror_baseline_text(project, "job_sets" if kind.id == "mirror_job_sets" else "cores")


def goal_from_form(project: Project, kind_id: str, value_text: str = "", node_label: str | None = None):
    """The :class:`engine.advise.goalseek.Goal` of a filled-in form (:func:`goal_text`, then parsed).

    Raises
    ------
    FieldError
        As :func:`goal_text`, or as :func:`engine.advise.goalseek.parse_goal`.
    """
    from engine.advise.goals import goal_from_text

    return goal_from_text(goal_text(project, kind_id, value_text, node_label), project)


__all__ = [
    "GOAL_KINDS",
    "GoalKind",
    "default_value",
    "goal_from_form",
    "goal_kind",
    "goal_kinds",
    "goal_text",
    "node_labels",
    "number_text",
    "parse_value",
]
