"""The pick of a sweep: the fewest knob value that holds the throughput with every CPU under 90%.

Journey 2's tuning goal (the seeds': "the smallest number that handles the
workload"): of a sweep over one numeric knob, the smallest value whose throughput
reaches :data:`REACH_FRACTION` of the best throughput of the sweep - or of the
project's target rate when it sets one (``OFFERED_ROWS_PER_S``) - with every
CPU busy metric below :data:`CPU_LIMIT_PCT`. The workbench's Sweep view and the
sweep report (:mod:`engine.report.sweep`) both call :func:`choose`, so they name
the same value.

Points are any objects with ``value`` (the swept knob's value), ``metrics`` and
``units`` (dicts keyed by engine metric name), e.g. :class:`app.tasks.SweepPoint`
or :class:`engine.report.sweep.SweepPointRow`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.metrics.catalog import format_number, format_setting
from engine.registry import KINDS

#: Throughput metrics in order of preference (the first present is the sweep's throughput).
RATE_METRICS = ("apply_rows_per_s", "capture_rows_per_s", "throughput", "tps", "transfer_mb_per_s")
#: Latency metrics in order of preference.
LATENCY_METRICS = (
    "end2end_latency_ms",
    "apply_latency_ms",
    "qlatency_ms",
    "capture_latency_ms",
    "response_time_ms",
)
#: Metric name endings of CPU busy metrics (percent of an LPAR or node).
CPU_SUFFIXES = ("_busy_pct", "_cpu_pct")
#: CPU busy limit of the pick, percent.
CPU_LIMIT_PCT = 90.0
#: A value "reaches" the best throughput (or the target rate) when within this fraction of it.
REACH_FRACTION = 0.99
#: Knobs whose value is the rate the workload must hold (rows/s), when the project sets it.
TARGET_KNOBS = ("offered_rows_per_s",)
#: Unit of :data:`TARGET_KNOBS`; a target applies to a throughput metric in the same unit only.
TARGET_UNIT = "rows/s"


def rate_metrics(names: Iterable[str]) -> list[str]:
    """The throughput metrics among ``names``, preferred first; rows/s ones only when there are any
    (one unit per chart)."""
    names = set(names)
    rates = [m for m in RATE_METRICS if m in names]
    if any(m.endswith("rows_per_s") for m in rates):
        rates = [m for m in rates if m.endswith("rows_per_s")]
    return rates


def cpu_metrics(names: Iterable[str]) -> list[str]:
    """The CPU busy metrics (percent) among ``names``, sorted."""
    return sorted({m for m in names if m.endswith(CPU_SUFFIXES)})


def target_rate(project, swept_params: Iterable[str] = ()) -> float | None:
    """The rate ``project`` must hold (rows/s): its ``offered_rows_per_s`` when set.

    None when no node sets it, when nodes set different values, or when the sweep varies
    it itself (``swept_params`` holds a :data:`TARGET_KNOBS` name): the target then differs
    from point to point and the pick falls back to the best throughput.
    """
    if project is None or any(p in TARGET_KNOBS for p in swept_params):
        return None
    values = {
        float(n.params[k])
        for n in project.nodes
        for k in TARGET_KNOBS
        if isinstance(n.params.get(k), (int, float))
        and not isinstance(n.params.get(k), bool)
        and n.params[k] > 0
    }
    return values.pop() if len(values) == 1 else None


def rate_nodes(project) -> list[str]:
    """Ids of the nodes of ``project`` whose kind has a :data:`TARGET_KNOBS` setting (the workloads)."""
    return [n.id for n in project.nodes if any(spec.name in TARGET_KNOBS for spec in KINDS[n.kind].params)]


def at_target_rate(project, rows_per_s: float | None):
    """``project`` with every workload offering ``rows_per_s`` (OFFERED_ROWS_PER_S), or driven to the
    maximum sustainable rate when ``rows_per_s`` is None: the project a sweep "at the target rate"
    predicts, so its curves are at that rate and its record names the target
    (:func:`target_rate` of the result is ``rows_per_s``).

    Raises
    ------
    FieldError
        ``rows_per_s`` is outside OFFERED_ROWS_PER_S's range.
    """
    for node_id in rate_nodes(project):
        for knob in TARGET_KNOBS:
            project = project.with_param(node_id, knob, rows_per_s)
    return project


def pick_smallest(
    points: Sequence,
    rate_metric: str,
    cpu_metrics: Sequence[str],
    reach: float = REACH_FRACTION,
    cpu_limit_pct: float = CPU_LIMIT_PCT,
    target: float | None = None,
):
    """The point with the smallest value whose ``rate_metric`` is at least ``reach`` times the goal
    and whose CPU metrics are all below ``cpu_limit_pct``; None when no point qualifies.

    Parameters
    ----------
    points : sequence
        Successful points of a sweep over one numeric knob (``value``, ``metrics``).
    rate_metric : str
        The throughput metric (rows/s, tps ...).
    cpu_metrics : sequence of str
        CPU busy metrics in percent.
    reach : float
        Fraction of the goal a point must reach (0..1).
    cpu_limit_pct : float
        Every CPU busy metric must be below this, percent.
    target : float, optional
        The rate to hold, in the unit of ``rate_metric``; default: the best throughput of ``points``.
    """
    goal = (
        target if target is not None else max((p.metrics.get(rate_metric, 0.0) for p in points), default=0.0)
    )
    if not goal or goal <= 0 or not math.isfinite(goal):
        return None
    for p in sorted(points, key=lambda q: q.value):
        if p.metrics.get(rate_metric, 0.0) < reach * goal:
            continue
        if all(p.metrics.get(m, 0.0) < cpu_limit_pct for m in cpu_metrics):
            return p
    return None


@dataclass(frozen=True)
class Pick:
    """The pick of one curve of a sweep (the whole sweep for one knob).

    Attributes
    ----------
    knob : str
        IBM name of the swept knob, upper case (``NUM_APPLY_AGENTS``).
    point : object or None
        The point picked; None when no value qualifies.
    rate_metric : str
        The throughput metric judged.
    unit : str
        Its unit.
    best : float
        Best throughput of the curve, in ``unit``.
    target : float or None
        The target rate the pick holds (None: the best throughput is the goal).
    busiest_cpu_pct : float or None
        The highest CPU busy metric of the picked point, percent.
    reach : float
    cpu_limit_pct : float
    """

    knob: str
    point: object | None
    rate_metric: str
    unit: str
    best: float
    target: float | None
    busiest_cpu_pct: float | None
    reach: float = REACH_FRACTION
    cpu_limit_pct: float = CPU_LIMIT_PCT

    @property
    def value(self):
        """The picked knob value (None when nothing qualifies)."""
        return None if self.point is None else self.point.value

    @property
    def goal(self) -> float:
        """The throughput aimed at: the target rate or the best throughput, in ``unit``."""
        return self.target if self.target is not None else self.best

    def describe(self, fmt=None) -> str:
        """One sentence naming the pick (the Sweep view's label and the report's)."""
        fmt = fmt or format_number
        goal = (
            f"the target rate ({fmt(self.target)} {self.unit})"
            if self.target is not None
            else f"the best throughput ({fmt(self.best)} {self.unit})"
        )
        if self.point is None:
            text = (
                f"No {self.knob} value reaches {self.reach:.0%} of {goal} with every CPU under "
                f"{self.cpu_limit_pct:g}%"
            )
            if self.target is not None:
                text += f" (the best is {fmt(self.best)} {self.unit})"
            return text + "."
        p = self.point
        return (
            f"Fewest {self.knob} reaching {self.reach:.0%} of {goal} with every CPU under "
            f"{self.cpu_limit_pct:g}%: {format_setting(p.value)} ({fmt(p.metrics[self.rate_metric])} {self.unit}"
            + (f", busiest CPU {self.busiest_cpu_pct:.1f}%" if self.busiest_cpu_pct is not None else "")
            + ")"
        )


def choose(
    points: Sequence,
    knob: str,
    target: float | None = None,
    reach: float = REACH_FRACTION,
    cpu_limit_pct: float = CPU_LIMIT_PCT,
) -> Pick | None:
    """The :class:`Pick` of ``points`` (one curve over one numeric knob), or None when a pick does not apply.

    A pick does not apply when no point succeeded, the points have no throughput metric, or
    the knob's values are not numbers (booleans and choices have no "fewest").
    ``target`` (see :func:`target_rate`) is used when the throughput metric is in
    :data:`TARGET_UNIT`.

    Parameters
    ----------
    points : sequence
        Points of the curve; failed ones (non-empty ``error``) are left out.
    knob : str
        IBM name of the swept knob, for the sentence.
    target : float, optional
        The rate the project must hold, rows/s.
    """
    ok = [p for p in points if not getattr(p, "error", "")]
    if not ok or not all(isinstance(p.value, (int, float)) and not isinstance(p.value, bool) for p in ok):
        return None
    names = {m for p in ok for m in p.metrics}
    rates = rate_metrics(names)
    if not rates:
        return None
    rate, cpus = rates[0], cpu_metrics(names)
    unit = next((p.units.get(rate, "") for p in ok if p.units.get(rate)), "")
    if target is not None and unit != TARGET_UNIT:
        target = None
    best = max(p.metrics.get(rate, 0.0) for p in ok)
    point = pick_smallest(ok, rate, cpus, reach, cpu_limit_pct, target)
    busiest = None
    if point is not None:
        busiest = max((point.metrics[m] for m in cpus if m in point.metrics), default=None)
    return Pick(knob, point, rate, unit, best, target, busiest, reach, cpu_limit_pct)


__all__ = [
    "CPU_LIMIT_PCT",
    "CPU_SUFFIXES",
    "LATENCY_METRICS",
    "RATE_METRICS",
    "REACH_FRACTION",
    "TARGET_KNOBS",
    "Pick",
    "at_target_rate",
    "choose",
    "cpu_metrics",
    "pick_smallest",
    "rate_metrics",
    "rate_nodes",
    "target_rate",
]
