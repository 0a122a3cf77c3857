"""The line charts the window and the PDF both draw are described once: the sweep's curves, axes and pick."""

from __future__ import annotations

import math
from dataclasses import replace
from types import SimpleNamespace

import pytest

from engine.report.charts import Axis
from engine.report.line_charts import LineChartSpec, LineSeries, XAxis
from engine.report.sweep import section_of_points
from engine.report.sweep_charts import chart_kind, sweep_charts


def point(index, agents, rate, cpu, apply_ms=None, series=(), error=""):
    metrics = {} if error else {"apply_rows_per_s": rate, "apply_cpu_pct": cpu, "capture_cpu_pct": cpu / 2}
    if apply_ms is not None:
        metrics["apply_latency_ms"] = apply_ms
    units = {"apply_rows_per_s": "rows/s", "apply_latency_ms": "ms"}
    return SimpleNamespace(
        index=index,
        value=agents,
        series=series,
        run_id=index + 1,
        metrics=metrics,
        units=units,
        bottleneck=None,
        error=error,
    )


def one_knob(rates=(800, 1600, 2400, 3000, 3000), latencies=(None, 900.0, 400.0, 200.0, 150.0)):
    points = [point(i, i + 1, r, 30 + 4 * (i + 1), lat) for i, (r, lat) in enumerate(zip(rates, latencies))]
    return section_of_points(points, ["qapply.num_apply_agents"])


def test_one_knob_charts_throughput_latency_and_cpu_against_the_knob_with_the_pick():
    rate, latency, cpu = sweep_charts(one_knob())
    assert [chart_kind(c) for c in (rate, latency, cpu)] == ["rate", "latency", "cpu"]
    # the x axis: the knob's IBM name and unit, a tick at each value
    assert rate.x.text == "NUM_APPLY_AGENTS (agents)" and [t for _, t in rate.x.ticks()] == list("12345")
    assert rate.title == "Throughput: ROWS_APPLIED (rows/s)" and rate.y.unit == "rows/s"
    assert rate.series[0].points == ((1, 800.0), (2, 1600.0), (3, 2400.0), (4, 3000.0), (5, 3000.0))
    # the pick: the fewest agents reaching the best 3,000 rows/s, ringed on each chart and dashed across
    assert rate.vline.at == 4 and rate.vline.label == "pick: 4" and rate.vline.role == "good"
    assert rate.markers == ((4, 3000.0),) and cpu.markers == ((4, 46.0),)
    assert latency.markers == ((4, 200.0),) and latency.vline.at == 4
    # no latency at the first point: a gap, and the title says why
    assert latency.series[0].points[0] == (1, None) and "none at 1 point(s)" in latency.note
    assert latency.y.unit == "ms" and latency.title.startswith("APPLY_LATENCY (ms) at each point's maximum")
    # CPU: one curve per LPAR, the 90% limit dashed, the axis to 100% at least
    assert [line.at for line in cpu.hlines] == [90.0] and cpu.hlines[0].role == "bottleneck"
    assert len(cpu.series) == 2 and cpu.y_top_min == 100.0 and cpu.y_ticks()[-1] >= 100.0


def test_a_target_rate_is_dashed_on_the_throughput_chart_and_latencies_read_in_seconds_when_large():
    section = replace(one_knob(latencies=(None, 9000.0, 4000.0, 2000.0, 1500.0)), target_rate=2400.0)
    rate, latency, _ = sweep_charts(section)
    assert [(line.at, line.label, line.role) for line in rate.hlines] == [
        (2400.0, "target 2,400 rows/s", "target")
    ]
    assert latency.y.unit == "s" and latency.series[0].points[1] == (2, 9.0)


def test_a_second_knob_gives_one_curve_per_value_and_a_pick_ringed_on_each():
    points = [
        point(2 * i + j, agents, min(800 * agents, 3000 * batch), 10 * agents, series=(batch,))
        for i, agents in enumerate((1, 2, 4, 8))
        for j, batch in enumerate((1, 2))
    ]
    rate, cpu = sweep_charts(
        section_of_points(points, ["qapply.num_apply_agents", "qcapture.trans_batch_sz"])
    )
    assert [s.name for s in rate.series] == ["TRANS_BATCH_SZ=1", "TRANS_BATCH_SZ=2"]
    assert rate.series[1].ys == (800.0, 1600.0, 3200.0, 6000.0)
    assert rate.vline is None and sorted(rate.markers) == [(4, 3000.0), (8, 6000.0)]  # 4 agents hold 3,000
    assert rate.x.log is False and rate.legend and cpu.title == "CPU busy of the busiest LPAR (%)"


def test_failed_points_and_categories_stay_off_the_curves():
    points = [point(0, "false", 100, 10), point(1, "true", 200, 20), point(2, "auto", 0, 0, error="boom")]
    (rate, cpu) = sweep_charts(section_of_points(points, ["qapply.num_apply_agents"]))
    assert not rate.x.numeric and rate.x.ticks() == [(0.0, "false"), (1.0, "true"), (2.0, "auto")]
    assert rate.series[0].points == (("false", 100.0), ("true", 200.0)) and rate.vline is None
    assert sweep_charts(section_of_points([points[2]], ["qapply.num_apply_agents"])) == ()


def test_a_knob_spaced_by_ratios_is_placed_on_a_log_axis():
    x = XAxis.of([1, 2, 4, 8, 16, 32, 64], "BATCHSZ", "messages")
    assert x.log and x.text == "BATCHSZ (messages) (log scale)" and x.position(100) == pytest.approx(2.0)
    assert XAxis.span_of(0.0, 50.0, "elapsed minutes").ticks()[-1] == (50.0, "50")


def test_the_value_axis_turns_logarithmic_over_a_wide_positive_span():
    wide = LineChartSpec(
        "t", XAxis.of([1, 2], "x"), Axis("y", ""), (LineSeries("a", ((1, 1.0), (2, 1000.0))),)
    )
    assert wide.y_log() and wide.y_ticks() == [1.0, 10.0, 100.0, 1000.0]
    narrow = LineChartSpec("t", wide.x, wide.y, (LineSeries("a", ((1, 0.0), (2, math.nan))),))
    assert not narrow.y_log() and narrow.finite_ys() == [0.0]
