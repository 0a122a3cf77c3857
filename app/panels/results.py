"""Live results: throughput, latency breakdown, CPU, stage utilisation and the bottleneck.

:meth:`ResultsPanel.show_prediction` updates every chart with ``setData``-style
calls only; :meth:`ResultsPanel.show_message` replaces the numbers with the
reason the engine cannot predict (an incomplete topology, an engine not there yet).
For bidirectional and peer-to-peer projects a Systems tab next to the metrics shows
each system's figures side by side (:mod:`engine.perf.qrep.systems`), and the CPU chart
shows each system's CPU per row with what the triggers and recursion avoidance add.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTabWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.charts import BarChart, HBarChart, LatencyBreakdownChart, StageChart
from engine.bands import band_label

#: Metrics tried in order for the headline throughput of each scenario kind.
HEADLINE = (
    "apply_rows_per_s",
    "capture_rows_per_s",
    "throughput",
    "tps",
    "transfer_mb_per_s",
    "channel_msgs_per_s",
)


def headline(metrics: dict, units: dict) -> tuple[str, float, str] | None:
    """(metric, value, unit) shown as the throughput, or None."""
    for name in HEADLINE:
        value = metrics.get(name)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return name, float(value), units.get(name, "")
    return None


def format_number(value) -> str:
    """Compact, readable number (``12,345``, ``3.21``, ``0.0042``)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    a = abs(value)
    if a >= 1000:
        return f"{value:,.0f}"
    if a >= 10:
        return f"{value:.1f}"
    if a >= 0.01 or a == 0:
        return f"{value:.3g}" if a < 1 else f"{value:.2f}"
    return f"{value:.2e}"


def _is_system_metric(name: str) -> bool:
    """A per-system figure of a two-way prediction (``system1_...``); shown in the Systems tab."""
    if not name.startswith("system"):
        return False
    from engine.perf.qrep.systems import is_system_metric

    return is_system_metric(name)


#: The CPU chart's series for two-way projects: (figure, legend).
SYSTEM_CPU_SERIES = (
    ("cpu_us_per_row", "all work"),
    ("replication_cpu_us_per_row", "replication"),
    ("trigger_cpu_us_per_row", "triggers"),
    ("recursion_cpu_us_per_row", "recursion avoidance"),
)


def cpu_metrics(metrics: dict) -> tuple[list[str], list[float], str]:
    """CPU per row on each side (us/row) or, for engines without it, CPU busy (%)."""
    names = [k for k in metrics if k.endswith("cpu_us_per_row") and not _is_system_metric(k)]
    unit = "us/row"
    if not names:
        names = [k for k in metrics if k.endswith(("_cpu_pct", "_busy_pct")) and not _is_system_metric(k)]
        unit = "%"
    names = [k for k in names if isinstance(metrics[k], (int, float)) and math.isfinite(metrics[k])]
    labels = [k.replace("_cpu_us_per_row", "").replace("_cpu_pct", "").replace("_busy_pct", "") for k in names]
    return labels, [float(metrics[k]) for k in names], unit


def main_unit_metrics(metrics: dict, units: dict, limit: int = 10) -> tuple[str, list[str]]:
    """The unit most metrics share (not %, at least 3 of them) and those metrics, largest first."""
    by_unit: dict[str, list[str]] = {}
    for name, value in metrics.items():
        unit = units.get(name, "")
        if unit and unit != "%" and isinstance(value, (int, float)) and not isinstance(value, bool):
            by_unit.setdefault(unit, []).append(name)
    if not by_unit:
        return "", []
    unit = max(by_unit, key=lambda u: len(by_unit[u]))
    if len(by_unit[unit]) < 3:
        return "", []
    names = sorted(by_unit[unit], key=lambda n: -abs(metrics[n]))[:limit]
    return unit, names


class ResultsPanel(QWidget):
    """The live prediction of the open project."""

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.headline = QLabel("No prediction yet")
        self.headline.setTextFormat(Qt.RichText)
        self.headline.setStyleSheet("font-size: 11pt;")
        layout.addWidget(self.headline)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #8a4a00; background: #fff6e0; padding: 6px; border-radius: 4px;")
        self.message.hide()
        layout.addWidget(self.message)
        grid = QGridLayout()
        self.latency_chart = LatencyBreakdownChart()
        self.stage_time_chart = HBarChart("Time per unit of work by stage (ms)", "ms")
        self.latency_stack = QStackedWidget()  # the Q Replication breakdown, else each stage's time
        self.latency_stack.addWidget(self.latency_chart)
        self.latency_stack.addWidget(self.stage_time_chart)
        self.stage_chart = StageChart()
        self.cpu_chart = BarChart("CPU per row", "us/row")
        grid.addWidget(self.latency_stack, 0, 0)
        grid.addWidget(self.stage_chart, 0, 1)
        grid.addWidget(self.cpu_chart, 1, 0)
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Metric", "Value", "Unit", band_label()])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(3, QHeaderView.ResizeToContents)  # the band, one line
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        # bidirectional and peer-to-peer: each system's figures side by side, in a tab next to the metrics
        self.systems_page = QWidget()
        sp = QVBoxLayout(self.systems_page)
        sp.setContentsMargins(0, 0, 0, 0)
        sp.setSpacing(2)
        self.systems_table = QTableWidget(0, 2)
        self.systems_table.verticalHeader().hide()
        self.systems_table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.systems_table.setEditTriggers(QTableWidget.NoEditTriggers)
        sp.addWidget(self.systems_table, 1)
        self.systems_note = QLabel()
        self.systems_note.setWordWrap(True)
        self.systems_note.setStyleSheet("font-size: 8pt; color: #5b6573;")
        sp.addWidget(self.systems_note)
        self.tables = QTabWidget()
        self.tables.setDocumentMode(True)
        self.tables.tabBar().setAutoHide(True)  # one tab (no systems): no tab bar
        self.tables.addTab(self.table, "Metrics")
        self.systems = ()
        grid.addWidget(self.tables, 1, 1)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid, 1)
        self.prediction = None

    def show_message(self, text: str) -> None:
        """Show why there are no numbers; charts are emptied so nothing stale is read."""
        self.prediction = None
        self.headline.setText("<b>No prediction</b>")
        self.message.setText(text)
        self.message.show()
        self.latency_chart.set_data([], [])
        self.latency_stack.setCurrentIndex(0)
        self.stage_chart.set_data([], [], None)
        self.cpu_chart.set_data([], {})
        self.table.setRowCount(0)
        self._show_systems((), "")

    def show_prediction(self, prediction, project=None) -> None:
        """Update every view from an :class:`engine.perf.Prediction` (of ``project``, which names its systems)."""
        self.prediction = prediction
        self.message.hide()
        metrics, units = prediction.metrics, prediction.units
        systems, note, warn = (), "", False
        if prediction.kind == "qrep" and any(_is_system_metric(k) for k in metrics):
            from engine.perf.qrep.systems import symmetry_note, systems_of
            from engine.scenario import flow_differences

            systems = systems_of(metrics, project)
            if project is not None:
                note, warn = symmetry_note(project), bool(flow_differences(project))
        head = headline(metrics, units)
        parts = []
        if head:
            name, value, unit = head
            applied = [s.get("applied_rows_per_s") for s in systems]
            if systems and name == "apply_rows_per_s" and all(a is not None for a in applied):
                parts.append(f"<b>{format_number(value)}</b> {unit} <small>applied on each system "
                             f"({format_number(sum(applied))} in all)</small>")
            else:
                parts.append(f"<b>{format_number(value)}</b> {unit} <small>({name})</small>")
        e2e = metrics.get("end2end_latency_ms")
        if isinstance(e2e, (int, float)):
            parts.append(f"END2END <b>{format_number(e2e)}</b> ms")
        rt = metrics.get("response_time_ms")
        if isinstance(rt, (int, float)):
            parts.append(f"response time <b>{format_number(rt)}</b> ms")
        if prediction.bottleneck:
            util = next((s.utilisation for s in prediction.stages if s.name == prediction.bottleneck), None)
            tail = f" at {util * 100:.0f}%" if util is not None else ""
            parts.append(f"bottleneck <b style='color:#c0202a'>{prediction.bottleneck}</b>{tail}")
        self.headline.setText(" &nbsp;|&nbsp; ".join(parts) or "<b>Predicted</b>")
        has_latency = any(k in metrics for k in ("capture_latency_ms", "qlatency_ms", "apply_latency_ms"))
        self.latency_chart.set_data(["END2END"] if has_latency else [], [metrics] if has_latency else [])
        breakdown_kind = prediction.kind == "qrep"  # its latencies are missing only when queues grow without end
        self.latency_chart.set_title(
            "Latency breakdown (ms)" if has_latency else
            "No steady-state latency: the offered rate is above what the pipeline sustains" if breakdown_kind else
            f"No latency breakdown for {prediction.kind}", key=has_latency)
        timed = [s for s in prediction.stages if isinstance(s.latency_ms, (int, float)) and s.latency_ms > 0]
        show_stage_times = not has_latency and not breakdown_kind and bool(timed)
        if show_stage_times:
            self.stage_time_chart.setTitle(f"Time per {timed[0].unit.split('/')[0] or 'unit'} by stage (ms)",
                                           size="9pt")
            self.stage_time_chart.set_data([s.name for s in timed], {"ms": [s.latency_ms for s in timed]})
        elif not has_latency and not breakdown_kind:  # no stages (DB2 V8 storage): the metrics of the most common unit, largest first
            unit, names = main_unit_metrics(metrics, units)
            show_stage_times = bool(names)
            if names:
                self.stage_time_chart.setTitle(f"{prediction.kind} ({unit})", size="9pt")
                self.stage_time_chart.set_data(names, {unit: [metrics[n] for n in names]})
        self.latency_stack.setCurrentIndex(1 if show_stage_times else 0)
        self.stage_chart.set_data([s.name for s in prediction.stages], [s.utilisation for s in prediction.stages],
                                  prediction.bottleneck)
        if systems:
            self.cpu_chart.setLabel("left", "us/row")
            self.cpu_chart.set_data([s.label for s in systems],
                                    {legend: [s.get(f) or 0.0 for s in systems] for f, legend in SYSTEM_CPU_SERIES},
                                    key_title="CPU per row captured or applied, by system (us/row)")
        else:
            labels, values, unit = cpu_metrics(metrics)
            self.cpu_chart.setTitle(f"CPU ({unit})", size="9pt")
            self.cpu_chart.setLabel("left", unit)
            self.cpu_chart.set_data(labels, {unit: values})
        self._fill_table(metrics, units)
        self._show_systems(systems, note, warn)

    def _show_systems(self, systems: tuple, note: str, warn: bool = False) -> None:
        """Fill the Systems tab (one column per system) and show it; remove it when there are no systems."""
        from_none = not self.systems
        self.systems = tuple(systems)
        index = self.tables.indexOf(self.systems_page)
        if not systems:
            self.systems_table.setRowCount(0)
            self.systems_note.clear()
            if index >= 0:
                self.tables.removeTab(index)
            return
        from engine.perf.qrep.systems import FIGURES

        rows = [(name, label, unit) for name, label, unit in FIGURES if any(s.get(name) is not None for s in systems)]
        self.systems_table.setColumnCount(2 + len(systems))
        self.systems_table.setHorizontalHeaderLabels(["Figure", *(s.label for s in systems), "Unit"])
        for c, s in enumerate(systems):
            self.systems_table.horizontalHeaderItem(1 + c).setToolTip(f"{s.label} ({s.node_id})" if s.node_id
                                                                      else s.label)
        self.systems_table.setRowCount(len(rows))
        for r, (name, label, unit) in enumerate(rows):
            item = QTableWidgetItem(label)
            item.setToolTip(name)
            self.systems_table.setItem(r, 0, item)
            for c, s in enumerate(systems):
                value = s.get(name)
                cell = QTableWidgetItem("" if value is None else format_number(value))
                cell.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.systems_table.setItem(r, 1 + c, cell)
            self.systems_table.setItem(r, 1 + len(systems), QTableWidgetItem(unit))
        header = self.systems_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for c in range(1, 2 + len(systems)):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        self.systems_note.setText(note)
        self.systems_note.setVisible(bool(note))
        self.systems_note.setStyleSheet("font-size: 8pt; " + ("color: #8a4a00;" if warn else "color: #5b6573;"))
        if index < 0:
            self.tables.addTab(self.systems_page, "Systems")
        if from_none:  # a two-way project just opened: its systems first
            self.tables.setCurrentWidget(self.systems_page)

    def _fill_table(self, metrics: dict, units: dict) -> None:
        rows = [(k, v) for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                and not _is_system_metric(k)]
        self.table.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            self.table.setItem(r, 0, QTableWidgetItem(name))
            item = QTableWidgetItem(format_number(value))
            item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            self.table.setItem(r, 1, item)
            self.table.setItem(r, 2, QTableWidgetItem(units.get(name, "")))
            band = (self.prediction.bands if self.prediction is not None else {}).get(name)
            self.table.setItem(r, 3, QTableWidgetItem(f"{format_number(band[0])} .. {format_number(band[1])}"
                                                      if band else ""))
