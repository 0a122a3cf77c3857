"""The validation view: how far to trust the engine, measured against the published runs."""

from __future__ import annotations

import re

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QPushButton,
    QSplitter,
    QTableWidgetItem,
    QWidget,
)

from app import style
from app.charts import Chart
from app.panels.results import format_number
from app.panels.tables import message_label, panel_column, read_only_table
from engine.metrics import label as metric_label
from engine.metrics import source_title
from engine.validation_summary import MetricCheck, ValidationSummary, describe


def document_of(source: str) -> str:
    """The published document of a measurement's source, by title (``Redpaper: Q Replication ...``)."""
    return source_title(source).split("), ")[0].split(", ")[0].strip()


def table_of(source: str) -> str:
    """The table or figure a measurement comes from (``Table 4-3``, ``Figure 7-1``), or ""."""
    found = re.search(r"\b(Table|Figure)\s+[\w.\-]+", source or "")
    return found.group(0) if found else ""


def summary_text(summary: ValidationSummary) -> str:
    """The engine's score (coverage, medians and 90th percentiles of rates and latencies), worst misses first."""
    return describe(summary) + ". Worst misses first."


def _fill(combo: QComboBox, everything: str, values: list[str]) -> None:
    """Offer ``everything`` (no filter) and ``values``, keeping the current choice when it is still offered."""
    keep = combo.currentData()
    combo.blockSignals(True)
    combo.clear()
    combo.addItem(everything, "")
    for v in values:
        combo.addItem(v, v)
    combo.setCurrentIndex(max(combo.findData(keep), 0))
    combo.blockSignals(False)


class NumericItem(QTableWidgetItem):
    """A cell sorted by its number (UserRole), not its text."""

    def __lt__(self, other) -> bool:
        a, b = self.data(Qt.UserRole), other.data(Qt.UserRole)
        if a is None or b is None:
            return (a is None) > (b is None)
        return a < b


def _dots(colour: str, name: str) -> pg.PlotDataItem:
    """An empty series drawn as dots of ``colour`` only (no line), named ``name`` in the legend."""
    return pg.PlotDataItem(
        [], [], pen=None, symbol="o", symbolSize=7, symbolPen=None, symbolBrush=pg.mkBrush(colour), name=name
    )


#: Error (%, either way) up to which a prediction reads as good, then as fair; beyond: poor.
GOOD_ERROR_PCT, FAIR_ERROR_PCT = 10.0, 25.0


def published_text(c: MetricCheck) -> str:
    """The range published for the settings of check ``c`` (``43 .. 441 in 10 runs``), or ""."""
    if c.published_range is None:
        return ""
    low, high, runs = c.published_range
    return f"{format_number(low)} .. {format_number(high)} in {runs} runs"


def _published_cell(c: MetricCheck) -> QTableWidgetItem:
    """The "Same settings published" cell: the range, marked and explained where it is far apart."""
    item = NumericItem(published_text(c))
    if c.published_range is not None:
        low, high, _ = c.published_range
        item.setData(Qt.UserRole, high / low if low > 0 else None)
        item.setToolTip(
            "These settings were published in more than one table with different values of this metric. "
            "The engine gives one value for one set of settings."
        )
    if c.published_apart:
        item.setForeground(QColor(style.MODIFIED))
    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return item


def _check_cells(c) -> list:
    """The table cells of check ``c``: scenario, metric, measured, predicted, error, published range, source.

    The number cells sort by their value (kept in ``Qt.UserRole``; the error by its size) and
    the error is coloured good, fair or poor.
    """
    cells = [
        QTableWidgetItem(c.scenario_id),
        QTableWidgetItem(metric_label(c.metric)),
        NumericItem(format_number(c.measured)),
        NumericItem("not predicted" if c.predicted is None else format_number(c.predicted)),
        NumericItem("" if c.error_pct is None else f"{c.error_pct:+.1f}%"),
        _published_cell(c),
        QTableWidgetItem(source_title(c.source)),
    ]
    cells[2].setData(Qt.UserRole, c.measured)
    cells[3].setData(Qt.UserRole, c.predicted)
    if c.error_pct is not None:
        size_pct = abs(c.error_pct)
        cells[4].setData(Qt.UserRole, size_pct)
        colour = (
            style.GOOD
            if size_pct <= GOOD_ERROR_PCT
            else style.MODIFIED
            if size_pct <= FAIR_ERROR_PCT
            else style.BOTTLENECK
        )
        cells[4].setForeground(QColor(colour))
    if c.published_range is not None:
        cells[4].setToolTip(f"Published for the same settings: {published_text(c)}")
    for item in cells[2:5]:
        item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
    return cells


class ValidationView(QWidget):
    """Per-metric error table and a predicted-against-measured plot.

    Signals
    -------
    run_requested()
        The user pressed Run validation (the window runs it in the background worker).
    """

    run_requested = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = panel_column(self)
        top = QHBoxLayout()
        self.run_button = QPushButton("Run validation")
        self.run_button.clicked.connect(self.run_requested)
        self.kind_filter = QComboBox()
        self.kind_filter.addItem("all kinds", "")
        for k in ("qrep", "db2mirror", "mq-mover", "db2-v8-storage"):
            self.kind_filter.addItem(k, k)
        self.kind_filter.currentIndexChanged.connect(self._refill)
        self.doc_filter = QComboBox()  # the published document, by title
        self.table_filter = QComboBox()  # its table or figure
        for combo in (self.kind_filter, self.doc_filter, self.table_filter):
            combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(10)
        self.doc_filter.currentIndexChanged.connect(self._doc_changed)
        self.table_filter.currentIndexChanged.connect(self._refill)
        self.summary_label = message_label(
            "The engine against every published measurement bundled with qrtune."
        )
        top.addWidget(self.run_button)
        top.addWidget(self.kind_filter)
        top.addWidget(self.doc_filter, 1)
        top.addWidget(self.table_filter)
        layout.addLayout(top)
        layout.addWidget(self.summary_label)
        split = QSplitter(Qt.Horizontal)
        self.table = read_only_table(
            ["Scenario", "Metric", "Measured", "Predicted", "Error", "Same settings published", "Source"],
            stretch_column=6,
        )
        self.table.setSortingEnabled(True)
        split.addWidget(self.table)
        self.plot = Chart()  # its title wraps in a narrow splitter pane instead of widening the plot
        self.plot.setTitle("Predicted against measured (log-log)", size="9pt")
        self.plot.setLabel("bottom", "measured")
        self.plot.setLabel("left", "predicted")
        self.plot.setLogMode(True, True)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setMenuEnabled(False)
        self.plot.addLegend(offset=(5, 5), labelTextSize="8pt")
        # PlotDataItems (not bare scatter items) so the plot's log mode transforms them
        self.rates = _dots(style.CAPTURE, "rates")
        self.latencies = _dots(style.QUEUE, "latencies")
        self.identity = pg.PlotDataItem([], [], pen=pg.mkPen(style.REFERENCE_LINE, style=Qt.DashLine))
        for item in (self.identity, self.rates, self.latencies):
            self.plot.addItem(item)
        split.addWidget(self.plot)
        split.setSizes([720, 280])  # the table (with each error) first; the plot stays readable
        layout.addWidget(split, 1)
        self.checks: list[MetricCheck] = []
        self.summary: ValidationSummary | None = None

    def show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        if running:
            self.summary_label.setText("Running the engine over the published scenarios...")

    def show_results(self, checks: list[MetricCheck], summary: ValidationSummary) -> None:
        """Fill the filters, the table (worst misses first) and the plot."""
        self.checks, self.summary = list(checks), summary
        self.summary_label.setText(summary_text(summary))
        _fill(self.doc_filter, "every document", sorted({document_of(c.source) for c in self.checks}))
        self._doc_changed()

    def _doc_changed(self) -> None:
        doc = self.doc_filter.currentData()
        _fill(
            self.table_filter,
            "every table",
            sorted(
                {table_of(c.source) for c in self.checks if not doc or document_of(c.source) == doc} - {""}
            ),
        )
        self._refill()

    def filtered(self) -> list[MetricCheck]:
        """The checks the kind, document and table filters let through."""
        kind, doc, table = (
            self.kind_filter.currentData(),
            self.doc_filter.currentData(),
            self.table_filter.currentData(),
        )
        return [
            c
            for c in self.checks
            if (not kind or c.kind == kind)
            and (not doc or document_of(c.source) == doc)
            and (not table or table_of(c.source) == table)
        ]

    def _refill(self) -> None:
        """Show the checks of the chosen kind: the table (worst misses first), the plot, the summary line."""
        kind = self.kind_filter.currentData()
        checks = self.filtered()
        self._fill_table(checks)
        self._plot(checks)
        if kind and not checks:
            self.summary_label.setText(f"No measured metrics for kind {kind}.")
        elif self.summary and self.summary.errors and not any(c.predicted is not None for c in checks):
            first = self.summary.errors[0][1]
            self.summary_label.setText(describe(self.summary) + f". The engine says: {first}")

    def _fill_table(self, checks: list) -> None:
        """One row per check, sorted by the size of its error, the Source column kept narrow enough."""
        self.table.setSortingEnabled(False)
        self.table.setRowCount(len(checks))
        for r, c in enumerate(checks):
            for col, item in enumerate(_check_cells(c)):
                self.table.setItem(r, col, item)
        self.table.setSortingEnabled(True)
        self.table.sortItems(4, Qt.DescendingOrder)  # worst misses first
        self.table.resizeColumnsToContents()
        for col, cap_px in ((0, 140), (1, 110), (5, 150), (6, 260)):  # the error column stays in view
            self.table.setColumnWidth(col, min(self.table.columnWidth(col), cap_px))

    def _plot(self, checks: list) -> None:
        """Predicted against measured, rates and latencies apart, with the line where they agree."""
        both = [c for c in checks if c.predicted and c.measured and c.predicted > 0 and c.measured > 0]
        for item, flag in ((self.rates, False), (self.latencies, True)):
            pts = [c for c in both if c.is_latency == flag]
            item.setData(
                np.array([c.measured for c in pts], dtype=float),
                np.array([c.predicted for c in pts], dtype=float),
            )
        if both:
            lo = min(min(c.measured, c.predicted) for c in both)
            hi = max(max(c.measured, c.predicted) for c in both)
            self.identity.setData([lo, hi], [lo, hi])
        else:
            self.identity.setData([], [])
