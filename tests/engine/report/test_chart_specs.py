"""The charts the window and the PDF both draw are described once: labels, units and texts from the catalogue."""

from __future__ import annotations

import math

from engine.report.charts import latency_breakdown, stage_utilisation


def test_latency_breakdown_names_ibm_columns_and_writes_each_value_with_its_unit():
    chart = latency_breakdown(
        ["#1", "#2"],
        [
            {
                "capture_latency_ms": 580.1,
                "qlatency_ms": 43.3,
                "apply_latency_ms": 146.5,
                "end2end_latency_ms": 769.9,
            },
            {"capture_latency_ms": 576.0, "qlatency_ms": math.nan, "apply_latency_ms": 2500.0},
        ],
    )
    assert [s.name for s in chart.series] == ["CAPTURE_LATENCY", "QLATENCY", "APPLY_LATENCY"]
    assert chart.stacked and chart.categories == ("#1", "#2") and chart.axis.text == "latency (ms)"
    assert chart.series[0].texts == ("580.1 ms", "576.0 ms")
    assert chart.series[1].values[1] is None and chart.series[1].texts[1] == ""  # NaN: no segment
    assert chart.series[2].texts[1] == "2.50 s"  # the catalogue's display unit
    # END2END_LATENCY as the engine gives it, else the sum of the parts it has
    assert chart.totals == ("END2END_LATENCY 769.9 ms", "END2END_LATENCY 3.08 s")
    assert chart.extent(1) == 3076.0 and chart.top() == 3076.0


def test_latency_breakdown_keys_only_the_parts_some_run_has():
    chart = latency_breakdown(["a"], [{"capture_latency_ms": 10.0, "apply_latency_ms": 5.0}])
    assert [name for name, _ in chart.keys] == ["CAPTURE_LATENCY", "APPLY_LATENCY"]
    assert latency_breakdown(["a"], [{}]).totals == ("",)


def test_one_run_s_bottleneck_is_keyed_and_bold_several_runs_are_keyed_by_run():
    one = stage_utilisation(
        ["qcapture", "qapply_agents"], [("", {"qcapture": 0.263, "qapply_agents": 0.95}, "qapply_agents")]
    )
    assert one.categories == ("Q Capture", "Q Apply agents")  # the user's words, not stage ids
    assert one.series[0].texts == ("26.3 %", "95.0 %")
    assert one.highlighted == {(1, 0)} and one.bold == {1}
    assert [name for name, _ in one.keys] == ["utilisation", "bottleneck"]
    assert one.lines == ((100.0, "", "bottleneck"),) and one.top() == 100.0  # the axis reaches saturation
    two = stage_utilisation(
        ["qcapture", "mq_channel"],
        [
            ("run 1", {"qcapture": 0.5}, "qcapture"),
            ("run 2", {"qcapture": 0.2, "mq_channel": 7.0}, "mq_channel"),
        ],
    )
    assert [name for name, _ in two.keys] == ["run 1", "run 2"]
    assert two.series[0].values == (50.0, None)  # a stage run 1 lacks has no bar
    assert two.highlighted == {(0, 0), (1, 1)}
    assert two.top() == 300.0  # an overload is cut at the axis' widest
