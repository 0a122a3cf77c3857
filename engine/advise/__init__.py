"""The advisor: what to change, by how much, and what the engine predicts it does.

:func:`advise` predicts the project, asks every rule whether its symptom is present
(:meth:`~engine.advise.base.Rule.applies`), builds the rule's concrete changed project
(:meth:`~engine.advise.base.Rule.change`), and runs the engine on it. A
:class:`~engine.advise.base.Recommendation` is emitted only when the rule's target metric
improves by at least ``min_gain_pct``; it states throughput, latency and CPU before and after
(both from the engine), its cost or risk, and the seed section behind it. Rules that were
not applicable, or whose change did not help, are listed in :attr:`Advice.checked`.

Modules
-------
``base``             Rule, Change, Recommendation and helpers.
``qrep_rules``       Q Replication rules (TRANS_BATCH_SZ, locking, column suppression, buffer
                     pools, read-ahead, indexes, columns, transaction size, apply agents,
                     persistence, trace).
``platform_rules``   Linux/UNIX/Windows: bindings or client, LogBufferPages, queue buffers.
``luw_log_rules``    Linux/UNIX/Windows: the log device, parallel send queues.
``mirror_mq_rules``  Db2 Mirror (storage, cores, job sets, memory pools, read-only opens) and
                     MQ buffer pool (page-fix, backlog, read-ahead) rules.
``goalseek``         Minimise or maximise one metric subject to bounds on others.
``goals``            Named goals of the journeys (fewest apply agents, outage buffer pool).
``outage``           Minutes of channel outage a transmit queue's buffer pool holds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine.advise.base import EFFECT_METRICS, Recommendation, Rule, diff_projects
from engine.errors import QrtuneError
from engine.model import Project

#: Smallest improvement of the target metric (percent) for a recommendation.
MIN_GAIN_PCT = 1.0


def all_rules(outage_min: float | None = None) -> list:
    """Every rule, Q Replication first."""
    from engine.advise.luw_log_rules import luw_log_rules
    from engine.advise.mirror_mq_rules import mirror_mq_rules
    from engine.advise.platform_rules import platform_rules
    from engine.advise.qrep_rules import OUTAGE_MIN, qrep_rules

    return (
        qrep_rules(OUTAGE_MIN if outage_min is None else outage_min)
        + platform_rules()
        + luw_log_rules()
        + mirror_mq_rules()
    )


@dataclass
class Advice:
    """The advisor's answer for one project.

    Attributes
    ----------
    project : Project
    prediction : Prediction
        The engine's prediction of the project as it is.
    recommendations : list[Recommendation]
        Best gain first.
    checked : list[tuple[str, str]]
        ``(rule id, outcome)`` for every rule of the project's kind: ``recommended``,
        ``not applicable``, ``no concrete change``, ``no gain (+0.3%)`` or ``engine error: ...``.
    """

    project: Project
    prediction: object
    recommendations: list = field(default_factory=list)
    checked: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "project": self.project.name,
            "kind": self.prediction.kind,
            "recommendations": [r.to_json() for r in self.recommendations],
            "checked": [{"rule": r, "outcome": o} for r, o in self.checked],
        }


def _with_derived(project: Project, prediction) -> dict:
    metrics = dict(prediction.metrics)
    if prediction.kind == "qrep":
        from engine.advise.outage import outage_metrics

        metrics.update(outage_metrics(project, metrics))
    return metrics


def gain_pct(before: float, after: float, sense: str) -> float:
    """Improvement in percent (positive is better); ``inf`` when a metric appears from zero or nothing."""
    if not isinstance(after, (int, float)) or math.isnan(after):
        return -math.inf
    if not isinstance(before, (int, float)) or math.isnan(before):
        return math.inf
    if before == 0:
        return math.inf if (after > 0) == (sense == "max") and after != 0 else 0.0
    change = (after - before) / abs(before) * 100.0
    return change if sense == "max" else -change


def evaluate_rule(rule: Rule, project: Project, prediction, min_gain_pct: float = MIN_GAIN_PCT):
    """Try one rule; returns ``(Recommendation or None, outcome text)``."""
    from engine.advise.outage import UNITS as OUTAGE_UNITS
    from engine.predict import predict_project

    if not rule.applies(project, prediction):
        return None, "not applicable"
    try:
        changed = rule.change(project, prediction)
    except QrtuneError as e:
        return None, f"no concrete change ({e})"
    if changed is None or changed == project:
        return None, "no concrete change"
    try:
        after = predict_project(changed)
    except QrtuneError as e:
        return None, f"engine error: {e}"
    metric, sense = rule.target(project, prediction)
    m_before, m_after = _with_derived(project, prediction), _with_derived(changed, after)
    if metric not in m_before or metric not in m_after:
        return None, f"{metric} is not predicted for this configuration"
    gain = gain_pct(m_before.get(metric, math.nan), m_after.get(metric, math.nan), sense)
    if not gain >= min_gain_pct:
        return None, f"no gain ({metric} {gain:+.1f}%)"
    names = [m for m, _ in EFFECT_METRICS.get(prediction.kind, ())]
    if metric not in names:
        names.append(metric)
    units = {**OUTAGE_UNITS, **prediction.units, **after.units}
    rec = Recommendation(
        rule=rule.id,
        title=rule.title(project, changed, prediction),
        reason=rule.reason(project, prediction),
        changes=diff_projects(project, changed),
        metric=metric,
        sense=sense,
        gain_pct=gain,
        before={m: m_before[m] for m in names if m in m_before},
        after={m: m_after[m] for m in names if m in m_after},
        units={m: units.get(m, "") for m in names},
        cost_risk=rule.cost_risk,
        seed=rule.seed,
        project=changed,
        prediction=after,
    )
    return rec, "recommended"


def advise(
    project: Project,
    prediction=None,
    rules: list | None = None,
    min_gain_pct: float = MIN_GAIN_PCT,
    outage_min: float | None = None,
    progress=None,
    cancelled=None,
) -> Advice:
    """Check every rule against ``project`` and keep the changes the engine says help.

    Parameters
    ----------
    project : Project
    prediction : Prediction, optional
        The project's prediction when already known.
    rules : list[Rule], optional
        Default :func:`all_rules`.
    min_gain_pct : float
        Smallest improvement of a rule's target metric to recommend it.
    outage_min : float, optional
        Channel outage (minutes) the transmit queue's buffer pool should hold (default 20).
    progress, cancelled : callable, optional
        ``progress(fraction, text)``; ``cancelled()`` True stops early (the advice so far is returned).

    Raises
    ------
    TopologyError, UnsupportedKindError
        The project cannot be predicted at all.
    """
    from engine.predict import predict_project

    prediction = prediction or predict_project(project)
    rules = [r for r in (rules if rules is not None else all_rules(outage_min)) if prediction.kind in r.kinds]
    advice = Advice(project, prediction)
    for i, rule in enumerate(rules):
        if cancelled and cancelled():
            break
        rec, outcome = evaluate_rule(rule, project, prediction, min_gain_pct)
        advice.checked.append((rule.id, outcome))
        if rec is not None:
            advice.recommendations.append(rec)
        if progress:
            progress((i + 1) / len(rules), f"{rule.id}: {outcome}")
    advice.recommendations.sort(key=lambda r: -r.gain_pct if math.isfinite(r.gain_pct) else -1e18)
    return advice


__all__ = [
    "MIN_GAIN_PCT",
    "Advice",
    "Recommendation",
    "Rule",
    "advise",
    "all_rules",
    "evaluate_rule",
    "gain_pct",
]
