"""The advisor's building blocks: a rule, a proposed change, a checked recommendation.

A :class:`Rule` is a small object with a check, :meth:`Rule.applies` ``(project,
prediction)``, and a concrete changed project, :meth:`Rule.change`. The advisor
(:func:`engine.advise.advise`) runs the engine on the changed project and emits a
:class:`Recommendation` only when the rule's target metric improves; the recommendation
carries both predictions, so every number it states comes from the engine.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.metrics import knob_label
from engine.model import Project
from engine.registry import KINDS
from engine.studies.sweep import Axis

#: Metrics shown before and after for each scenario kind: (metric, label).
EFFECT_METRICS = {
    "qrep": (
        ("apply_rows_per_s", "throughput"),
        ("end2end_latency_ms", "END2END latency"),
        ("apply_latency_ms", "APPLY latency"),
        ("elapsed_s", "drain time"),
        ("capture_cpu_us_per_row", "Q Capture CPU per row"),
        ("apply_cpu_us_per_row", "Q Apply CPU per row"),
        ("apply_lpar_busy_pct", "Q Apply LPAR busy"),
        ("msg_size_kb", "message size"),
    ),
    "db2mirror": (
        ("throughput", "throughput"),
        ("response_time_ms", "response time"),
        ("source_cpu_pct", "source CPU"),
        ("target_cpu_pct", "target CPU"),
    ),
    "mq-mover": (
        ("transfer_mb_per_s", "transfer rate"),
        ("elapsed_s", "elapsed"),
        ("total_cpu_us_per_msg", "CPU per message"),
        ("pageset_get_fraction", "read from page set"),
    ),
}


@dataclass(frozen=True)
class Change:
    """One knob edit: ``param`` of ``node_id`` from ``before`` to ``after``."""

    node_id: str
    label: str
    param: str
    before: object
    after: object

    def __str__(self) -> str:
        return f"{self.label} {knob_label(self.param)} {self.before} -> {self.after}"


def diff_projects(before: Project, after: Project) -> tuple:
    """Every knob whose value differs between two projects with the same nodes."""
    out = []
    old_nodes = {n.id: n for n in before.nodes}
    for node in after.nodes:
        old = old_nodes.get(node.id)
        if old is None:  # a node the change added has no before
            continue
        for name, value in node.params.items():
            if old.params.get(name) != value:
                out.append(Change(node.id, node.label, name, old.params.get(name), value))
    return tuple(out)


@dataclass
class Recommendation:
    """A change the engine says helps.

    Attributes
    ----------
    rule : str
        Rule id.
    title : str
        Imperative one-liner ("Batch 15 source transactions per MQ message").
    reason : str
        Why the rule applied, with the numbers it looked at.
    changes : tuple[Change, ...]
    metric, sense : str
        The targeted metric and ``max`` or ``min``.
    gain_pct : float
        Improvement of the targeted metric, in percent (positive is better).
    before, after : dict
        ``{metric: value}`` of the effect metrics, from the engine.
    units : dict
    cost_risk : str
        What the change costs or risks.
    seed : str
        Where the seeds discuss it (file, section).
    project : Project
        The changed project.
    prediction : Prediction
        The engine's prediction of ``project``.
    """

    rule: str
    title: str
    reason: str
    changes: tuple
    metric: str
    sense: str
    gain_pct: float
    before: dict
    after: dict
    units: dict
    cost_risk: str
    seed: str
    project: Project = field(repr=False, default=None)
    prediction: object = field(repr=False, default=None)

    @property
    def signed_gain_pct(self) -> float:
        """The targeted metric's change, in percent, with its own sign (a falling CPU is negative)."""
        return self.gain_pct if self.sense == "max" else -self.gain_pct

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "title": self.title,
            "reason": self.reason,
            "changes": [
                {"node": c.node_id, "param": c.param, "before": c.before, "after": c.after}
                for c in self.changes
            ],
            "metric": self.metric,
            "sense": self.sense,
            "gain_pct": self.gain_pct,
            "before": self.before,
            "after": self.after,
            "units": self.units,
            "cost_risk": self.cost_risk,
            "seed": self.seed,
        }


def knob_axis(project: Project, kind: str, param: str, values, node_ids=None) -> Axis:
    """A search axis setting ``param`` of every node of ``kind`` (or of ``node_ids``) to ``values``."""
    ids = tuple(node_ids or (n.id for n in nodes(project, kind)))
    return Axis(kind if node_ids is None else ids[0], param, ids, tuple(values))


class Rule:
    """A tuning rule drawn from the seeds.

    Subclasses set the class attributes and implement :meth:`applies` and :meth:`change`
    (:class:`SetKnobRule` implements the change that sets the rule's knob to one value). A rule
    whose title or reason does not depend on the numbers states it in :attr:`title_text` or
    :attr:`reason_text` instead of overriding :meth:`title` or :meth:`reason`.

    Attributes
    ----------
    id : str
    kinds : tuple[str, ...]
        Scenario kinds the rule is about.
    metric, sense : str
        Metric the change targets, and whether more (``max``) or less (``min``) is better.
    cost_risk : str
    knob : tuple[str, str]
        ``(node kind, param)`` whose registry entry cites the seed section.
    title_text : str
        Fixed title ("": the changes the rule made).
    reason_text : str
        Fixed reason ("": none).
    """

    id = ""
    kinds: tuple = ("qrep",)
    metric = "apply_rows_per_s"
    sense = "max"
    cost_risk = ""
    knob: tuple = ("", "")
    title_text = ""
    reason_text = ""

    def applies(self, project: Project, prediction) -> bool:
        """Whether the configuration shows the symptom this rule treats."""
        raise NotImplementedError

    def change(self, project: Project, prediction) -> Project | None:
        """The changed project to try (None when no concrete change can be made)."""
        raise NotImplementedError

    def title(self, before: Project, after: Project, prediction) -> str:
        """Imperative one-line title."""
        return self.title_text or "; ".join(str(c) for c in diff_projects(before, after))

    def reason(self, project: Project, prediction) -> str:
        """Why the rule applied (numbers from the prediction)."""
        return self.reason_text

    def target(self, project: Project, prediction) -> tuple:
        """``(metric, sense)`` to judge the change by (default: the class attributes)."""
        return self.metric, self.sense

    @property
    def seed(self) -> str:
        kind, param = self.knob
        try:
            return KINDS[kind].param(param).seed
        except KeyError:
            return ""


class SetKnobRule(Rule):
    """A rule whose change sets its knob to :attr:`value` on every node of the knob's kind.

    By default it applies when any node of that kind has the knob at :attr:`symptom`; a rule
    that looks for another symptom overrides :meth:`applies`.
    """

    value: object = None
    symptom: object = None

    def applies(self, project: Project, prediction) -> bool:
        kind, param = self.knob
        return any(n.params.get(param) == self.symptom for n in nodes(project, kind))

    def to_change(self, project: Project) -> list:
        """Nodes of the knob's kind whose knob is not at :attr:`value`, in file order."""
        kind, param = self.knob
        return [n for n in nodes(project, kind) if n.params.get(param) != self.value]

    def change(self, project: Project, prediction) -> Project:
        kind, param = self.knob
        return set_all(project, kind, param, self.value)


# -- helpers shared by the rules -------------------------------------------------------------------


def nodes(project: Project, kind: str) -> list:
    """Nodes of ``kind`` in file order."""
    return project.nodes_of(kind)


def first(project: Project, kind: str):
    """First node of ``kind`` or None."""
    found = project.nodes_of(kind)
    return found[0] if found else None


def set_all(project: Project, kind: str, param: str, value) -> Project:
    """``project`` with ``param`` of every ``kind`` node set to ``value`` (validated by the registry)."""
    for node in project.nodes_of(kind):
        project = project.with_param(node.id, param, value)
    return project


def metric(prediction, name: str, default=math.nan) -> float:
    """A metric of ``prediction`` as float (``default`` when absent)."""
    v = prediction.metrics.get(name)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else default


def stage_utilisation(prediction, name: str) -> float:
    """Utilisation of stage ``name`` (0 when absent)."""
    return next((s.utilisation for s in prediction.stages if s.name == name), 0.0)
