"""Small widget builders the views share: a panel's column layout, read-only result tables, wrapped labels."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

#: Space between a panel's edge and its contents, px.
PANEL_MARGIN_PX = 4


def panel_column(panel: QWidget) -> QVBoxLayout:
    """The layout of ``panel``: its contents top to bottom, ``PANEL_MARGIN_PX`` from its edges."""
    layout = QVBoxLayout(panel)
    m = PANEL_MARGIN_PX
    layout.setContentsMargins(m, m, m, m)
    return layout


def add_grid(layout, rows: Sequence[Sequence[QWidget]]) -> QGridLayout:
    """Add ``rows`` of widgets (each row left to right) to ``layout`` as a grid taking the height left."""
    grid = QGridLayout()
    for r, row in enumerate(rows):
        for c, widget in enumerate(row):
            grid.addWidget(widget, r, c)
    layout.addLayout(grid, 1)
    return grid


def read_only_table(
    headers: Sequence[str], stretch_column: int | None = None, resize_to_contents: bool = False, parent=None
) -> QTableWidget:
    """An empty table of ``headers`` that the user reads but cannot edit, without row numbers.

    Parameters
    ----------
    headers : sequence of str
        Column titles (their number is the number of columns).
    stretch_column : int, optional
        The column that takes the width left over (its index).
    resize_to_contents : bool
        Size every column to its contents instead (applied before ``stretch_column``).
    """
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.NoEditTriggers)
    if resize_to_contents:
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
    if stretch_column is not None:
        table.horizontalHeader().setSectionResizeMode(stretch_column, QHeaderView.Stretch)
    return table


def message_label(text: str = "", rich: bool = False, parent=None) -> QLabel:
    """A label that wraps its text (a status line, a summary); ``rich`` for HTML such as ``<b>``."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    if rich:
        label.setTextFormat(Qt.RichText)
    return label


def metric_item(name: str, kind: str | None = None) -> QTableWidgetItem:
    """A table cell naming metric ``name`` of an engine ``kind`` as the catalogue labels it; the
    tooltip says where IBM names it."""
    from engine.metrics import info

    entry = info(name, kind)
    item = QTableWidgetItem(entry.label)
    tip = [entry.description, entry.source, f"<small>key: {name}</small>"]
    item.setToolTip("<br>".join(t for t in tip if t))
    return item


def metric_cells(
    name: str, value: float, unit: str | None = None
) -> tuple[QTableWidgetItem, QTableWidgetItem]:
    """The value (right-aligned) and unit cells of ``value``, in the unit that suits its magnitude."""
    from engine.metrics import info
    from engine.metrics.catalog import display_value, format_number

    shown, shown_unit = display_value(value, info(name).unit if unit is None else unit)
    cell = QTableWidgetItem(format_number(shown))
    cell.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return cell, QTableWidgetItem(shown_unit)
