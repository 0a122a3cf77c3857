"""The charts of a sweep, described once for the window's Sweep view and the sweep's PDF.

:func:`sweep_charts` turns a :class:`engine.report.sweep.SweepSection` (a recorded sweep, or the
points streamed so far: :func:`engine.report.sweep.section_of_points`) into three
:class:`engine.report.line_charts.LineChartSpec` against the first knob:

* throughput (ROWS_APPLIED ...) with the target rate dashed,
* latency (APPLY_LATENCY, END2END_LATENCY and its other parts) at the rate the points were predicted at,
* CPU busy of every LPAR (of the busiest, with a second knob) with the 90% limit dashed,

one curve per metric, or with a second knob one curve per value of it (its headline metric);
the pick of each curve ringed, and for one knob marked by a dashed vertical line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.metrics.catalog import display_scale, format_setting, format_value, label
from engine.report.charts import Axis
from engine.report.line_charts import LineChartSpec, LineSeries, RefLine, XAxis, finite
from engine.studies.sweep_pick import CPU_LIMIT_PCT, LATENCY_METRICS, rate_metrics

#: Curves of one metric each a one-knob throughput chart shows at most.
MAX_METRIC_CURVES = 3
#: Latencies a one-knob latency chart shows at most (the charted one first, then END2END_LATENCY and its parts).
MAX_LATENCY_CURVES = 4
#: With more curves than this (values of one second knob), the colour key names the knob once.
COMPACT_LEGEND_CURVES = 8


def _unit_text(unit: str) -> str:
    return f" ({unit})" if unit else ""


class _Sweep:
    """What the charts of one sweep share: the x axis, the curves (one per value of the other knobs)
    and the picks."""

    def __init__(self, s):
        self.s, self.ok = s, s.ok_points
        self.names = {m for p in self.ok for m in p.metrics}
        axis0 = s.axes[0]
        self.x = XAxis.of([p.value for p in s.points], axis0.label, axis0.unit)
        self.groups = s.series
        self.two = self.groups != [()]
        self.picks = [p for _, p in s.picks if p is not None and p.point is not None]
        self.compact = self.two and len(self.groups) > COMPACT_LEGEND_CURVES and len(s.axes) == 2
        self.legend_title = f"{s.axes[1].label}{_unit_text(s.axes[1].unit)}:" if self.compact else ""

    def label_of(self, group: tuple) -> str:
        return format_setting(group[0]) if self.compact else self.s.series_label(group)

    def per_group(self, metric_of: Callable) -> list[LineSeries]:
        """One curve of ``metric_of(point)`` per value of the other knobs."""
        return [
            LineSeries(
                self.label_of(g), tuple((p.value, finite(metric_of(p))) for p in self.ok if p.series == g)
            )
            for g in self.groups
        ]

    def per_metric(self, metrics: Sequence[str], name_of: Callable = label) -> list[LineSeries]:
        """One curve per metric (a one-knob sweep), named by ``name_of(metric)``."""
        return [
            LineSeries(name_of(m), tuple((p.value, finite(p.metrics.get(m))) for p in self.ok))
            for m in metrics
        ]

    def marks(self, metric_of: Callable, scale: float = 1.0) -> tuple:
        """The pick of each curve, ringed at its value of ``metric_of``."""
        out = []
        for pick in self.picks:
            y = finite(metric_of(pick.point))
            if y is not None:
                out.append((pick.point.value, y * scale))
        return tuple(out)

    def pick_line(self) -> tuple:
        """The dashed vertical line at the pick of a one-knob sweep."""
        if self.two or not self.picks:
            return ()
        value = self.picks[0].point.value
        return (RefLine(value, f"pick: {format_setting(value)}", "good", vertical=True),)

    def chart(
        self, title: str, y: Axis, series: list, lines: tuple, marks: tuple, **options
    ) -> LineChartSpec:
        return LineChartSpec(
            title,
            self.x,
            y,
            tuple(series),
            lines + self.pick_line(),
            marks,
            legend_title=self.legend_title if self.two else "",
            **options,
        )


def _scaled(series: list[LineSeries], unit: str) -> tuple[list[LineSeries], float, str]:
    """``series`` in the unit that suits their magnitude (ms -> s -> min), the factor and the unit."""
    peak = max((abs(y) for s in series for y in s.ys if y is not None), default=0.0)
    factor, shown = display_scale(peak, unit)
    if factor == 1.0:
        return series, factor, shown
    return (
        [
            LineSeries(s.name, tuple((x, None if y is None else y * factor) for x, y in s.points), s.role)
            for s in series
        ],
        factor,
        shown,
    )


def rate_chart(sweep: _Sweep) -> LineChartSpec:
    """Throughput against the knob, the target rate dashed."""
    s = sweep.s
    metrics = rate_metrics(sweep.names)[: 1 if sweep.two else MAX_METRIC_CURVES]
    m = metrics[0]
    unit = s.units.get(m, "")
    series = sweep.per_group(lambda p: p.metrics.get(m)) if sweep.two else sweep.per_metric(metrics)
    lines = (
        (RefLine(s.target_rate, f"target {format_value(s.target_rate)} {unit}", "target"),)
        if s.target_rate
        else ()
    )
    one = sweep.two or len(series) == 1
    title = f"Throughput: {label(m)}{_unit_text(unit)}" if one else f"Throughput{_unit_text(unit)}"
    return sweep.chart(
        title, Axis("throughput", unit), series, lines, sweep.marks(lambda q: q.metrics.get(m))
    )


def latency_chart(sweep: _Sweep) -> LineChartSpec:
    """Latency against the knob at the rate the points were predicted at; a gap where there is none."""
    s, m = sweep.s, sweep.s.latency_metric
    present = [k for k in (m, *s.latency_metrics, *LATENCY_METRICS) if k in sweep.names]
    metrics = (m,) if sweep.two else tuple(dict.fromkeys(present))[:MAX_LATENCY_CURVES]
    raw = sweep.per_group(lambda p: p.metrics.get(m)) if sweep.two else sweep.per_metric(metrics)
    series, factor, unit = _scaled(raw, "ms")
    named = label(m) if len(series) == 1 or sweep.two else "Latency"
    missing = sum(1 for p in sweep.ok if not any(k in p.metrics for k in metrics))
    note = (
        f"(none at {missing} point(s): throughput falls short of the offered rate and the backlog grows)"
        if missing
        else ""
    )
    return sweep.chart(
        f"{named}{_unit_text(unit)} {s.rate_note}",
        Axis("latency", unit),
        series,
        (),
        sweep.marks(lambda q: q.metrics.get(m), factor),
        note=note,
    )


def cpu_chart(sweep: _Sweep) -> LineChartSpec:
    """CPU busy of every LPAR (of the busiest with a second knob), the limit dashed."""
    s = sweep.s
    if sweep.two:
        series, title = sweep.per_group(s.busiest_cpu), "CPU busy of the busiest LPAR (%)"
    else:
        series, title = sweep.per_metric(s.cpu_metrics, lambda m: s.labels.get(m, m)), "CPU busy (%)"
    limit = (RefLine(CPU_LIMIT_PCT, f"{CPU_LIMIT_PCT:g}% limit", "bottleneck"),)
    return sweep.chart(
        title, Axis("CPU busy", "%"), series, limit, sweep.marks(s.busiest_cpu), y_top_min=100.0
    )


def sweep_charts(section) -> tuple[LineChartSpec, ...]:
    """The throughput, latency and CPU busy charts of ``section`` (those it has metrics for), in that order.

    Parameters
    ----------
    section : engine.report.sweep.SweepSection
        A recorded sweep, or the points streamed so far.
    """
    if not section.ok_points:
        return ()
    sweep = _Sweep(section)
    charts = []
    if section.rate_metric:
        charts.append(rate_chart(sweep))
    if section.latency_metric:
        charts.append(latency_chart(sweep))
    if section.cpu_metrics:
        charts.append(cpu_chart(sweep))
    return tuple(charts)


def chart_kind(chart: LineChartSpec) -> str:
    """``rate``, ``latency`` or ``cpu``: which of :func:`sweep_charts` ``chart`` is."""
    return {"throughput": "rate", "latency": "latency", "CPU busy": "cpu"}.get(chart.y.label, "")


__all__ = ["chart_kind", "cpu_chart", "latency_chart", "rate_chart", "sweep_charts"]
