"""Charts the workbench and the PDF report both draw, described once (no Qt, no drawing).

A chart is built by one function per chart from the engine's results and drawn by two thin
renderers: :mod:`app.charts` (pyqtgraph, the window) and :mod:`app.report.charts` (QPainter,
the PDF). Labels, units and value texts come from the metric catalogue
(:mod:`engine.metrics.catalog`), stage names from :func:`engine.metrics.stages.stage_label`.

* :func:`latency_breakdown` - CAPTURE_LATENCY, QLATENCY and APPLY_LATENCY stacked, one bar per run
  or flow, END2END_LATENCY after each bar.
* :func:`stage_utilisation` - every stage's utilisation, one bar per run and stage, the bottleneck
  in red.

Colours are named by role (``capture``, ``queue``, ``apply``, ``bottleneck``, ``run0``,
``run1``...); each renderer maps a role to its colour (``app.style.role_colour``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.metrics.catalog import format_metric, info
from engine.metrics.stages import stage_label
from engine.report.model import END2END, LATENCY_PARTS

#: Colour role of each latency part (:data:`engine.report.model.LATENCY_PARTS`), in pipeline order.
LATENCY_ROLES = ("capture", "queue", "apply")
#: The sum of the parts, written after each latency bar.
END2END_METRIC = END2END[0]
#: Utilisation (%) at which a stage is saturated: the dashed line of the utilisation chart.
SATURATED_PCT = 100.0
#: Widest utilisation axis (%); a stage beyond it (an overload) is drawn to the edge.
UTILISATION_AXIS_MAX_PCT = 300.0


@dataclass(frozen=True)
class Axis:
    """The value axis: what it measures and in which unit.

    Attributes
    ----------
    label : str
        What is measured (``latency``, ``utilisation``).
    unit : str
        The values' unit (``ms``, ``%``), the catalogue's.
    """

    label: str
    unit: str

    @property
    def text(self) -> str:
        """The axis title as written under it: ``latency (ms)``."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


@dataclass(frozen=True)
class BarSeries:
    """One series of bars: a value per category.

    Attributes
    ----------
    name : str
        The series in the colour key (IBM's metric label, a run's label).
    role : str
        Its colour role (module docstring).
    values : tuple of float or None
        One per category in the axis unit; None where the category has no bar.
    texts : tuple of str
        Each value as written (``580.1 ms``), ``""`` where there is no bar.
    """

    name: str
    role: str
    values: tuple[float | None, ...]
    texts: tuple[str, ...]


@dataclass(frozen=True)
class BarChartSpec:
    """Horizontal bars, categories top to bottom; the series stacked or side by side.

    Attributes
    ----------
    title : str
        What the chart shows.
    stacked : bool
        The series stacked end to end (parts of a whole) rather than side by side.
    categories : tuple of str
        Row labels, top to bottom, in the user's words.
    series : tuple of BarSeries
        The bars.
    axis : Axis
        The value axis.
    keys : tuple of (str, str)
        The colour key: (name, colour role) in order.
    highlighted : frozenset of (int, int)
        (category, series) bars that are the bottleneck: filled red when there is one series,
        outlined red when there are several.
    bold : frozenset of int
        Categories whose label is bold (a bottleneck stage).
    lines : tuple of (float, str, str)
        Dashed reference lines across the bars: (value, label, colour role).
    totals : tuple of str
        Text after each category's bar (``END2END_LATENCY 769.9 ms``); empty for none.
    axis_min_top : float
        The value axis reaches at least this far (axis unit).
    axis_max_top : float
        Nor further than this; longer bars are cut at the edge (axis unit).
    """

    title: str
    stacked: bool
    categories: tuple[str, ...]
    series: tuple[BarSeries, ...]
    axis: Axis
    keys: tuple[tuple[str, str], ...] = ()
    highlighted: frozenset = field(default_factory=frozenset)
    bold: frozenset = field(default_factory=frozenset)
    lines: tuple[tuple[float, str, str], ...] = ()
    totals: tuple[str, ...] = ()
    axis_min_top: float = 0.0
    axis_max_top: float = math.inf

    def value(self, category: int, series: int) -> float:
        """The finite value of one bar, 0 where there is none."""
        v = self.series[series].values[category]
        return float(v) if v is not None and math.isfinite(v) else 0.0

    def extent(self, category: int) -> float:
        """Where a category's bars end: the sum of its parts, or its longest bar (axis unit)."""
        values = [self.value(category, j) for j in range(len(self.series))]
        return sum(values) if self.stacked else max(values, default=0.0)

    def top(self) -> float:
        """The largest value the axis must show, within ``axis_min_top`` and ``axis_max_top``."""
        ends = [self.extent(i) for i in range(len(self.categories))]
        return min(max([self.axis_min_top, *ends]), self.axis_max_top)


def _finite(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def latency_breakdown(labels: Sequence[str], metrics: Sequence[Mapping]) -> BarChartSpec:
    """CAPTURE_LATENCY, QLATENCY and APPLY_LATENCY of each run or flow, stacked.

    Parameters
    ----------
    labels : sequence of str
        One bar per label, top to bottom.
    metrics : sequence of mapping
        Each bar's metrics (``capture_latency_ms`` ...); a missing or non-finite part has no
        segment. END2END_LATENCY (or the sum of the parts) is written after the bar.
    """
    series = []
    for (metric, _), role in zip(LATENCY_PARTS, LATENCY_ROLES):
        values = tuple(_finite(m.get(metric)) for m in metrics)
        texts = tuple("" if v is None else format_metric(metric, v) for v in values)
        series.append(BarSeries(info(metric).label, role, values, texts))
    totals = []
    for m in metrics:
        parts = [v for v in (_finite(m.get(k)) for k, _ in LATENCY_PARTS) if v is not None]
        total = _finite(m.get(END2END_METRIC))
        total = sum(parts) if total is None else total
        totals.append(f"{info(END2END_METRIC).label} {format_metric(END2END_METRIC, total)}" if parts else "")
    present = [s for s in series if any(v is not None for v in s.values)]
    return BarChartSpec(
        title="Latency breakdown",
        stacked=True,
        categories=tuple(labels),
        series=tuple(series),
        axis=Axis("latency", info(END2END_METRIC).unit),
        keys=tuple((s.name, s.role) for s in (present or series)),
        totals=tuple(totals),
    )


def stage_utilisation(
    stages: Sequence[str], runs: Sequence[tuple[str, Mapping[str, float], str | None]]
) -> BarChartSpec:
    """Every stage's utilisation (%) in each run; the bottleneck red, the saturation line dashed.

    Parameters
    ----------
    stages : sequence of str
        Stage names (``qapply_agents``) top to bottom, shown by their labels.
    runs : sequence of (str, mapping, str or None)
        Per run: its label (``""`` for a single prediction), utilisation 0..1 per stage (a
        stage it lacks has no bar) and its bottleneck stage or None.
    """
    series = []
    for j, (label, utils, _) in enumerate(runs):
        values = tuple(None if (u := _finite(utils.get(s))) is None else u * 100.0 for s in stages)
        texts = tuple(
            "" if v is None else format_metric(f"{s}_utilisation_pct", v) for s, v in zip(stages, values)
        )
        series.append(BarSeries(label or "utilisation", f"run{j}", values, texts))
    highlighted = frozenset(
        (stages.index(bottleneck), j) for j, (_, _, bottleneck) in enumerate(runs) if bottleneck in stages
    )
    keys = tuple((s.name, s.role) for s in series)
    if len(series) == 1 and highlighted:
        keys += (("bottleneck", "bottleneck"),)
    return BarChartSpec(
        title="Stage utilisation",
        stacked=False,
        categories=tuple(stage_label(s) for s in stages),
        series=tuple(series),
        axis=Axis("utilisation", "%"),
        keys=keys,
        highlighted=highlighted,
        bold=frozenset(i for i, _ in highlighted),
        lines=((SATURATED_PCT, "", "bottleneck"),),
        axis_min_top=SATURATED_PCT,
        axis_max_top=UTILISATION_AXIS_MAX_PCT,
    )
