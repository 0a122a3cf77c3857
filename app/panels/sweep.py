"""The sweep view: a knob over a range (optionally for each value of a second knob),
throughput, latency and CPU against it.

The axes use the command line's syntax (``qapply.num_apply_agents=1..16``), so a
sweep made here can be repeated with ``qrtune sweep --set ... --set ...``; two axes
travel as one text joined by ``;``. Points stream in as the background worker
finishes them; with a second knob there is one curve per value of it. The view
names the smallest value that reaches the best throughput (or the target rate) with
every CPU under :data:`CPU_LIMIT_PCT` (the seeds' tuning goal: the fewest agents that
handle the workload), one pick per curve.

A sweep runs at the Target rate: the project swept is the open one with every workload
offering that rate (OFFERED_ROWS_PER_S, :func:`engine.studies.sweep_pick.at_target_rate`),
so the curves are predicted at it and the stored sweep carries it. When the sweep is done
the view shows the sweep as recorded (:class:`engine.report.sweep.SweepSection`): the pick
and target the sweep's PDF and ``qrtune report --sweep`` name.
"""

from __future__ import annotations

import argparse
import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidgetItem,
    QWidget,
)

from app import style
from app.charts import SpecLineChart
from app.panels.results import format_number
from app.panels.tables import add_grid, message_label, panel_column, read_only_table
from engine.errors import FieldError
from engine.limit import bottleneck_label
from engine.metrics import knob_label
from engine.model import Project
from engine.registry import KINDS
from engine.report.line_charts import is_number
from engine.report.sweep import section_of_points
from engine.report.sweep_charts import chart_kind, sweep_charts
from engine.studies.sweep import knob_spec
from engine.studies.sweep_pick import (  # noqa: F401 - RATE_METRICS, CPU_SUFFIXES, pick_smallest: kept importable from here
    CPU_LIMIT_PCT,
    CPU_SUFFIXES,
    LATENCY_METRICS,
    RATE_METRICS,
    REACH_FRACTION,
    at_target_rate,
    choose,
    cpu_metrics,
    pick_smallest,
    rate_metrics,
    rate_nodes,
    target_rate,
)

#: What the view says before its first sweep.
START_TEXT = "Sweep a knob over a range; every point is recorded in the run history."

#: Targets and knobs offered first (the questions users bring: agents, batching, cores).
PREFERRED_TARGETS = ("qapply", "qcapture", "db2_mirror_node", "channel", "queue_manager")
PREFERRED_KNOBS = ("num_apply_agents", "trans_batch_sz", "cores", "job_sets", "batchsz", "buffpool_pages")


def default_values(spec, current) -> str:
    """A sensible range text for a knob: its whole range if small, else around the current value."""
    if spec.type == "bool":
        return "false,true"
    if spec.type == "enum":
        return ",".join(str(c) for c in spec.choices)
    if spec.type == "int":
        return _int_values(spec, current)
    if spec.type == "float":
        return _float_values(spec, current)
    return str(current)


def _int_values(spec, current) -> str:
    """The whole range when it spans at most 20 (``1..8``), ``1..16`` when the current value is at most 16,
    else a quarter, half, one, two and four times the current value (within the bounds)."""
    lo = int(spec.minimum if spec.minimum is not None else 1)
    hi = int(spec.maximum if spec.maximum is not None else lo + 15)
    if hi - lo <= 20:
        return f"{lo}..{hi}"
    base = int(current) if isinstance(current, (int, float)) and current else max(lo, 1)
    if 0 <= lo and base <= 16 <= hi:
        return f"{max(lo, 1)}..16"
    vals = sorted({v for v in (base // 4, base // 2, base, base * 2, base * 4) if lo <= v <= hi} or {lo, hi})
    return ",".join(str(v) for v in vals)


def _float_values(spec, current) -> str:
    """A quarter, half, one, two and four times the current value (1 when unset), within the knob's bounds."""
    base = float(current) if isinstance(current, (int, float)) and current else 1.0
    lo = spec.minimum if spec.minimum is not None else -math.inf
    hi = spec.maximum if spec.maximum is not None else math.inf
    vals = sorted({v for v in (base / 4, base / 2, base, base * 2, base * 4) if lo <= v <= hi})
    return ",".join(f"{v:g}" for v in vals)


class AxisEditor(QWidget):
    """One sweep axis: the target (a kind: every node of it, or one node), the knob and its values."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.project: Project | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.target = QComboBox()
        self.param = QComboBox()
        for combo in (self.target, self.param):  # long node labels must not widen the window
            combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)
        self.values = QLineEdit()
        self.values.setPlaceholderText("values: 1,4,8 or 1..16 or 1..16:2")
        row.addWidget(self.target)
        row.addWidget(self.param)
        row.addWidget(QLabel("="))
        row.addWidget(self.values, 1)
        self.target.currentIndexChanged.connect(self._fill_params)
        self.param.currentIndexChanged.connect(self._param_changed)
        self.preferred_knobs = PREFERRED_KNOBS
        self.preferred_targets = PREFERRED_TARGETS

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
        for preferred in self.preferred_targets:
            if i >= 0:
                break
            i = self.target.findData(preferred)
        self.target.setCurrentIndex(max(i, 0))
        self.target.blockSignals(False)
        self._fill_params()

    def kind(self) -> str | None:
        t = self.target.currentData()
        if t in KINDS:
            return t
        if self.project is not None:
            for n in self.project.nodes:
                if n.id == t:
                    return n.kind
        return None

    def _fill_params(self) -> None:
        kind = self.kind()
        current = self.param.currentData()
        self.param.blockSignals(True)
        self.param.clear()
        if kind:
            for spec in KINDS[kind].params:
                if spec.type in ("int", "float", "bool", "enum"):
                    self.param.addItem(knob_label(spec.name), spec.name)
        i = self.param.findData(current)
        for preferred in self.preferred_knobs:
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
        kind, name = self.kind(), self.param.currentData()
        if not kind or not name or self.project is None:
            return
        spec = KINDS[kind].param(name)
        node = next((n for n in self.project.nodes if n.kind == kind), None)
        self.values.setText(default_values(spec, node.params.get(name) if node else spec.default))
        self.values.setToolTip(f"{knob_label(spec.name)}: {spec.allowed()}")

    def set_axis(self, target: str, param: str, values: str) -> None:
        self.target.setCurrentIndex(max(self.target.findData(target), 0))
        self.param.setCurrentIndex(max(self.param.findData(param), 0))
        self.values.setText(values)

    def axis_text(self) -> str:
        return f"{self.target.currentData()}.{self.param.currentData()}={self.values.text().strip()}"


def axis_title(axis_name: str, project: Project | None = None) -> str:
    """A sweep's x axis as a user reads it: the knob's IBM name and unit (``NUM_APPLY_AGENTS (agents)``
    for ``qapply.num_apply_agents``), as the sweep report writes it."""
    target, _, param = axis_name.rpartition(".")
    spec = knob_spec(target, param, project)
    if spec is None:
        return knob_label(param) if param else ""
    return f"{spec.label} ({spec.unit})" if spec.unit else spec.label


class SweepView(QWidget):
    """Axis editors, sweep curves, the pick and a table of points.

    Signals
    -------
    run_requested(str)
        The axes to sweep: ``TARGET.PARAM=VALUES``, a second one after ``;``.
    export_requested(int)
        Export PDF... was pressed: write the report of this sweep id.
    """

    run_requested = Signal(str)
    export_requested = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.project: Project | None = None
        layout = panel_column(self)
        grid_axes = QGridLayout()
        self.axis = AxisEditor()
        self.by = AxisEditor()
        self.by.preferred_targets = ("source_db2", "qcapture", "db2_mirror_node", "queue_manager")
        self.by.preferred_knobs = ("offered_rows_per_s", "trans_batch_sz", "rows_per_txn", "cores", "batchsz")
        self.by_enabled = QCheckBox("for each")
        self.by_enabled.setToolTip(
            "Sweep a second knob too: one curve per value of it (the cartesian product)"
        )
        self.by.setEnabled(False)
        self.by_enabled.toggled.connect(self.by.setEnabled)
        self.run_button = QPushButton("Run sweep")
        self.export_button = QPushButton("Export PDF...")
        self.export_button.setToolTip(
            "Write a PDF report of this sweep: charts, every point, the pick, the settings "
            "(the same as qrtune report --sweep ID)"
        )
        self.export_button.setEnabled(False)
        grid_axes.addWidget(QLabel("Knob"), 0, 0)
        grid_axes.addWidget(self.axis, 0, 1)

        grid_axes.addWidget(self.by_enabled, 1, 0)
        grid_axes.addWidget(self.by, 1, 1)
        self.target_rate = QDoubleSpinBox()
        self.target_rate.setRange(0, 1e9)
        self.target_rate.setDecimals(0)
        self.target_rate.setSingleStep(1000)
        self.target_rate.setGroupSeparatorShown(True)
        self.target_rate.setSpecialValueText("none")
        self.target_rate.setSuffix(" rows/s")
        self.target_rate.setToolTip(
            "The rate the sweep runs at and the pick must hold (journey 2: the fewest agents that "
            "hold it with CPU under 90%): every point is predicted with the workload's "
            "OFFERED_ROWS_PER_S at this rate (the project itself is not changed); none drives "
            "each point to its maximum sustainable rate. Starts at the project's OFFERED_ROWS_PER_S"
        )
        self.target_rate.valueChanged.connect(self._target_edited)
        grid_axes.addWidget(QLabel("Target rate"), 2, 0)
        grid_axes.addWidget(self.target_rate, 2, 1)
        self.scheduler = QLineEdit()
        self.scheduler.setPlaceholderText("this computer (or a Dask scheduler: tcp://HOST:8786)")
        self.scheduler.setToolTip(
            "Where the points are predicted: empty runs them here; the address of a Dask scheduler "
            "(dask scheduler / dask worker, see the README) spreads them over its workers "
            "(the same as qrtune sweep --scheduler)"
        )
        grid_axes.addWidget(QLabel("Run on"), 3, 0)
        grid_axes.addWidget(self.scheduler, 3, 1)
        grid_axes.setColumnStretch(1, 1)
        layout.addLayout(grid_axes)
        buttons = QHBoxLayout()  # under the axes: the view fits a narrow window (150% scaling)
        buttons.addStretch(1)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.export_button)
        layout.addLayout(buttons)
        # the primary axis's widgets, by their old names
        self.target, self.param, self.values = self.axis.target, self.axis.param, self.axis.values
        self.status = message_label(START_TEXT)
        layout.addWidget(self.status)
        self.pick_label = message_label()
        self.pick_label.setStyleSheet(f"color:{style.PICKED}; font-weight:bold;")
        self.pick_label.hide()
        layout.addWidget(self.pick_label)
        self.rate_chart = SpecLineChart("Throughput")
        self.latency_chart = SpecLineChart("Latency")
        self.cpu_chart = SpecLineChart("CPU busy (%)")
        self.table = read_only_table(["Value", "For each", "Throughput", "END2END_LATENCY\nms", "Bottleneck"])
        self.table.setColumnHidden(1, True)
        self.table.setWordWrap(False)
        # the bottleneck takes the width left over, and never less than its text: the table scrolls instead
        self.table.horizontalHeader().setStretchLastSection(True)
        add_grid(layout, [[self.rate_chart, self.latency_chart], [self.cpu_chart, self.table]])
        self.run_button.clicked.connect(lambda: self.run_requested.emit(self.axis_text()))
        self.export_button.clicked.connect(
            lambda: self.sweep_id is not None and self.export_requested.emit(self.sweep_id)
        )
        self.axis.values.returnPressed.connect(lambda: self.run_requested.emit(self.axis_text()))
        self.by.values.returnPressed.connect(lambda: self.run_requested.emit(self.axis_text()))
        self.points: list = []
        self._axis_name = ""
        self._table_keys: list = []
        self.pick = None
        #: The project the shown sweep was made on (its OFFERED_ROWS_PER_S is the pick's goal); None: ``project``.
        self.base_project: Project | None = None
        #: The finished sweep as recorded (:class:`engine.report.sweep.SweepSection`), or None.
        self.section = None
        #: The store id of the finished sweep shown (what Export PDF... writes), or None.
        self.sweep_id: int | None = None

    def scheduler_address(self) -> str | None:
        """The Dask scheduler the user named (``tcp://HOST:PORT``), or None to run here.

        Raises
        ------
        FieldError
            The text is not a scheduler address.
        """
        from engine.cli.argtypes import scheduler_address

        text = self.scheduler.text().strip()
        if not text:
            return None
        try:
            return scheduler_address(text)
        except argparse.ArgumentTypeError:
            raise FieldError(
                "Run on", text[:60], "the address of a Dask scheduler, tcp://HOST:PORT"
            ) from None

    # -- axis editor ---------------------------------------------------------------------
    def set_project(self, project: Project) -> None:
        """Offer the project's node kinds and nodes as targets of both axes."""
        self.project = project
        self.axis.set_project(project)
        self.by.set_project(project)
        self.target_rate.blockSignals(True)
        self.target_rate.setValue(target_rate(project) or 0.0)
        self.target_rate.setEnabled(bool(rate_nodes(project)))  # a Db2 Mirror pair has no OFFERED_ROWS_PER_S
        self.target_rate.blockSignals(False)

    def swept_project(self, project: Project) -> Project:
        """The project a sweep started now predicts: ``project`` at the Target rate (see the module)."""
        if not rate_nodes(project):
            return project
        return at_target_rate(project, self.target_rate.value() or None)

    def _target_edited(self, _value: float) -> None:
        """A new target applies to the next sweep: the one shown keeps the target it ran at."""
        if self.section is None:
            return
        ran_at = self.section.target_rate or 0.0
        if float(self.target_rate.value()) != ran_at:
            self.status.setText(
                "The sweep shown ran at "
                + (f"{format_number(ran_at)} rows/s" if ran_at else "no target rate")
                + ": press Run sweep to sweep at the new target (stored points are reused)."
            )

    def set_axis(self, target: str, param: str, values: str, by: tuple[str, str, str] | None = None) -> None:
        """Choose the axes programmatically (tests, the advisor); ``by`` is (target, param, values)."""
        self.axis.set_axis(target, param, values)
        self.by_enabled.setChecked(by is not None)
        if by is not None:
            self.by.set_axis(*by)

    def axis_text(self) -> str:
        text = self.axis.axis_text()
        if self.by_enabled.isChecked():
            text += f" ; {self.by.axis_text()}"
        return text

    # -- results -----------------------------------------------------------------------------
    def show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.export_button.setEnabled(not running and self.sweep_id is not None)

    def set_finished(self, sweep_id: int | None) -> None:
        """The sweep shown is complete and stored as ``sweep_id``: Export PDF... writes its report."""
        self.sweep_id = sweep_id
        self.export_button.setEnabled(sweep_id is not None)

    def show_record(self, section) -> None:
        """Show the finished sweep as recorded (:class:`engine.report.sweep.SweepSection`): its picks,
        one per curve, and its target, the same the sweep's PDF and ``qrtune report --sweep`` name."""
        self.section = section
        self.set_finished(section.sweep_id)
        self.show_charts(section)
        picks = [(series, p) for series, p in section.picks if p is not None]
        self.pick = picks[0][1].point if len(section.picks) == 1 and picks else None
        if not picks:
            self.pick_label.hide()
            return
        self.pick_label.setText(
            "\n".join(
                (f"{section.series_label(series)}: " if series else "") + p.describe(format_number)
                for series, p in picks
            )
        )
        self.pick_label.show()

    def reset(self, project: Project) -> None:
        """Another project was opened: nothing of the last one's sweep stays (charts, pick, Export PDF...)."""
        self.base_project = None
        self.clear("")
        self.status.setText(START_TEXT)
        self.set_project(project)

    def clear(self, axis_name: str) -> None:
        """Empty the charts, table and pick before a new sweep (or when another project is opened)."""
        self.points = []
        self._table_keys = []
        self.pick = None
        self.section = None
        self.set_finished(None)
        self.pick_label.clear()
        self.pick_label.hide()
        for chart in (self.rate_chart, self.latency_chart, self.cpu_chart):
            chart.show_chart(None)
            chart.set_x_label(axis_title(axis_name, self.base_project))
        self.table.setRowCount(0)

    def show_points(self, points: list, axis_name: str = "") -> None:
        """Plot every finished point (called as points stream in)."""
        self._axis_name = axis_name
        self.points = sorted(points, key=lambda p: p.index)
        ok = [p for p in self.points if not p.error]
        two = any(p.series for p in self.points)
        by_name = self.by.axis_text().partition("=")[0] if two else ""
        x_name = axis_name or self.axis.axis_text().partition("=")[0]
        if self.points:
            names = [x_name, by_name] if two else [x_name]
            self.show_charts(section_of_points(self.points, names, self.base_project or self.project))
        self._fill_table()
        self._label_table(two, by_name.rpartition(".")[2], axis_name)
        metrics = {k for p in ok for k in p.metrics}
        numeric = all(is_number(p.value) for p in self.points)
        self._show_pick(ok, rate_metrics(metrics), cpu_metrics(metrics), numeric and not two, axis_name)

    def show_charts(self, section) -> None:
        """The throughput, latency and CPU charts of ``section`` (:func:`engine.report.sweep_charts.sweep_charts`,
        as the sweep's PDF draws them); a chart without metrics is emptied."""
        charts = {chart_kind(c): c for c in sweep_charts(section)}
        for kind, view in (
            ("rate", self.rate_chart),
            ("latency", self.latency_chart),
            ("cpu", self.cpu_chart),
        ):
            view.show_chart(charts.get(kind))

    def _fill_table(self) -> None:
        """One row per point; streamed points arrive in order, so only the new rows are filled."""
        keys = [(p.index, p.run_id) for p in self.points]
        start = len(self._table_keys) if keys[: len(self._table_keys)] == self._table_keys else 0
        self._table_keys = keys
        self.table.setUpdatesEnabled(False)
        self.table.setRowCount(len(self.points))
        for r, p in enumerate(self.points[start:], start=start):
            rows_per_s = next((p.metrics[m] for m in RATE_METRICS if m in p.metrics), None)
            cells = [
                _values_text((p.value,)),
                _values_text(p.series),
                "" if rows_per_s is None else format_number(rows_per_s),
                format_number(p.metrics["end2end_latency_ms"]) if "end2end_latency_ms" in p.metrics else "",
                p.error or bottleneck_label(p.bottleneck),
            ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (2, 3):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if c == len(cells) - 1:
                    item.setToolTip(text)
                self.table.setItem(r, c, item)
        last = self.table.columnCount() - 1
        header = self.table.horizontalHeader()
        header.resizeSection(last, max(self.table.sizeHintForColumn(last), header.sectionSizeHint(last)))
        self.table.setUpdatesEnabled(True)

    def _label_table(self, two: bool, by_name: str, axis_name: str) -> None:
        """Column titles naming the swept knobs by IBM's names, each column wide enough for its whole title."""
        self.table.setColumnHidden(1, not two)
        x_name = (axis_name or self.axis.axis_text().partition("=")[0]).rpartition(".")[2]
        self.table.setHorizontalHeaderLabels(
            [
                knob_label(x_name) if x_name else "Value",
                knob_label(by_name) if by_name else "For each",
                "Throughput",
                "END2END_LATENCY\nms",
                "Bottleneck",
            ]
        )
        header = self.table.horizontalHeader()
        for c in range(self.table.columnCount() - 1):  # the last column (the bottleneck) stretches
            header.resizeSection(c, max(header.sectionSize(c), header.sectionSizeHint(c)))

    def goal_rate(self, axis_name: str = "") -> float | None:
        """The target rate (rows/s) the pick holds: the swept project's OFFERED_ROWS_PER_S, unless the
        sweep varies the rate (:func:`engine.studies.sweep_pick.target_rate`, as the sweep's record)."""
        knob = (axis_name or self.axis.axis_text().partition("=")[0]).rpartition(".")[2]
        return target_rate(self.base_project or self.project, (knob,))

    def _show_pick(self, ok: list, rates: list, cpus: list, applicable: bool, axis_name: str) -> None:
        """The smallest value reaching the best throughput (or the target rate of the project swept) with
        every CPU under the limit (one-knob sweeps): :func:`engine.studies.sweep_pick.choose`."""
        knob = (axis_name or self.axis.axis_text().partition("=")[0]).rpartition(".")[2]
        pick = choose(ok, knob_label(knob), self.goal_rate(axis_name)) if applicable else None
        self.pick = pick.point if pick is not None else None
        if pick is None:
            self.pick_label.hide()
            return
        self.pick_label.setText(pick.describe(format_number))
        self.pick_label.show()


def _values_text(values) -> str:
    return ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
