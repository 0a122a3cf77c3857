"""A simulation's charts are described once for the Simulation tab and the PDF: series, units, bands."""

from __future__ import annotations

import numpy as np

from engine.report.sim_charts import event_spans, simulation_charts


def series(end_s: float, n: int = 5) -> np.ndarray:
    return np.linspace(0.0, end_s, n)


def test_queue_depths_latencies_and_rates_over_minutes_with_the_outage_shaded_and_the_pool_dashed():
    t = series(1800.0)
    charts = simulation_charts(
        {
            "t_s": (t, t),
            "xmitq.depth_msgs": (t, [0.0, 5e5, 1e6, 2e5, 0.0]),
            "recvq.depth_msgs": (t, [0.0] * 5),
            "end2end_latency_ms": (t, [100.0, 6e5, 1.5e6, 2e5, np.nan]),
            "qapply.rows_per_s": (t, [3000.0] * 5),
            "qapply.memory_bytes": (t, [1.0] * 5),
        },
        event_spans([{"kind": "channel_stop", "start_s": 120.0, "end_s": 1320.0, "peak_backlog_rows": 9}]),
        buffer_pool_msgs=102000.0,
    )
    assert list(charts) == ["depth", "latency", "rate", "castout"]
    depth, latency, rate, castout = charts.values()
    assert depth.x.text == "elapsed minutes" and depth.x.ticks()[-1] == (30.0, "30")
    assert [s.name for s in depth.series] == ["transmit queue (XMITQDEPTH)", "receive queue (QDEPTH)"]
    assert depth.series[0].points[2] == (15.0, 1e6) and depth.y.unit == "messages"
    assert [(line.at, line.role) for line in depth.hlines] == [(102000.0, "bottleneck")]
    assert "102,000 messages" in depth.hlines[0].label
    # 1.5e6 ms read as 25 min; a value the simulator did not give is a gap
    assert latency.y.unit == "min" and latency.series[0].points[2] == (15.0, 25.0)
    assert latency.series[0].points[4] == (30.0, None) and latency.series[0].name == "END2END_LATENCY"
    assert [s.name for s in rate.series] == ["Q Apply (ROWS_APPLIED)"] and rate.y.unit == "rows/s"
    assert not castout.series  # memory and utilisation are charted nowhere here
    assert [(b.start, b.end, b.label) for b in depth.bands] == [(2.0, 22.0, "MQ channel stop")]
    assert latency.bands == depth.bands and not rate.hlines


def test_a_short_run_reads_in_seconds_and_events_come_from_the_project_s_events_too():
    from engine.outage_events import parse_event

    t = series(90.0)
    charts = simulation_charts(
        {"qcapture.rows_per_s": (t, [1.0] * 5)}, event_spans([parse_event("apply-stop@30s+20s")])
    )
    assert charts["rate"].x.text == "elapsed seconds" and charts["rate"].bands[0].end == 50.0
    assert charts["depth"].series == () and charts["depth"].hlines == ()


def test_series_keep_the_simulator_s_order_however_they_are_read_back():
    t = series(60.0)
    by_name = {
        n: (t, [1.0] * 5)
        for n in sorted(["recvq.depth_msgs", "xmitq.depth_msgs", "apply_latency_ms", "end2end_latency_ms"])
    }
    charts = simulation_charts(by_name)
    assert [s.name for s in charts["depth"].series] == [
        "transmit queue (XMITQDEPTH)",
        "receive queue (QDEPTH)",
    ]
    assert [s.name for s in charts["latency"].series] == ["END2END_LATENCY", "APPLY_LATENCY"]
