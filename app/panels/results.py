"""Live results: throughput, latency breakdown, CPU, stage utilisation and the bottleneck.

:meth:`ResultsPanel.show_prediction` updates every chart with ``setData``-style
calls only; :meth:`ResultsPanel.show_message` replaces the numbers with the
reason the engine cannot predict (an incomplete topology, an engine not there yet).
For bidirectional and peer-to-peer projects a Systems tab next to the metrics shows
each system's figures side by side (:mod:`engine.perf.qrep.systems`), and the CPU chart
shows each system's CPU per row with what the triggers and recursion avoidance add.

Two kinds answer sizing questions rather than pipeline ones and get their own charts:

* ``db2-v8-storage`` (:mod:`engine.perf.db2v8`): the headline gives DBM1 storage below the bar
  V7 -> V8, the relief and the headroom left under the 2 GB bar (or the extended region), the
  CPU change band of the workload type and the catalog migration time; the charts are each DBM1
  part V7 and V8 (MB) and the totals against the bar. No stage, latency or CPU chart.
* ``mq-mover`` (:mod:`engine.perf.mqmover`): the headline gives the MB/s moved, the bottleneck
  and the BUFFPOOL that holds the backlog, with the storage per connection and per channel; the
  charts are the time per message by stage (us), the buffer pool now against what holds the
  backlog (4 KB buffers) and the CPU and elapsed time per message by task (us).
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGridLayout,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import style
from app.charts import BarChart, HBarChart, LatencyBreakdownChart, SpanChart, StageChart
from app.panels.headlines import (  # noqa: F401 - re-exported: the results views' headlines
    HEADLINE,
    LIMIT,
    NEW,
    NOW,
    OK,
    OLD,
    _n,
    _whole,
    headline,
    limit_html,
    mover_headline,
    pipeline_headline,
    v8_headline,
)
from app.panels.sql_comparison import TAB_TITLE as SQL_TAB_TITLE
from app.panels.sql_comparison import SqlComparisonTable
from app.panels.tables import panel_column
from engine.limit import limit_of
from engine.metrics import label as metric_label
from engine.metrics.bands import band_label
from engine.metrics.catalog import format_number
from engine.metrics.stages import stage_label


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
    """CPU per row on each side (us/row) or, for engines without it, CPU busy (%).

    SQL Replication's figures (``sql_*``) are left to the Q vs SQL Replication table.
    """
    names = [
        k
        for k in metrics
        if k.endswith("cpu_us_per_row") and not _is_system_metric(k) and not k.startswith("sql_")
    ]
    unit = "us/row"
    if not names:
        names = [k for k in metrics if k.endswith(("_cpu_pct", "_busy_pct")) and not _is_system_metric(k)]
        unit = "%"
    names = [k for k in names if isinstance(metrics[k], (int, float)) and math.isfinite(metrics[k])]
    labels = [
        k.replace("_cpu_us_per_row", "").replace("_cpu_pct", "").replace("_busy_pct", "") for k in names
    ]
    return labels, [float(metrics[k]) for k in names], unit


#: The mover's tasks in the CPU chart: (metric prefix, label).
MOVER_TASKS = (
    ("putter", "putter"),
    ("dwp", "DWP"),
    ("adaptor", "adaptor"),
    ("dispatcher", "dispatcher"),
    ("ssl", "SSL"),
)  # compression CPU is part of the dispatcher's


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


#: The results view of each engine kind that is not a pipeline: prediction kind -> ResultsPanel method.
def _v8_summary(project):
    """The V7 -> V8 storage summary of ``project``, or None when there is no project or it cannot say."""
    if project is None:
        return None
    from engine.errors import QrtuneError
    from engine.perf import db2v8
    from engine.scenario import project_to_scenario

    try:
        return db2v8.summarise(project_to_scenario(project))
    except (QrtuneError, KeyError):  # the project cannot say: the metrics only
        return None


def _v8_total_rows(prediction) -> list:
    """Span rows of DBM1 storage below the bar: V7 measured and V8 estimated (with its band and headroom), MB."""
    metrics = prediction.metrics
    rows = []
    v7_mb, v8_mb = _n(metrics, "v7_total_mb"), _n(metrics, "v8_estimated_total_mb")
    if v7_mb is not None:
        rows.append(("V7 measured", 0.0, v7_mb, OLD, f"{_whole(v7_mb)} MB"))
    if v8_mb is not None:
        band = prediction.bands.get("v8_estimated_total_mb")
        spread = (
            f" ({_whole(band[0])} .. {_whole(band[1])})" if band and abs(band[1] - band[0]) >= 0.5 else ""
        )
        room_mb = _n(metrics, "v8_headroom_mb")
        headroom = f", {_whole(room_mb)} MB headroom" if room_mb is not None and room_mb >= 0 else ""
        rows.append(("V8 estimated", 0.0, v8_mb, NEW, f"{_whole(v8_mb)} MB{spread}{headroom}"))
    return rows


KIND_VIEWS = {"db2-v8-storage": "_show_v8", "mq-mover": "_show_mover"}


class ResultsPanel(QWidget):
    """The live prediction of the open project."""

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = panel_column(self)
        self.headline = QLabel("No prediction yet")
        self.headline.setTextFormat(Qt.RichText)
        self.headline.setStyleSheet(f"font-size: {style.HEADLINE_PT}pt;")
        layout.addWidget(self.headline)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(
            f"color: {style.NOTE_TEXT}; background: {style.NOTE_BACKGROUND}; padding: 6px; "
            "border-radius: 4px;"
        )
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
        # sizing kinds: each shown only in its kind's layout, in the place of pipeline charts it hides
        self.storage_chart = HBarChart("DBM1 storage below the bar by part (MB)", "MB")
        self.storage_chart.getAxis("bottom").enableAutoSIPrefix(False)
        self.sizing_chart = SpanChart()
        self.task_chart = BarChart("CPU and elapsed time per message by task (us)", "us/msg")
        grid.addWidget(self.storage_chart, 0, 0, 2, 1)
        grid.addWidget(self.sizing_chart, 0, 1)
        grid.addWidget(self.task_chart, 1, 0)
        for chart in (self.storage_chart, self.sizing_chart, self.task_chart):
            chart.hide()
        self.layout_kind = "pipeline"
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels(["Metric", "Value", "Unit", band_label()])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.table.setWordWrap(False)  # value, unit and band fit their text once per fill (_fill_table)
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
        self.systems_note.setStyleSheet(f"font-size: {style.NOTE_PT}pt; color: {style.MUTED};")
        sp.addWidget(self.systems_note)
        self.tables = QTabWidget()
        self.tables.setDocumentMode(True)
        self.tables.tabBar().setAutoHide(True)  # one tab (no systems): no tab bar
        self.tables.addTab(self.table, "Metrics")
        self.sql_table = SqlComparisonTable()  # a tab only when the prediction compares SQL Replication
        self.systems = ()
        grid.addWidget(self.tables, 1, 1)
        grid.setColumnStretch(0, 2)
        grid.setColumnStretch(1, 3)  # the metrics table needs its label, value, unit and band columns
        # rows share the height evenly whatever a chart's size hint became in another kind's layout
        grid.setRowStretch(0, 1)
        grid.setRowStretch(1, 1)
        self.grid = grid
        layout.addLayout(grid, 1)
        self.prediction = None

    def show_message(self, text: str) -> None:
        """Show why there are no numbers; charts are emptied so nothing stale is read."""
        self.prediction = None
        self.headline.setText("<b>No prediction</b>")
        self.message.setText(text)
        self.message.show()
        self._use_layout("pipeline")
        self.latency_chart.set_data([], [])
        self.latency_stack.setCurrentIndex(0)
        self.stage_chart.set_data([], [], None)
        self.cpu_chart.set_data([], {})
        self.table.setRowCount(0)
        self._show_systems((), "")

    def show_prediction(self, prediction, project=None) -> None:
        """Update every view from an :class:`engine.perf.Prediction` (of ``project``, which names its systems).

        The results view of the prediction's kind (:data:`KIND_VIEWS`) draws it; the pipeline view
        (Q Replication, Db2 Mirror) is the default.
        """
        self.prediction = prediction
        self.message.hide()
        getattr(self, KIND_VIEWS.get(prediction.kind, "_show_pipeline"))(prediction, project)

    def _show_pipeline(self, prediction, project=None) -> None:
        """Headline, latency breakdown (or time per stage), stage utilisation, CPU, metrics and systems."""
        metrics, units = prediction.metrics, prediction.units
        self._use_layout("pipeline")
        self.stage_time_chart.setLabel("bottom", "ms")
        systems, note, warn = (), "", False
        if prediction.kind == "qrep" and any(_is_system_metric(k) for k in metrics):
            from engine.perf.qrep.systems import systems_of
            from engine.scenario import flow_differences
            from engine.two_way_note import symmetry_note

            systems = systems_of(metrics, project)
            if project is not None:
                note, warn = symmetry_note(project), bool(flow_differences(project))
        limit = limit_of(prediction)
        self.headline.setText(pipeline_headline(metrics, units, systems, limit))
        self._show_latency(prediction)
        self.stage_chart.set_data(
            [s.name for s in prediction.stages],
            [s.utilisation for s in prediction.stages],
            None if limit.holds_offered else limit.stage,
        )
        self._show_cpu(metrics, systems)
        self._fill_table(metrics, units)
        self._show_systems(systems, note, warn)
        self._show_sql_comparison(metrics, units)

    def _show_latency(self, prediction) -> None:
        """The CAPTURE / Q / APPLY breakdown, or, for engines without one, the time per stage."""
        metrics, units = prediction.metrics, prediction.units
        has_latency = any(k in metrics for k in ("capture_latency_ms", "qlatency_ms", "apply_latency_ms"))
        self.latency_chart.set_data(["END2END"] if has_latency else [], [metrics] if has_latency else [])
        breakdown_kind = (
            prediction.kind == "qrep"
        )  # its latencies are missing only when queues grow without end
        self.latency_chart.set_title(
            "Latency breakdown (ms)"
            if has_latency
            else "No steady-state latency: the offered rate is above what the pipeline sustains"
            if breakdown_kind
            else f"No latency breakdown for {prediction.kind}",
            key=has_latency,
        )
        timed = [s for s in prediction.stages if isinstance(s.latency_ms, (int, float)) and s.latency_ms > 0]
        show_stage_times = not has_latency and not breakdown_kind and bool(timed)
        if show_stage_times:
            self.stage_time_chart.setTitle(
                f"Time per {timed[0].unit.split('/')[0] or 'unit'} by stage (ms)", size="9pt"
            )
            self.stage_time_chart.set_data(
                [stage_label(s.name) for s in timed], {"ms": [s.latency_ms for s in timed]}
            )
        elif not has_latency and not breakdown_kind:  # no stages: the metrics of the most common unit
            unit, names = main_unit_metrics(metrics, units)
            show_stage_times = bool(names)
            if names:
                self.stage_time_chart.setTitle(f"{prediction.kind} ({unit})", size="9pt")
                self.stage_time_chart.set_data(
                    [metric_label(n) for n in names], {unit: [metrics[n] for n in names]}
                )
        self.latency_stack.setCurrentIndex(1 if show_stage_times else 0)

    def _show_cpu(self, metrics: dict, systems: tuple) -> None:
        """CPU per row by system (two-way projects) or by side."""
        if systems:
            self.cpu_chart.setLabel("left", "us/row")
            self.cpu_chart.set_data(
                [s.label for s in systems],
                {legend: [s.get(f) or 0.0 for s in systems] for f, legend in SYSTEM_CPU_SERIES},
                key_title="CPU per row captured or applied, by system (us/row)",
            )
            return
        labels, values, unit = cpu_metrics(metrics)
        self.cpu_chart.setTitle(f"CPU ({unit})", size="9pt")
        self.cpu_chart.setLabel("left", unit)
        self.cpu_chart.set_data(labels, {unit: values})

    def _use_layout(self, kind: str) -> None:
        """Show the charts of ``kind``'s layout: ``pipeline``, ``db2-v8-storage`` or ``mq-mover``."""
        self.layout_kind = kind
        v8, mover = kind == "db2-v8-storage", kind == "mq-mover"
        self.latency_stack.setVisible(not v8)
        self.cpu_chart.setVisible(not (v8 or mover))
        self.stage_chart.setVisible(not (v8 or mover))
        self.storage_chart.setVisible(v8)
        self.sizing_chart.setVisible(v8 or mover)
        self.task_chart.setVisible(mover)
        self.headline.setWordWrap(True)  # a long headline wraps, never widens the window

    def _show_v8(self, prediction, project=None) -> None:
        """DBM1 storage V7 -> V8 by part and against the bar; CPU band and catalog time in the headline."""
        from engine.perf import db2v8

        metrics = prediction.metrics
        summary = _v8_summary(project)
        self._use_layout("db2-v8-storage")
        self.headline.setText(v8_headline(metrics, summary) or "<b>Predicted</b>")
        self._show_v8_parts(metrics, summary)
        lines = [(db2v8.BAR_MB, "2 GB bar", LIMIT)]
        region_mb = _n(metrics, "dbm1_region_mb")
        if region_mb is not None and region_mb < db2v8.BAR_MB:
            lines.append((region_mb, "extended region", style.NOTE_TEXT))
        self.sizing_chart.setTitle("DBM1 below the bar, V7 and V8, against the 2 GB bar (MB)", size="9pt")
        self.sizing_chart.set_unit("MB")
        self.sizing_chart.set_data(_v8_total_rows(prediction), lines)
        self._fill_table(metrics, prediction.units)
        self._show_systems((), "")

    def _show_v8_parts(self, metrics: dict, summary) -> None:
        """DBM1 storage below the bar by part: V7 and V8 from the project's ``summary``, else V8's metrics only."""
        from engine.perf import db2v8

        if summary is not None:
            parts = [(p.label, p.v7_mb, p.v8_mb) for p in summary.parts if p.v7_mb or p.v8_mb]
            parts.sort(key=lambda r: -max(r[1], r[2]))
            self.storage_chart.set_data(
                [r[0] for r in parts],
                {"V7": [r[1] for r in parts], "V8 (none: moved above)": [r[2] for r in parts]},
                key_title="DBM1 below the bar by part (MB)",
            )
            return
        totals = ("v8_headroom_mb", "v8_estimated_total_mb")
        names = [
            k
            for k in metrics
            if k.startswith("v8_") and k.endswith("_mb") and k not in totals and _n(metrics, k)
        ]
        names.sort(key=lambda k: -metrics[k])
        self.storage_chart.set_data(
            [db2v8.part_label(k[3:-3]) for k in names],
            {"V8 estimated": [metrics[k] for k in names]},
            key_title="DBM1 storage below the bar by part, V8 (MB)",
        )

    def _show_mover(self, prediction, project=None) -> None:
        """Time per message by stage, the buffer pool against the backlog, CPU per message by task."""
        from engine.perf.mq_bufferpool import buffers_mb

        metrics = prediction.metrics
        self._use_layout("mq-mover")
        limit = limit_of(prediction)
        self.headline.setText(
            mover_headline(metrics, limit.stage, limit.utilisation if limit.stage else None)
            or "<b>Predicted</b>"
        )
        timed = [s for s in prediction.stages if isinstance(s.latency_ms, (int, float)) and s.latency_ms > 0]
        self.stage_time_chart.setTitle("Time per message by stage (us)", size="9pt")
        self.stage_time_chart.setLabel("bottom", "us")
        self.stage_time_chart.set_data(
            [stage_label(s.name) for s in timed], {"us": [s.latency_ms * 1000.0 for s in timed]}
        )
        self.latency_stack.setCurrentIndex(1 if timed else 0)
        rows = []
        now = _n(metrics, "buffpool_buffers")
        if now is not None:
            rows.append(("BUFFPOOL now", 0.0, now, NOW, f"{now:,.0f} ({_whole(buffers_mb(now))} MB)"))
        for name, label in (
            ("buffers_to_hold_backlog", "the backlog"),
            ("buffers_to_hold_all_msgs", "every message (channel stopped)"),
        ):
            need = _n(metrics, name)
            if need is not None:
                colour = OK if now is not None and need <= now else OLD
                rows.append((label, 0.0, need, colour, f"{need:,.0f} ({_whole(buffers_mb(need))} MB)"))
        self.sizing_chart.setTitle(
            "BUFFPOOL now and to hold the backlog below the DWP start (4 KB buffers)", size="9pt"
        )
        self.sizing_chart.set_unit("4 KB buffers")
        self.sizing_chart.set_data(rows)
        tasks = [
            (key, label) for key, label in MOVER_TASKS if _n(metrics, f"{key}_cpu_us_per_msg") is not None
        ]
        cpu = [metrics[f"{k}_cpu_us_per_msg"] for k, _ in tasks]
        elapsed = [_n(metrics, f"{k}_elapsed_us_per_msg") or metrics[f"{k}_cpu_us_per_msg"] for k, _ in tasks]
        self.task_chart.set_data(
            [label for _, label in tasks],
            {"CPU": cpu, "elapsed": elapsed},
            key_title="CPU and elapsed time per message by task (us)",
        )
        self._fill_table(metrics, prediction.units)
        self._show_systems((), "")

    def _show_sql_comparison(self, metrics: dict, units: dict) -> None:
        """Show the "Q vs SQL Replication" tab when the prediction carries SQL Replication's figures."""
        index = self.tables.indexOf(self.sql_table)
        if self.sql_table.show_metrics(metrics, units):
            if index < 0:
                self.tables.addTab(self.sql_table, SQL_TAB_TITLE)
        elif index >= 0:
            self.tables.removeTab(index)

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

        rows = [
            (name, label, unit)
            for name, label, unit in FIGURES
            if any(s.get(name) is not None for s in systems)
        ]
        self.systems_table.setColumnCount(2 + len(systems))
        self.systems_table.setHorizontalHeaderLabels(["Figure", *(s.label for s in systems), "Unit"])
        for c, s in enumerate(systems):
            self.systems_table.horizontalHeaderItem(1 + c).setToolTip(
                f"{s.label} ({s.node_id})" if s.node_id else s.label
            )
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
        self.systems_note.setStyleSheet(
            f"font-size: {style.NOTE_PT}pt; color: {style.NOTE_TEXT if warn else style.MUTED};"
        )
        if index < 0:
            self.tables.addTab(self.systems_page, "Systems")
        if from_none:  # a two-way project just opened: its systems first
            self.tables.setCurrentWidget(self.systems_page)

    def _fill_table(self, metrics: dict, units: dict) -> None:
        """One row per metric: the catalogue's label, the value in a unit that suits it, the band."""
        from app.panels.tables import metric_cells, metric_item
        from engine.metrics.catalog import display_scale

        rows = [
            (k, v)
            for k, v in metrics.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and not _is_system_metric(k)
        ]
        self.table.setUpdatesEnabled(False)
        self.table.setRowCount(len(rows))
        for r, (name, value) in enumerate(rows):
            unit = units.get(name, "")
            kind = self.prediction.kind if self.prediction is not None else None
            self.table.setItem(r, 0, metric_item(name, kind))
            cell, unit_cell = metric_cells(name, value, unit)
            self.table.setItem(r, 1, cell)
            self.table.setItem(r, 2, unit_cell)
            band = (self.prediction.bands if self.prediction is not None else {}).get(name)
            factor = display_scale(value, unit)[0]
            self.table.setItem(
                r,
                3,
                QTableWidgetItem(
                    f"{format_number(band[0] * factor)} .. {format_number(band[1] * factor)}" if band else ""
                ),
            )
        for column in (1, 2, 3):  # once per fill, not once per cell (a knob change repaints in < 100 ms)
            self.table.resizeColumnToContents(column)
        self.table.setUpdatesEnabled(True)
