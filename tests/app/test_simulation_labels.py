"""The simulation's charts say what they plot, by IBM's monitor names, and agree with the inspector."""

import numpy as np

from app.panels.simulation import SimulationView, buffer_pool_note, headline
from app.simadapter import SimulationOutcome


def outcome(peak_msgs: float, read_back: float) -> SimulationOutcome:
    t = np.arange(0.0, 600.0, 10.0)
    series = {
        "xmitq.depth_msgs": (t, np.minimum(t * 1000, peak_msgs)),
        "recvq.depth_msgs": (t, np.zeros_like(t)),
        "qcapture.rows_per_s": (t, np.full_like(t, 2000.0)),
        "qapply.rows_per_s": (t, np.full_like(t, 2000.0)),
        "mq_pageset.msgs_per_s": (t, np.where(t > 300, 50.0, 0.0)),
    }
    metrics = {"peak_xmitq_depth_msgs": peak_msgs, "pageset_msgs": read_back}
    return SimulationOutcome(3, metrics, {}, series, 1.0, [], False, 102_000.0)


def test_legends_name_the_monitor_columns_and_the_page_set_chart_says_it_counts_reads(qtbot):
    view = SimulationView()
    qtbot.addWidget(view)
    view.show_outcome(outcome(240_000.0, 12_000.0))
    assert set(view.depth_chart.curves) == {"transmit queue (XMITQDEPTH)", "receive queue (QDEPTH)"}
    assert {"Q Capture (ROWS_PROCESSED)", "Q Apply (ROWS_APPLIED)"} == set(view.rate_chart.curves)
    assert view.castout_chart.plotItem.titleLabel.text == "Messages read back from the page set"


def test_a_queue_beyond_its_buffer_pool_says_buffpool_and_read_ahead_act_in_this_run():
    over = outcome(240_000.0, 12_000.0)
    note = buffer_pool_note(over)
    assert (
        "peak 240,000 messages, the pool holds 102,000" in note and "12,000 messages were read back" in note
    )
    assert "BUFFPOOL and READ_AHEAD act in this run" in note and note in headline(over)
    assert buffer_pool_note(outcome(50_000.0, 0.0)) == ""  # within the pool: the steady-state notes hold


def test_the_forms_fold_away_when_a_result_arrives_so_the_charts_are_readable_at_1280x800(qtbot):
    from pathlib import Path

    from app.document import Document
    from engine import projectfile

    root = Path(__file__).resolve().parents[2]
    view = SimulationView(Document(projectfile.load(root / "sample_runs" / "redpaper-baseline.json")))
    qtbot.addWidget(view)
    view.resize(1000, 620)  # the tab's room in a 1280x800 window
    view.show()
    assert view.forms_button.isChecked() and view.forms.isVisible()
    short = view.depth_chart.height()
    view.show_outcome(outcome(240_000.0, 12_000.0))
    qtbot.wait(10)
    assert not view.forms.isVisible() and not view.forms_button.isChecked()
    assert "the project's workload, 0 events" in view.forms_button.text()
    assert view.depth_chart.height() > short and view.depth_chart.height() >= 200
    assert [line.value() for line in view.depth_chart.lines] == [102_000.0]  # the buffer pool, dashed
    view.forms_button.click()  # back to the forms to change the scenario
    assert view.forms.isVisible() and view.forms_button.isChecked()
