"""The sweep view: one knob over a range, throughput, latency and CPU against it.

The axis uses the command line's syntax (``qapply.num_apply_agents=1..16``), so a
sweep made here can be repeated with ``qrtune sweep``. Points stream in as the
background worker finishes them.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.charts import LineChart
from app.panels.results import format_number
from engine.model import Project
from engine.registry import KINDS

RATE_METRICS = ("apply_rows_per_s", "capture_rows_per_s", "throughput", "tps", "transfer_mb_per_s")
#: Targets and knobs offered first (the questions users bring: agents, batching, cores).
PREFERRED_TARGETS = ("qapply", "qcapture", "db2_mirror_node", "channel", "queue_manager")
PREFERRED_KNOBS = ("num_apply_agents", "trans_batch_sz", "cores", "job_sets", "batchsz", "buffpool_pages")
CPU_SUFFIXES = ("_busy_pct", "_cpu_pct")


def default_values(spec, current) -> str:
    """A sensible range text for a knob: its whole range if small, else around the current value."""
    if spec.type == "bool":
        return "false,true"
    if spec.type == "enum":
        return ",".join(str(c) for c in spec.choices)
    if spec.type == "int":
        lo = int(spec.minimum if spec.minimum is not None else 1)
        hi = int(spec.maximum if spec.maximum is not None else lo + 15)
        if hi - lo <= 20:
            return f"{lo}..{hi}"
        base = int(current) if isinstance(current, (int, float)) and current else max(lo, 1)
        if 0 <= lo and base <= 16 <= hi:
            return f"{max(lo, 1)}..16"
        vals = sorted({v for v in (base // 4, base // 2, base, base * 2, base * 4) if lo <= v <= hi} or {lo, hi})
        return ",".join(str(v) for v in vals)
    if spec.type == "float":
        base = float(current) if isinstance(current, (int, float)) and current else 1.0
        lo = spec.minimum if spec.minimum is not None else -math.inf
        hi = spec.maximum if spec.maximum is not None else math.inf
        vals = sorted({v for v in (base / 4, base / 2, base, base * 2, base * 4) if lo <= v <= hi})
        return ",".join(f"{v:g}" for v in vals)
    return str(current)


class SweepView(QWidget):
    """Axis editor, sweep curves and a table of points.

    Signals
    -------
    run_requested(str)
        The axis text to sweep (``TARGET.PARAM=VALUES``).
    """

    run_requested = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.project: Project | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        row = QHBoxLayout()
        self.target = QComboBox()
        self.param = QComboBox()
        self.values = QLineEdit()
        self.values.setPlaceholderText("values: 1,4,8 or 1..16 or 1..16:2")
        self.run_button = QPushButton("Run sweep")
        row.addWidget(QLabel("Knob"))
        row.addWidget(self.target)
        row.addWidget(self.param)
        row.addWidget(QLabel("="))
        row.addWidget(self.values, 1)
        row.addWidget(self.run_button)
        layout.addLayout(row)
        self.status = QLabel("Sweep one knob over a range; every point is recorded in the run history.")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        grid = QGridLayout()
        self.rate_chart = LineChart("Throughput", "", "")
        self.latency_chart = LineChart("Latency (ms)", "", "ms")
        self.cpu_chart = LineChart("CPU busy (%)", "", "%")
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Value", "Throughput", "END2END ms", "Bottleneck"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        grid.addWidget(self.rate_chart, 0, 0)
        grid.addWidget(self.latency_chart, 0, 1)
        grid.addWidget(self.cpu_chart, 1, 0)
        grid.addWidget(self.table, 1, 1)
        layout.addLayout(grid, 1)
        self.target.currentIndexChanged.connect(self._fill_params)
        self.param.currentIndexChanged.connect(self._param_changed)
        self.run_button.clicked.connect(lambda: self.run_requested.emit(self.axis_text()))
        self.values.returnPressed.connect(lambda: self.run_requested.emit(self.axis_text()))
        self.points: list = []

    # -- axis editor ---------------------------------------------------------------------
    def set_project(self, project: Project) -> None:
        """Offer the project's node kinds (all nodes of a kind) and node ids as targets."""
        self.project = project
        current = self.target.currentData()
        self.target.blockSignals(True)
        self.target.clear()
        kinds = list(dict.fromkeys(n.kind for n in project.nodes))
        for k in kinds:
            self.target.addItem(f"every {KINDS[k].name}", k)
        for n in project.nodes:
            self.target.addItem(f"{n.label} ({n.id})", n.id)
        i = self.target.findData(current)
        for preferred in PREFERRED_TARGETS:
            if i >= 0:
                break
            i = self.target.findData(preferred)
        self.target.setCurrentIndex(max(i, 0))
        self.target.blockSignals(False)
        self._fill_params()

    def _kind_of_target(self) -> str | None:
        t = self.target.currentData()
        if t in KINDS:
            return t
        if self.project is not None:
            for n in self.project.nodes:
                if n.id == t:
                    return n.kind
        return None

    def _fill_params(self) -> None:
        kind = self._kind_of_target()
        current = self.param.currentData()
        self.param.blockSignals(True)
        self.param.clear()
        if kind:
            for spec in KINDS[kind].params:
                if spec.type in ("int", "float", "bool", "enum"):
                    self.param.addItem(spec.label, spec.name)
        i = self.param.findData(current)
        for preferred in PREFERRED_KNOBS:
            if i >= 0:
                break
            i = self.param.findData(preferred)
        if i < 0 and kind:
            numeric = [p.name for p in KINDS[kind].params if p.type in ("int", "float")]
            i = self.param.findData(numeric[0]) if numeric else 0
        self.param.setCurrentIndex(max(i, 0))
        self.param.blockSignals(False)
        self._param_changed()

    def _param_changed(self) -> None:
        kind, name = self._kind_of_target(), self.param.currentData()
        if not kind or not name or self.project is None:
            return
        spec = KINDS[kind].param(name)
        node = next((n for n in self.project.nodes if n.kind == kind), None)
        self.values.setText(default_values(spec, node.params.get(name) if node else spec.default))
        self.values.setToolTip(f"{spec.label}: {spec.allowed()}")

    def set_axis(self, target: str, param: str, values: str) -> None:
        """Choose the axis programmatically (tests, the advisor)."""
        self.target.setCurrentIndex(max(self.target.findData(target), 0))
        self.param.setCurrentIndex(max(self.param.findData(param), 0))
        self.values.setText(values)

    def axis_text(self) -> str:
        return f"{self.target.currentData()}.{self.param.currentData()}={self.values.text().strip()}"

    # -- results -----------------------------------------------------------------------------
    def show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)

    def clear(self, axis_name: str) -> None:
        self.points = []
        for chart in (self.rate_chart, self.latency_chart, self.cpu_chart):
            chart.set_series({})
            chart.set_x_label(axis_name)
        self.table.setRowCount(0)

    def show_points(self, points: list, axis_name: str = "") -> None:
        """Plot every finished point (called as points stream in)."""
        self.points = sorted(points, key=lambda p: p.index)
        ok = [p for p in self.points if not p.error]
        numeric = all(isinstance(p.value, (int, float)) and not isinstance(p.value, bool) for p in self.points)
        xs = [float(p.value) if numeric else float(p.index) for p in ok]
        if not numeric:
            ticks = [(float(p.index), str(p.value)) for p in self.points]
            for chart in (self.rate_chart, self.latency_chart, self.cpu_chart):
                chart.getAxis("bottom").setTicks([ticks])

        def series(names):
            return {n: (xs, [p.metrics.get(n, math.nan) for p in ok]) for n in names}

        names = {k for p in ok for k in p.metrics}
        rates = [m for m in RATE_METRICS if m in names]
        if any(m.endswith("rows_per_s") for m in rates):
            rates = [m for m in rates if m.endswith("rows_per_s")]  # one unit per chart
        lats = [m for m in ("end2end_latency_ms", "apply_latency_ms", "qlatency_ms", "capture_latency_ms",
                            "response_time_ms") if m in names]
        cpus = sorted(m for m in names if m.endswith(CPU_SUFFIXES))
        unit = next((p.units.get(rates[0], "") for p in ok if rates), "")
        self.rate_chart.setLabel("left", unit)
        self.rate_chart.set_series(series(rates[:3]), symbols=True)
        self.latency_chart.set_series(series(lats[:4]), symbols=True)
        self.cpu_chart.set_series(series(cpus[:4]), symbols=True)
        self.table.setRowCount(len(self.points))
        for r, p in enumerate(self.points):
            head = next((p.metrics[m] for m in RATE_METRICS if m in p.metrics), None)
            cells = [str(p.value), "" if head is None else format_number(head),
                     format_number(p.metrics["end2end_latency_ms"]) if "end2end_latency_ms" in p.metrics else "",
                     p.error or (p.bottleneck or "")]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(r, c, item)
