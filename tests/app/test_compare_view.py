"""Two recorded runs side by side: settings that differ, metric deltas, charts overlaid."""

import pytest
from PySide6.QtCore import Qt

from engine.metrics import label as metric_label


def test_compare_two_recorded_predictions(fake_engine, window, qtbot):
    doc = window.document
    qcap = doc.project.nodes_of("qcapture")[0].id
    first = window.predict_and_record()
    doc.set_param(qcap, "trans_batch_sz", 3)
    second = window.predict_and_record()
    assert (first, second) != (None, None) and second > first
    window.runs.refresh()
    assert window.runs.table.rowCount() == 2
    window.runs.select_ids([first, second])
    assert window.runs.selected_ids() == [first, second]
    assert window.runs.compare_button.isEnabled()
    with qtbot.waitSignal(window.runs.compare_requested) as sig:
        window.runs.compare_button.click()
    assert sig.args == [[first, second]]
    view = window.view_widget("Compare")
    cmp = view.comparison
    assert cmp is not None and window.tabs.tabText(window.tabs.currentIndex()) == "Compare"
    assert [d.path for d in cmp.settings] == ["qcapture.trans_batch_sz"]
    assert cmp.settings[0].values == (1, 3)
    # fake engine: channel 3000 -> 9000 rows/s, apply capped at 12800: +200%
    rate = cmp.metric("apply_rows_per_s")
    assert rate.values == (3000.0, 9000.0) and rate.pct_delta[1] == pytest.approx(200.0)
    headers = [
        view.metrics_table.horizontalHeaderItem(c).text() for c in range(view.metrics_table.columnCount())
    ]
    assert headers == ["Metric", "Unit", f"#{first}", f"#{second}", "\u0394 %"]
    row = next(
        r
        for r in range(view.metrics_table.rowCount())
        if view.metrics_table.item(r, 0).text() == "ROWS_APPLIED"
    )
    assert view.metrics_table.item(row, 4).text() == "+200.0%"

    def colour(metric):
        r = next(
            r
            for r in range(view.metrics_table.rowCount())
            if view.metrics_table.item(r, 0).text() == metric_label(metric)
        )
        return view.metrics_table.item(r, 4).foreground().color().name()

    # deltas are coloured by whether they are good news: more throughput and less CPU green,
    # more latency red although its delta is positive like the throughput's
    assert colour("apply_rows_per_s") == "#1a7a30"
    assert colour("apply_cpu_us_per_row") == "#1a7a30"
    assert colour("qlatency_ms") == "#c0202a"
    assert view.latency_chart.labels == [f"#{first}", f"#{second}"]
    assert "ROWS_APPLIED" in view.delta_chart.categories  # the catalogue label


def test_compare_needs_two_runs(fake_engine, window):
    run = window.predict_and_record()
    assert not window.compare_runs([run])
    assert "at least two" in window.view_widget("Compare").title.text()


def test_recorded_runs_are_labelled_with_the_knobs_changed_since_saving(fake_engine, window, root, tmp_path):
    from engine import templates
    from engine.io import projectfile

    path = tmp_path / "p.json"
    projectfile.save(templates.unidirectional("Mine"), path)
    assert window.open_project(str(path), ask=False)
    qcap = window.document.project.nodes_of("qcapture")[0].id
    qapply = window.document.project.nodes_of("qapply")[0].id
    first = window.predict_and_record()
    window.document.set_param(qcap, "trans_batch_sz", 3)
    second = window.predict_and_record()
    window.document.set_param(qapply, "num_apply_agents", 8)
    window.document.move_nodes({qapply: (5.0, 5.0)})  # not a setting
    third = window.predict_and_record()
    labels = {r.id: r.label for r in window.history.list_runs()}
    assert labels[first] == "unchanged"
    assert labels[second] == "qcapture.trans_batch_sz=3"
    assert labels[third] == "qapply.num_apply_agents=8 qcapture.trans_batch_sz=3"
    assert window.save()
    assert window.document.changes_label() == "unchanged"


def test_runs_list_follows_the_open_project(fake_engine, window, qtbot):
    first = window.predict_and_record()
    window.runs.refresh()
    assert [r.id for r in window.runs.runs] == [first]
    window.new_from_template("bidirectional")
    qtbot.waitUntil(lambda: window.runs.runs == [], timeout=2000)
    window.runs.only_project.setChecked(False)
    assert [r.id for r in window.runs.runs] == [first]


def test_the_selection_follows_run_ids_when_a_new_run_is_recorded(fake_engine, window, qtbot):
    """Select two runs, record a third (it takes the top row): Compare compares the two selected."""
    doc = window.document
    qcap = doc.project.nodes_of("qcapture")[0].id
    ids = []
    for batch in (1, 2, 3):
        doc.set_param(qcap, "trans_batch_sz", batch)
        ids.append(window.predict_and_record())
    window.runs.refresh()
    window.runs.select_ids(ids[:2])
    doc.set_param(qcap, "trans_batch_sz", 4)
    newest = window.predict_and_record()  # the history notifies: the list reloads, newest first
    window.runs.refresh()
    assert window.runs.table.item(0, 0).data(Qt.UserRole) == newest  # the rows moved down by one
    assert window.runs.selected_ids() == ids[:2]
    with qtbot.waitSignal(window.runs.compare_requested) as sig:
        window.runs.compare_button.click()
    assert sig.args == [ids[:2]]
    assert window.view_widget("Compare").comparison.run_ids == tuple(ids[:2])
