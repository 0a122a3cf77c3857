"""The results view's "Q vs SQL Replication" tab: one row per figure, both products side by side.

Filled from :func:`engine.report.sql_comparison.sql_comparison_rows` (a prediction made with
Q Apply's "compare SQL Replication" knob); the PDF prints the same rows.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHeaderView, QTableWidget, QTableWidgetItem

from engine.metrics.catalog import format_number
from engine.report.sql_comparison import sql_comparison_rows

#: The tab's title in the results view.
TAB_TITLE = "Q vs SQL Replication"
#: Product names on two lines: the number columns stay as narrow as their numbers, the figures get the room.
_HEADERS = ("Figure", "Q\nReplication", "SQL\nReplication", "Q / SQL", "Unit")


class SqlComparisonTable(QTableWidget):
    """Q Replication's and SQL Replication's figures for the same workload and hardware."""

    def __init__(self, parent=None):
        super().__init__(0, len(_HEADERS), parent)
        self.setHorizontalHeaderLabels(list(_HEADERS))
        self.verticalHeader().hide()
        self.setEditTriggers(QTableWidget.NoEditTriggers)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for c in range(1, len(_HEADERS)):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)

    def show_metrics(self, metrics: dict, units: dict) -> bool:
        """Fill from a prediction's metrics; returns False (and empties) when it has no SQL figures."""
        rows = sql_comparison_rows(metrics, units)
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = [
                row.label,
                "" if row.qrep is None else format_number(row.qrep),
                "" if row.sql is None else format_number(row.sql),
                row.ratio_text,
                row.unit,
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 0:
                    item.setToolTip(text)  # the whole label where the column elides it
                if c in (1, 2, 3):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.setItem(r, c, item)
        return bool(rows)
