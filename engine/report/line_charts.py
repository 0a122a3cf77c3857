"""Line charts the workbench and the PDF report both draw, described once (no Qt, no drawing).

A :class:`LineChartSpec` holds what a line chart shows: its title, the x axis (a swept knob's values
or elapsed time, :class:`XAxis`), the value axis (:class:`engine.report.charts.Axis`: label and
unit), the curves, dashed reference lines, the pick (a vertical line and a ring on each curve)
and shaded bands (an outage). One function per chart builds it: :mod:`engine.report.sweep_charts`
(throughput, latency and CPU busy against a swept knob) and :mod:`engine.report.sim_charts`
(queue depths, latencies, row rates and page-set reads over simulated time). Two thin renderers
draw it: :class:`app.charts.SpecLineChart` (pyqtgraph, the window) and
:func:`app.report.line_charts.draw_line_chart` (QPainter, the PDF).

Colours are named by role, as the bar charts' (``target``, ``bottleneck``, ``good``, ``apply``,
``outage``); a curve without a role takes the colour of its position among the chart's curves
(``app.style.series_colour``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.metrics.catalog import format_setting
from engine.report.charts import Axis

#: The y axis turns logarithmic when its positive values span more than this ratio (highest / lowest).
LOG_Y_RATIO = 300
#: Headroom over the highest value of a linear y axis, as a share of it.
Y_HEADROOM = 0.04


def nice_ticks(top: float, n: int = 5) -> list[float]:
    """Round tick values from 0 to at least ``top`` (about ``n`` of them)."""
    if not math.isfinite(top) or top <= 0:
        return [0.0, 1.0]
    raw = top / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    count = math.ceil(top / step - 1e-9)
    return [i * step for i in range(count + 1)]


def tick_text(v: float) -> str:
    """A tick's text: ``2.5M``, ``500k``, ``1,200``, ``0.5``."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    if a >= 1e4:
        return f"{v / 1e3:g}k"
    if a >= 10:
        return f"{v:,.0f}"
    return f"{v:g}"


def is_number(value) -> bool:
    """``value`` is a number a knob axis can place (booleans are choices)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class XAxis:
    """The x axis: a swept knob's values (numbers, linear or log, or categories) or a continuous
    quantity such as elapsed time.

    Attributes
    ----------
    label : str
        What is measured (``NUM_APPLY_AGENTS``, ``elapsed minutes``).
    unit : str
        The values' unit, "" when they have none.
    values : tuple
        The distinct values in first-seen order (categories keep that order); for a continuous
        axis its lowest and highest value.
    numeric : bool
        The values are numbers; else each is a category, placed at its index.
    log : bool
        Numbers placed by their logarithm.
    continuous : bool
        Ticks at round values rather than at each value (elapsed time).
    """

    label: str
    unit: str
    values: tuple
    numeric: bool = True
    log: bool = False
    continuous: bool = False

    @classmethod
    def of(cls, values: Sequence, label: str, unit: str = "") -> XAxis:
        """A knob's axis: logarithmic for positive numbers spaced by ratios (1, 2, 4 ... 64)."""
        vals = tuple(dict.fromkeys(values))
        numeric = all(is_number(v) for v in vals)
        log = False
        if numeric and len(vals) >= 3 and min(vals) > 0:
            ordered = sorted(vals)
            ratios = sorted(b / a for a, b in itertools.pairwise(ordered))
            log = ratios[len(ratios) // 2] >= 1.5 and ordered[-1] / ordered[0] >= 20
        return cls(label, unit, vals, numeric, log)

    @classmethod
    def span_of(cls, low: float, high: float, label: str, unit: str = "") -> XAxis:
        """A continuous axis from ``low`` to ``high``."""
        return cls(label, unit, (float(low), float(high)), continuous=True)

    @property
    def text(self) -> str:
        """The axis title as written under it: ``NUM_APPLY_AGENTS (agents)``, ``(log scale)`` after a log axis."""
        text = f"{self.label} ({self.unit})" if self.unit else self.label
        return text + (" (log scale)" if self.log else "")

    def position(self, value) -> float:
        """Where ``value`` stands on the axis: itself, its logarithm, or its category's index."""
        if not self.numeric:
            return float(self.values.index(value))
        return math.log10(value) if self.log else float(value)

    def span(self) -> tuple[float, float]:
        """The positions the axis reaches, with a little room beyond the outer values."""
        if not self.numeric:
            return -0.5, len(self.values) - 0.5
        positions = [self.position(v) for v in self.values] or [0.0]
        lo, hi = min(positions), max(positions)
        if hi == lo:
            return lo - 1, hi + 1
        pad = 0.0 if self.continuous else (hi - lo) * 0.03
        return lo - pad, hi + pad

    def ticks(self) -> list[tuple[float, str]]:
        """(position, text) of the tick labels."""
        if not self.numeric:
            return [(float(i), format_setting(v)) for i, v in enumerate(self.values)]
        vals = sorted(self.values)
        if not vals:
            return []
        if self.log:
            if len(vals) <= 12:
                return [(math.log10(v), format_setting(v)) for v in vals]
            lo, hi = math.floor(math.log10(vals[0])), math.ceil(math.log10(vals[-1]))
            return [
                (float(e), tick_text(10.0**e)) for e in range(lo, hi + 1) if vals[0] <= 10.0**e <= vals[-1]
            ]
        if not self.continuous and len(vals) <= 17 and all(float(v).is_integer() for v in vals):
            return [(float(v), format_setting(v)) for v in vals]
        return self._round_ticks(vals[0], vals[-1])

    def _round_ticks(self, lo: float, hi: float) -> list[tuple[float, str]]:
        """About six ticks at round values from ``lo`` to ``hi`` (the first value too when far from them)."""
        step_ticks = nice_ticks(hi - lo, 6) if hi > lo else [0.0]
        step = step_ticks[1] if len(step_ticks) > 1 else 1.0
        out, t = [], math.ceil(lo / step) * step
        while t <= hi + 1e-9 * abs(hi):
            out.append((t, tick_text(t)))
            t += step
        if not self.continuous and (not out or out[0][0] - lo > 0.08 * (hi - lo)):
            out.insert(0, (float(lo), format_setting(lo)))  # the first value too (1 on a 1 .. 2048 axis)
        return out


@dataclass(frozen=True)
class LineSeries:
    """One curve: a name in the colour key and its points.

    Attributes
    ----------
    name : str
        In the colour key (IBM's metric label, ``TRANS_BATCH_SZ=3``, a queue's name).
    points : tuple of (x value, float or None)
        The x value (a knob value, a time in the axis' unit) and y (in the value axis' unit);
        None where there is no value: the curve has a gap there.
    role : str
        Its colour role; "" takes the colour of its position (module docstring).
    """

    name: str
    points: tuple
    role: str = ""

    @property
    def xs(self) -> tuple:
        return tuple(x for x, _ in self.points)

    @property
    def ys(self) -> tuple:
        return tuple(y for _, y in self.points)


@dataclass(frozen=True)
class RefLine:
    """A dashed reference line: horizontal at a value (a target rate, the CPU limit, a buffer pool's
    size) or vertical at an x value (the pick).

    Attributes
    ----------
    at : float or object
        The y value (axis unit), or the x value of a vertical line.
    label : str
        Written along the line.
    role : str
        Its colour role.
    vertical : bool
    """

    at: object
    label: str
    role: str
    vertical: bool = False


@dataclass(frozen=True)
class Band:
    """A shaded stretch of the x axis (an outage from its start to its end), labelled at its top.

    Attributes
    ----------
    start, end : float
        In the x axis' unit.
    label : str
    role : str
    """

    start: float
    end: float
    label: str
    role: str = "outage"


@dataclass(frozen=True)
class LineChartSpec:
    """A line chart: curves against an x axis, reference lines, ringed points, bands.

    Attributes
    ----------
    title : str
        What the chart shows (the value axis' unit included where the title names one metric).
    x : XAxis
    y : Axis
        The value axis: what it measures and its unit.
    series : tuple of LineSeries
    lines : tuple of RefLine
    markers : tuple of (x value, float)
        Ringed points (the pick on each curve).
    bands : tuple of Band
    note : str
        Said after the title (why a curve has gaps); "" for none.
    legend_title : str
        Written before the colour keys (``TRANS_BATCH_SZ:`` when the keys are its values).
    y_top_min : float
        The value axis reaches at least this far (100 for CPU busy %).
    """

    title: str
    x: XAxis
    y: Axis
    series: tuple
    lines: tuple = ()
    markers: tuple = ()
    bands: tuple = field(default_factory=tuple)
    note: str = ""
    legend_title: str = ""
    y_top_min: float = 0.0

    @property
    def legend(self) -> bool:
        """A colour key is shown: there are several curves."""
        return len(self.series) > 1

    @property
    def hlines(self) -> tuple:
        """The horizontal reference lines."""
        return tuple(line for line in self.lines if not line.vertical)

    @property
    def vline(self) -> RefLine | None:
        """The vertical line (the pick), or None."""
        return next((line for line in self.lines if line.vertical), None)

    def finite_ys(self) -> list[float]:
        """Every drawable y value of the curves."""
        return [float(y) for s in self.series for y in s.ys if y is not None and math.isfinite(y)]

    def y_log(self) -> bool:
        """The value axis is logarithmic: every value positive, spanning more than :data:`LOG_Y_RATIO`."""
        ys = self.finite_ys() + [float(line.at) for line in self.hlines]
        positive = [y for y in ys if y > 0]
        return bool(positive) and min(ys) > 0 and max(positive) / min(positive) > LOG_Y_RATIO

    def y_ticks(self) -> list[float]:
        """Tick values of the value axis, from 0 (or the lowest power of ten of a log axis) to its top."""
        ys = self.finite_ys() + [float(line.at) for line in self.hlines]
        log = self.y_log()
        top = max(ys + [0.0]) or 1.0
        top = self.y_top_min if self.y_top_min >= top else top * (1.0 if log else 1.0 + Y_HEADROOM)
        if log:
            bottom = min(y for y in ys if y > 0)
            lo, hi = math.floor(math.log10(bottom)), math.ceil(math.log10(top))
            return [10.0**e for e in range(lo, hi + 1)]
        return nice_ticks(top, 5)


def finite(value) -> float | None:
    """``value`` as a float when it is a finite number, else None (a gap)."""
    return float(value) if is_number(value) and math.isfinite(value) else None


__all__ = [
    "Band",
    "LineChartSpec",
    "LineSeries",
    "RefLine",
    "XAxis",
    "finite",
    "is_number",
    "nice_ticks",
    "tick_text",
]
