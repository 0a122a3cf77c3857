"""app.panels.tables: the read-only result tables and wrapped labels the views share."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView

from app.panels.tables import message_label, read_only_table


def test_read_only_table_has_headers_no_row_numbers_and_a_stretch_column(qtbot):
    t = read_only_table(["Summary", "Value", "Unit"], stretch_column=0)
    qtbot.addWidget(t)
    assert t.columnCount() == 3 and t.rowCount() == 0
    assert [t.horizontalHeaderItem(c).text() for c in range(3)] == ["Summary", "Value", "Unit"]
    assert t.editTriggers() == QAbstractItemView.NoEditTriggers and t.verticalHeader().isHidden()
    header = t.horizontalHeader()
    assert (
        header.sectionResizeMode(0) == QHeaderView.Stretch
        and header.sectionResizeMode(1) == QHeaderView.Interactive
    )
    fit = read_only_table(("a", "b"), resize_to_contents=True)
    qtbot.addWidget(fit)
    assert {fit.horizontalHeader().sectionResizeMode(c) for c in range(2)} == {QHeaderView.ResizeToContents}


def test_message_label_wraps_and_takes_rich_text_on_request(qtbot):
    plain, rich = message_label("a <b>note</b>"), message_label(rich=True)
    qtbot.addWidget(plain)
    qtbot.addWidget(rich)
    assert plain.wordWrap() and rich.wordWrap() and plain.text() == "a <b>note</b>"
    assert rich.textFormat() == Qt.RichText and plain.textFormat() == Qt.AutoText


def test_views_use_them(window):
    monitor = window.view_widget("Monitor")
    assert monitor.errors.editTriggers() == QAbstractItemView.NoEditTriggers
    assert monitor.summary.textFormat() == Qt.RichText and monitor.status.wordWrap()
    sim = window.view_widget("Simulation")
    assert (
        sim.summary.editTriggers() == QAbstractItemView.NoEditTriggers
        and sim.summary.verticalHeader().isHidden()
    )
    val = window.view_widget("Validation")
    assert (
        val.table.isSortingEnabled()
        and val.table.horizontalHeader().sectionResizeMode(6) == QHeaderView.Stretch  # Source
    )
    runs = window.runs.table
    assert runs.editTriggers() == QAbstractItemView.NoEditTriggers
    assert (
        runs.selectionMode() == QAbstractItemView.ExtendedSelection
        and runs.horizontalHeader().sectionResizeMode(1) == QHeaderView.Stretch
    )
