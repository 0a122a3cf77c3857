"""The one bottleneck every view names: the busiest resource stage, or the headroom of a held rate.

A prediction's stages include the offered workload (``source_workload``) when a rate is set;
at 100% it means "the rate offered is carried", not a saturated resource. The workbench's
headline, stage chart and canvas, ``qrtune predict`` and the PDF report all name the limit
through :func:`limit_of`: the busiest resource stage (ties go to the engine's own pick) when
the pipeline is saturated, and otherwise that the offered rate is held, with the headroom left
at the busiest stage.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.metrics.stages import stage_label

#: Stages that stand for the offered workload, not a resource: at 100% they mean "the rate offered is carried".
WORKLOAD_STAGES = ("source_workload",)
#: How the limit of a run that carries its offered rate reads in a table cell.
RATE_HELD = "none (rate held)"


@dataclass(frozen=True)
class Limit:
    """The busiest stage of a prediction, and whether the offered rate is held.

    Attributes
    ----------
    stage : str or None
        The busiest resource stage (``qapply_agents``), None when the prediction has no stages.
    utilisation : float
        Its utilisation, 0..1.
    holds_offered : bool
        An offered rate is set and the pipeline carries it (the workload stage is full, every
        resource below 100%): the healthy case, described as headroom instead of a bottleneck.
    headroom_pct : float
        How much more load the busiest stage takes before it is full: ``(1 / utilisation - 1) * 100``.
    """

    stage: str | None
    utilisation: float
    holds_offered: bool
    headroom_pct: float

    @property
    def bottleneck(self) -> str | None:
        """The stage to mark as the bottleneck: the busiest one, none when the offered rate is held."""
        return None if self.holds_offered else self.stage

    def text(self, held_rate: str = "the offered rate") -> str:
        """``"Q Apply agents (95% busy)"``, or ``"none: holds 3,000 rows/s; headroom 393% at Q Apply LPAR CPU
        (20% busy)"``: stages by their labels (:func:`engine.metrics.stages.stage_label`).

        Parameters
        ----------
        held_rate : str
            The rate the pipeline carries, as printed (``"3,000 rows/s"``).
        """
        if self.stage is None:
            return "none"
        busy = f"{stage_label(self.stage)} ({self.utilisation * 100:.0f}% busy)"
        if self.holds_offered:
            return f"none: holds {held_rate}; headroom {self.headroom_pct:.0f}% at {busy}"
        return busy


def resource_bottleneck(limiting_stage: str | None) -> str | None:
    """The bottleneck an engine reports for its limiting stage: None when that is the offered
    workload (the rate offered is carried; no resource limits it)."""
    return None if limiting_stage in WORKLOAD_STAGES else limiting_stage


def limit_of_stages(stages: Iterable[tuple[str, float]], bottleneck: str | None) -> Limit:
    """The limit of stages given as ``(name, utilisation 0..1)`` and the engine's ``bottleneck`` name."""
    stages = list(stages)
    resources = [(name, float(u)) for name, u in stages if name not in WORKLOAD_STAGES]
    if not resources:
        return Limit(bottleneck, 1.0 if bottleneck else 0.0, False, 0.0)
    top = max(u for _, u in resources)
    if bottleneck is not None and bottleneck not in {n for n, _ in stages}:
        # the engine names the cause of its busiest stage (target_db2 for agents waiting on Db2)
        return Limit(bottleneck, top, False, (1.0 / top - 1.0) * 100.0 if top > 0 else float("inf"))
    name, util = next(
        ((n, u) for n, u in resources if n == bottleneck and u >= top - 1e-9),
        max(resources, key=lambda s: s[1]),
    )
    holds = any(n in WORKLOAD_STAGES for n, _ in stages) and util < 0.999
    headroom = (1.0 / util - 1.0) * 100.0 if util > 0 else float("inf")
    return Limit(name, util, holds, headroom)


def limit_of(prediction) -> Limit:
    """The limit of ``prediction`` (an :class:`engine.perf.Prediction`: its ``stages`` and ``bottleneck``)."""
    return limit_of_stages(((s.name, s.utilisation) for s in prediction.stages), prediction.bottleneck)


def held_rate_text(metrics: dict) -> str:
    """The rate a prediction carries, as the limit's text names it: ``"3,000 rows/s"`` (``apply_rows_per_s``)."""
    rate = metrics.get("apply_rows_per_s")
    return f"{rate:,.0f} rows/s" if isinstance(rate, (int, float)) else "the offered rate"


def limit_text(prediction) -> str:
    """:meth:`Limit.text` of ``prediction`` with its held rate (:func:`held_rate_text`)."""
    return limit_of(prediction).text(held_rate_text(prediction.metrics))


def stored_bottleneck(prediction) -> str | None:
    """The bottleneck a results store records for ``prediction``: the engine's, or the offered
    workload's stage when the rate is held (:func:`bottleneck_label` reads it as :data:`RATE_HELD`)."""
    if prediction.bottleneck is None and limit_of(prediction).holds_offered:
        return WORKLOAD_STAGES[0]
    return prediction.bottleneck


def bottleneck_label(name: str | None) -> str:
    """A stored run's bottleneck as the views name it: the stage's label (``Q Apply agents``),
    :data:`RATE_HELD` when the engine's limiting stage is the offered workload, "" when it names none."""
    if not name:
        return ""
    return RATE_HELD if name in WORKLOAD_STAGES else stage_label(name)
