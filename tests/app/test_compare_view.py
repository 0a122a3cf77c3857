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
    # each run headed by the setting that sets it apart, by IBM's name; the metric names are the frozen rows
    assert headers == ["Unit", f"#{first}\nTRANS_BATCH_SZ\n=1", f"#{second}\nTRANS_BATCH_SZ\n=3", "\u0394 %"]
    assert view.settings_table.verticalHeaderItem(0).text() == "TRANS_BATCH_SZ"

    def row_of(metric_text):
        table = view.metrics_table
        return next(r for r in range(table.rowCount()) if table.verticalHeaderItem(r).text() == metric_text)

    assert view.metrics_table.item(row_of("ROWS_APPLIED"), 3).text() == "+200.0%"

    def colour(metric):
        return view.metrics_table.item(row_of(metric_label(metric)), 3).foreground().color().name()

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
    from engine import projectfile, templates

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
    assert labels[second] == "TRANS_BATCH_SZ=3"  # IBM's names
    assert labels[third] == "NUM_APPLY_AGENTS=8 TRANS_BATCH_SZ=3"
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


def test_values_read_in_the_unit_their_magnitude_suits_and_huge_changes_as_times(fake_engine, window):
    from app.panels.compare import delta_text

    qapply = window.document.project.nodes_of("qapply")[0].id
    ids = []
    for agents in (1, 2):  # the fake engine: APPLY_LATENCY 4,000 / agents ms
        window.document.set_param(qapply, "num_apply_agents", agents)
        ids.append(window.predict_and_record())
    assert window.compare_runs(ids)
    table = window.view_widget("Compare").metrics_table
    row = next(r for r in range(table.rowCount()) if table.verticalHeaderItem(r).text() == "APPLY_LATENCY")
    assert [table.item(row, c).text() for c in range(4)] == ["s", "4.00", "2.00", "-50.0%"]
    assert delta_text(177_115.0) == "x1,772" and delta_text(-99.5) == "-99.5%" and delta_text(None) == ""


def _columns_outside(table) -> list:
    """The metric table's columns whose right edge lies beyond its viewport (scrolled to the left)."""
    room = table.viewport().width()
    return [
        c for c in range(table.columnCount()) if table.columnViewportPosition(c) + table.columnWidth(c) > room
    ]


@pytest.mark.parametrize("size", [(1280, 800), (1100, 800)])
def test_three_runs_show_every_value_and_delta_within_the_view(fake_engine, window, qtbot, size):
    """At 1280x800 (and narrower: 150% leaves the same room, docks wider) the metric names stay as frozen
    row titles and every run's value and delta is on screen, no sideways scrolling."""
    from app.panels.compare import MIN_NAME_PX

    qcap = window.document.project.nodes_of("qcapture")[0].id
    ids = []
    for batch in (1, 3, 5):
        window.document.set_param(qcap, "trans_batch_sz", batch)
        ids.append(window.predict_and_record())
    window.fit_on_show = False  # the offscreen screen is smaller than the window asked for
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    assert window.compare_runs(ids)
    view = window.view_widget("Compare")
    table = view.metrics_table
    names = table.verticalHeader()
    qtbot.waitUntil(lambda: names.isVisible() and table.viewport().width() > 0)
    assert table.columnCount() == 6  # unit, first run, then each run's value and delta
    assert not _columns_outside(table), (table.viewport().width(), [table.columnWidth(c) for c in range(6)])
    assert table.horizontalScrollBar().maximum() == 0
    assert names.width() >= MIN_NAME_PX
    row = next(r for r in range(table.rowCount()) if table.verticalHeaderItem(r).text() == "ROWS_APPLIED")
    assert table.verticalHeaderItem(row).toolTip() == "ROWS_APPLIED"
    window.resize(size[0] - 120, size[1])  # the window narrowed: the columns fit again
    qtbot.waitUntil(lambda: not _columns_outside(table))


def test_run_titles_too_wide_for_their_columns_give_way_to_the_run_number(fake_engine, window, qtbot):
    from app.panels.compare import CompareView

    doc = window.document
    qcap = doc.project.nodes_of("qcapture")[0].id
    ids = []
    for batch in (1, 3, 5, 7):
        doc.set_param(qcap, "trans_batch_sz", batch)
        ids.append(window.predict_and_record())
    assert window.compare_runs(ids)
    view = CompareView()  # on its own: as wide as the test needs, whatever the test screen's size
    qtbot.addWidget(view)
    view.resize(1800, 700)
    view.show()
    qtbot.waitExposed(view)
    view.show_comparison(window.view_widget("Compare").comparison)
    table = view.metrics_table

    def titles():
        items = [table.horizontalHeaderItem(c) for c in range(table.columnCount())]
        return [item.text() for item in items if item.toolTip().startswith("#")]

    # room enough: every run's whole title, the setting that sets it apart by IBM's name
    assert titles() == [f"#{i}\nTRANS_BATCH_SZ\n={b}" for i, b in zip(ids, (1, 3, 5, 7))]
    # too narrow: the run's number alone, never a title cut at both ends; the whole title on hover
    view.resize(600, 700)
    qtbot.waitUntil(lambda: titles() == [f"#{i}" for i in ids])
    assert table.horizontalHeaderItem(1).toolTip() == f"#{ids[0]} TRANS_BATCH_SZ=1"
    view.resize(1800, 700)  # and whole again when there is room
    qtbot.waitUntil(lambda: titles()[0] == f"#{ids[0]}\nTRANS_BATCH_SZ\n=1")
