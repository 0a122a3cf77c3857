"""Journey 4 in the views: the catch-up headline of a simulation and simulations overlaid in Compare."""

import numpy as np
from store_runs import record_simulated

from app.panels.simulation import SimulationView, headline
from app.simadapter import SimulationOutcome
from engine import templates


def outage(catch_up_s, drive=False):
    events = [
        {
            "kind": "channel_stop",
            "start_s": 120.0,
            "end_s": 1320.0,
            "duration_s": 1200.0,
            "peak_backlog_rows": 30_018_045.0,
            "catch_up_s": catch_up_s,
        }
    ]
    metrics = {"offered_rows_per_s": 25000.0, "rows_in_flight_at_end": 12_029_525.0}
    return SimulationOutcome(7, metrics, {}, {}, 1.0, events, drive)


def test_headline_names_peak_backlog_and_catch_up_time():
    text = headline(outage(1076.0))
    assert "MQ channel stop at 2.0 min for 20.0 min" in text and "channel_stop" not in text
    assert "peak backlog 30,018,045 rows" in text and "caught up 17.9 min" in text
    late = headline(outage(None))
    assert "not caught up by the end of the run" in late and "12,029,525 rows still in flight" in late
    assert "OFFERED_ROWS_PER_S" not in late
    assert "Offered rows per second below it" in headline(outage(None, drive=True))
    assert headline(SimulationOutcome(1, {}, {}, {})) == ""  # no event, no headline


def test_simulation_view_shows_the_headline(qtbot):
    view = SimulationView()
    qtbot.addWidget(view)
    assert view.headline.isHidden()
    view.show_outcome(outage(1076.0))
    assert not view.headline.isHidden() and "caught up 17.9 min" in view.headline.text()


def test_compare_overlays_one_time_series_of_every_simulation(window):
    t = np.arange(0.0, 600.0, 10.0)
    depth_off, depth_on = np.minimum(t, 300.0) * 10, np.minimum(t, 300.0) * 5
    project = templates.unidirectional()
    ids = []
    with window.history.open() as store:
        for depth, ra in ((depth_off, False), (depth_on, True)):
            ids.append(
                record_simulated(
                    store,
                    project,
                    {"throughput_rows_per_s": 100.0 if ra else 80.0, "event1_catch_up_s": 60.0},
                    {"throughput_rows_per_s": "rows/s", "event1_catch_up_s": "s"},
                    timeseries={"xmitq.depth_msgs": (t, depth), "apply_latency_ms": (t, depth / 2)},
                    seed=1,
                    settings={"kind": "qrep", "mq": {"read_ahead": ra}},
                )
            )
    assert window.compare_runs(ids)
    view = window.view_widget("Compare")
    assert view.series_pick.currentData() == "xmitq.depth_msgs"  # the backlog first
    assert view.series_pick.currentText() == "Transmit queue depth (messages)"  # as a user reads it
    assert not view.series_box.isHidden() and view.latency_chart.isHidden()  # the overlay takes its place
    assert sorted(view.series_chart.curves) == [f"#{ids[0]}", f"#{ids[1]}"]
    x, y = view.series_chart.curves[f"#{ids[1]}"].getData()
    assert list(x) == list(t) and list(y) == list(depth_on)
    view.series_pick.setCurrentText("APPLY_LATENCY (ms)")
    _, y = view.series_chart.curves[f"#{ids[0]}"].getData()
    assert list(y) == list(depth_off / 2)
    assert [d.path for d in view.comparison.settings] == ["mq.read_ahead"]
    assert "Rows applied (simulated)" in view.delta_chart.categories


def test_outage_charts_read_in_minutes_with_the_buffer_pool_and_cast_out(qtbot):
    t = np.arange(1.0, 2401.0, 10.0)
    depth = np.where((t > 120) & (t < 1320), (t - 120) * 500.0, 0.0)
    series = {
        "xmitq.depth_msgs": (t, depth),
        "end2end_latency_ms": (t, np.full_like(t, 1.5e6)),
        "mq_pageset.msgs_per_s": (t, np.where(depth > 300_000, 900.0, 0.0)),
        "qapply.rows_per_s": (t, np.full_like(t, 20000.0)),
    }
    metrics = {"in_flight_drain_s": 0.64, "offered_rows_per_s": 25000.0}
    outcome = SimulationOutcome(7, metrics, {"in_flight_drain_s": "s"}, series, 1.0, [], False, 300_000.0)
    view = SimulationView()
    qtbot.addWidget(view)
    view.show_outcome(outcome)
    assert view.depth_chart.getAxis("bottom").labelText == "elapsed minutes"
    x, _ = view.depth_chart.curves["transmit queue (XMITQDEPTH)"].getData()
    assert x.max() == 2391.0 / 60
    assert [line.value() for line in view.depth_chart.lines] == [
        300_000.0
    ]  # the buffer pool, against the depth
    # what the channel read back from the page set: the messages that found the buffer pool full
    assert set(view.castout_chart.curves) == {"MQ channel, from the transmit queue's page set"}
    assert view.latency_chart.getAxis("left").labelText == "min"  # 1.5e6 ms read as 25 min
    assert "Planned switch-over" in view.headline.text() and "0.64 s" in view.headline.text()


def test_latency_bars_carry_their_values(qtbot):
    from app.charts import LatencyBreakdownChart

    chart = LatencyBreakdownChart()
    qtbot.addWidget(chart)
    chart.set_data(
        ["END2END"], [{"capture_latency_ms": 576.0, "qlatency_ms": 78.0, "apply_latency_ms": 2500.0}]
    )
    assert sorted(t.toPlainText() for t in chart.texts) == ["2.50 s", "576.0 ms", "78.0 ms"]
    chart.set_data([], [])
    assert chart.texts == []
