"""A simulation in the background worker: progress, charts over time, the run recorded."""

import itertools

import pytest

from app.tasks import simulation_available
from engine.report.sim_charts import split_series
from engine.sim.result import SUMMARY_UNITS

pytestmark = pytest.mark.skipif(bool(simulation_available()), reason=simulation_available() or "")


def test_simulation_with_progress_records_a_run(fake_engine, window, qtbot):
    qm = window.document.project.nodes_of("queue_manager")[0].id
    window.document.set_param(qm, "read_ahead", True)  # what changed since saving ends the run's label
    view = window.view_widget("Simulation")
    view.duration.setText("2m")
    view.events_editor.add_event()  # the events form: a channel stop, 30 s in, for 20 s
    for column, text in ((1, "30s"), (2, "20s")):
        view.events_editor.table.cellWidget(0, column).setText(text)
        view.events_editor.table.cellWidget(0, column).editingFinished.emit()
    progress = []
    window.tasks.progress.connect(lambda f, t: progress.append(f))
    with qtbot.waitSignal(window.tasks.finished, timeout=30000):
        view.run_button.click()
        assert window.tasks.busy()
    assert progress and progress[-1] == pytest.approx(1.0)
    assert all(b >= a for a, b in itertools.pairwise(progress))
    qtbot.waitUntil(lambda: view.outcome is not None, timeout=5000)
    assert "simulated" not in window.statusBar().currentMessage()  # no progress line outlives the run
    out = view.outcome
    assert out.run_id is not None and out.metrics["throughput_rows_per_s"] > 0
    # the window records the engine's flat metrics (engine.sim.result.flat_metrics), not a copy of them
    assert out.metrics["duration_s"] == pytest.approx(120.0) and out.units["rows_generated"] == "rows"
    assert set(SUMMARY_UNITS) & set(out.metrics) >= {"rows_generated", "txns_generated", "rows_applied"}
    assert "event1_catch_up_s" in out.metrics or "event1_peak_backlog_rows" in out.metrics
    # the outage fills the transmit queue: its depth rises above zero during the event
    t, depth = out.timeseries["xmitq.depth_msgs"]
    during = depth[(t > 35) & (t <= 50)]
    assert during.size and during.max() > 0
    assert view.depth_chart.curves and view.latency_chart.curves
    runs = window.history.list_runs()
    assert [r.kind for r in runs] == ["simulate"] and runs[0].seed == 1
    assert runs[0].label == "120 s seed 1 channel-stop@30s+20s, Read-ahead=True"
    data = window.history.load_runs([runs[0].id])[0]
    assert "xmitq.depth_msgs" in data.timeseries


def test_bad_event_is_reported_before_anything_runs(fake_engine, window):
    view = window.view_widget("Simulation")
    assert not window.simulate(60.0, 1, ["channel-stop@soon"])
    assert "KIND@START+LENGTH" in view.status.text() or "not allowed" in view.status.text()
    view.duration.setText("forever")
    view.run_button.click()
    assert "duration" in view.status.text() and not window.tasks.busy()


def test_series_split():
    d, lat, r, castout = split_series(
        {"xmitq.depth_msgs": 1, "qlatency_ms": 2, "qapply.rows_per_s": 3, "mq_pageset.msgs_per_s": 4}
    )
    assert castout == {"mq_pageset.msgs_per_s": 4}
    assert (
        list(d) == ["xmitq.depth_msgs"] and list(lat) == ["qlatency_ms"] and list(r) == ["qapply.rows_per_s"]
    )
