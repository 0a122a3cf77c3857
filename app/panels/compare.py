"""The compare view: runs side by side, the settings that differ, metric deltas, charts overlaid.

Runs of bidirectional and peer-to-peer projects also get a Systems table (each system's
figures in every run, with absolute and percent deltas: comparing a bidirectional run
with a peer-to-peer one shows what the triggers cost) and a chart of each system's CPU
per row by run.
"""

from __future__ import annotations

import json
import math

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QStyle,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import style
from app.charts import BarChart, HBarChart, LatencyBreakdownChart, LineChart
from app.comparison import ComparisonView, distinct_labels, setting_name
from app.panels.results import format_number
from app.panels.tables import panel_column
from engine.compare import mixed_engines_note
from engine.metrics import label as metric_label
from engine.metrics.catalog import delta_verdict, display_scale
from engine.metrics.stages import stage_label

#: What the view says before its first comparison.
START_TEXT = "Pick two or more runs in the Runs panel and press Compare selected."

#: The narrowest the metric names may get (px) to make room for every run's values and deltas.
MIN_NAME_PX = 110


#: Metrics shown as percent-delta bars when present (rates and latencies users compare first).
KEY_METRICS = (
    "apply_rows_per_s",
    "capture_rows_per_s",
    "throughput",
    "tps",
    "end2end_latency_ms",
    "apply_latency_ms",
    "qlatency_ms",
    "msg_size_kb",
    "capture_cpu_us_per_row",
    "apply_cpu_us_per_row",
    "response_time_ms",
    "peak_depth",
    "catch_up_s",
    "transfer_mb_per_s",
    # simulations
    "throughput_rows_per_s",
    "event1_catch_up_s",
    "peak_backlog_rows",
    "peak_xmitq_depth_msgs",
    "peak_recvq_depth_msgs",
    "end2end_latency_p95_ms",
)
#: Time series offered first for the overlay (the backlog and the latency users watch in an outage).
PREFERRED_SERIES = (
    "xmitq.depth_msgs",
    "end2end_latency_ms",
    "recvq.depth_msgs",
    "qapply.rows_per_s",
    "apply_latency_ms",
    "qlatency_ms",
)


#: Text colour of a delta that is an improvement (+1) or a deterioration (-1).
VERDICT_COLOURS = {1: style.GOOD, -1: style.BOTTLENECK}


def _colour_verdict(item: QTableWidgetItem, verdict: int) -> None:
    """Colour a delta cell green when it is an improvement, red when it is a deterioration."""
    if verdict in VERDICT_COLOURS:
        item.setForeground(QColor(VERDICT_COLOURS[verdict]))


#: A simulation's time series as the picker and the chart name them (the latencies by the catalogue).
SERIES_TITLES = {
    "source.rows_per_s": "Source rows/s",
    "qcapture.rows_per_s": "Q Capture rows/s",
    "qcapture.memory_bytes": "Q Capture memory (bytes)",
    "xmitq.depth_msgs": "Transmit queue depth (messages)",
    "mq_channel.msgs_per_s": "Channel messages/s",
    "mq_channel.rows_per_s": "Channel rows/s",
    "mq_pageset.msgs_per_s": "Read back from the transmit queue's page set (messages/s)",
    "recvq_pageset.msgs_per_s": "Read back from the receive queue's page set (messages/s)",
    "recvq.depth_msgs": "Receive queue depth (messages)",
    "qapply.rows_per_s": "Q Apply rows/s",
    "qapply.memory_bytes": "Q Apply memory (bytes)",
    "qapply.mem_full_s": "Q Apply memory full (s per interval)",
    "inflight.rows": "Rows in flight",
    "inflight.rows_avg": "Rows in flight (interval average)",
}


def series_label(name: str) -> str:
    """A simulation time series as a user reads it: ``Transmit queue depth (messages)`` for
    ``xmitq.depth_msgs``, ``END2END_LATENCY (ms)``, ``qapply_browser utilisation``."""
    if name in SERIES_TITLES:
        return SERIES_TITLES[name]
    owner, _, key = name.rpartition(".")
    if key == "utilisation":
        return f"{stage_label(owner)} utilisation"
    unit = "ms" if key.endswith("_ms") else ""
    text = f"{owner} {metric_label(key)}".strip()
    return f"{text} ({unit})" if unit else text


def _magnitude(values) -> float:
    """The largest absolute number among ``values`` (0 when there is none): it picks the row's display unit."""
    numbers = [
        abs(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    ]
    return max(numbers, default=0.0)


def _scaled(value, factor: float):
    """``value`` times ``factor`` when it is a number (the display unit), else as it is."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value * factor
    return value


def header_text(label: str) -> str:
    """A run's column title in lines: ``#19``, then each setting that sets it apart, a long name's value on
    a line of its own (``TRANS_BATCH_SZ`` over ``=3``)."""
    run, _, settings = label.partition(" ")
    lines = [run]
    for part in settings.split(", "):
        name, eq, value = part.partition("=")
        lines += [name, eq + value] if eq and len(part) > 12 else [part]
    return "\n".join(line for line in lines if line)


def delta_text(pct: float | None) -> str:
    """A percent delta as a user reads it: ``+200.0%``; ten times the reference and more as ``x1,772``."""
    if pct is None:
        return ""
    if pct >= 900.0:
        return f"x{format_number(1.0 + pct / 100.0)}"
    return f"{pct:+.1f}%"


def _fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return format_number(v)
    return json.dumps(v) if not isinstance(v, str) else v


class CompareView(QWidget):
    """Shows one :class:`~app.comparison.ComparisonView`."""

    def __init__(self, parent=None):
        super().__init__(parent)
        layout = panel_column(self)
        self.title = QLabel(START_TEXT)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        split = QSplitter(Qt.Vertical)
        tables = QSplitter(Qt.Vertical)  # full width each: values and deltas side by side at 1280x800
        self.settings_table = QTableWidget(0, 1)
        self.metrics_table = QTableWidget(0, 2)
        for t in (self.settings_table, self.metrics_table):
            # the row titles (setting, metric) are the vertical header: they stay put while the runs scroll
            t.verticalHeader().setDefaultAlignment(Qt.AlignLeft | Qt.AlignVCenter)
            t.verticalHeader().setTextElideMode(Qt.ElideRight)  # a name cut to fit ends in an ellipsis
            t.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
            t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
            t.setEditTriggers(QTableWidget.NoEditTriggers)
        box_s = QWidget()
        ls = QVBoxLayout(box_s)
        ls.setContentsMargins(0, 0, 0, 0)
        ls.addWidget(QLabel("<b>Settings that differ</b>"))
        ls.addWidget(self.settings_table)
        box_m = QWidget()
        lm = QVBoxLayout(box_m)
        lm.setContentsMargins(0, 0, 0, 0)
        lm.addWidget(QLabel("<b>Results</b> (delta against the first run)"))
        # bidirectional and peer-to-peer runs: each system's figures in a Systems tab next to the metrics
        self.systems_table = QTableWidget(0, 4)
        self.systems_table.verticalHeader().hide()
        self.systems_table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.systems_table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.result_tabs = QTabWidget()
        self.result_tabs.setDocumentMode(True)
        self.result_tabs.tabBar().setAutoHide(True)  # metrics only: no tab bar
        self.result_tabs.addTab(self.metrics_table, "Metrics")
        lm.addWidget(self.result_tabs)
        tables.addWidget(box_s)
        tables.addWidget(box_m)
        tables.setSizes([110, 400])
        self.tables = tables
        split.addWidget(tables)
        charts = QWidget()
        grid = QGridLayout(charts)
        grid.setContentsMargins(0, 0, 0, 0)
        self.latency_chart = LatencyBreakdownChart()
        self.delta_chart = HBarChart("Change against the first run (%)", "%")
        self.series_chart = LineChart("", "time (s)")
        self.series_pick = QComboBox()
        self.series_pick.setToolTip("The time series drawn for every run, overlaid")
        self.series_pick.currentIndexChanged.connect(lambda _: self._plot_series())
        self.series_box = QWidget()
        sb = QVBoxLayout(self.series_box)
        sb.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(QLabel("<b>Over time</b>, each run:"))
        row.addWidget(self.series_pick)
        row.addStretch(1)
        sb.addLayout(row)
        sb.addWidget(self.series_chart, 1)
        self.series_box.hide()
        self.systems_chart = BarChart("", "us/row")
        self.systems_chart.hide()
        # runs with time series (simulations) or systems (bidirectional, peer-to-peer): the overlay or each
        # system's CPU per row takes the latency breakdown's place
        grid.addWidget(self.latency_chart, 0, 0)
        grid.addWidget(self.series_box, 0, 0)
        grid.addWidget(self.systems_chart, 0, 0)
        grid.addWidget(self.delta_chart, 0, 1)
        split.addWidget(charts)
        split.setSizes([450, 300])
        layout.addWidget(split, 1)
        self.comparison: ComparisonView | None = None

    def show_message(self, text: str) -> None:
        self.title.setText(text)

    def clear(self) -> None:
        """Back to the view as it starts (another project was opened): no comparison on show."""
        self.comparison = None
        self.title.setText(START_TEXT)
        for table in (self.settings_table, self.metrics_table, self.systems_table):
            table.setRowCount(0)
        self.latency_chart.set_data([], [])
        self.delta_chart.set_data([], {})
        self.systems_chart.set_data([], {})
        self.series_pick.clear()
        self.series_chart.set_series({})

    def show_comparison(self, cmp: ComparisonView) -> None:
        """Fill tables and charts from ``cmp``: each run headed by the settings that set it apart (IBM's
        names), each value in the unit its row's magnitude reads best in, the deltas beside the values."""
        self.comparison = cmp
        kind = cmp.comparison.runs[0].scenario_kind  # the reference run's engine names the metrics
        note = mixed_engines_note(cmp.comparison.runs)
        labels = distinct_labels(cmp.comparison)
        runs = cmp.comparison.runs
        several = len({r.project_name for r in runs}) > 1  # runs of different projects: each one's named
        named = [f"{label} ({r.project_name})" if several else label for label, r in zip(labels, runs)]
        self.title.setText(
            f"Comparing {', '.join(named)}; deltas against {labels[0]}"
            + ("" if several else f", all of {runs[0].project_name}")
            + (f". Note: {note}" if note else "")
        )
        short = [f"#{i}" for i in cmp.run_ids]
        self._fill_settings(cmp, labels, kind)
        headers = ["Unit", labels[0]]
        for label in labels[1:]:
            headers += [label, "\u0394 %"]
        table = self.metrics_table
        table.setColumnCount(len(headers))
        # "#19" over "TRANS_BATCH_SZ" over "=3": narrow columns, every run's values and deltas side by side
        table.setHorizontalHeaderLabels([h if h in ("Unit", "\u0394 %") else header_text(h) for h in headers])
        table.setRowCount(len(cmp.metrics))
        table.setVerticalHeaderLabels([metric_label(m.metric, kind) for m in cmp.metrics])
        for r, m in enumerate(cmp.metrics):  # a name cut short to fit still reads whole on hover
            table.verticalHeaderItem(r).setToolTip(metric_label(m.metric, kind))
        for c, h in enumerate(headers):
            table.horizontalHeaderItem(c).setToolTip(h if h != "\u0394 %" else "change against the first run")
        for r, m in enumerate(cmp.metrics):
            factor, unit = display_scale(_magnitude(m.values), m.unit)
            cells = [unit, _fmt(_scaled(m.values[0], factor))]
            for v, pct in zip(m.values[1:], m.pct_delta[1:]):
                cells += [_fmt(_scaled(v, factor)), delta_text(pct)]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 1:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if headers[c] == "\u0394 %" and text:
                    pct = m.pct_delta[1 + (c - 2) // 2]
                    if pct is not None and abs(pct) >= 1:
                        _colour_verdict(item, delta_verdict(m.metric, pct))
                table.setItem(r, c, item)
        table.verticalHeader().setSectionResizeMode(QHeaderView.Fixed)
        self.fit_metric_columns()
        for t in (self.settings_table, table):  # a new comparison starts at its top left
            t.scrollToTop()
            t.horizontalScrollBar().setValue(0)
        self._systems(cmp, short)
        self._charts(cmp)

    def fit_metric_columns(self) -> None:
        """Every run's value and delta side by side within the table's width where they can be.

        The columns fit their contents and the metric names take at most a quarter of the view; when
        that is still wider than the table (three runs at 1280x800, or at 150%), the metric names give
        way first, down to :data:`MIN_NAME_PX` (each name whole in its tooltip), then the run titles,
        down to their values' width. Called on every comparison and every resize of the view.
        """
        table = self.metrics_table
        names = table.verticalHeader()
        self._fit_run_titles(None)  # whole titles first: the columns size to them where there is room
        table.resizeColumnsToContents()
        widths = [table.columnWidth(c) for c in range(table.columnCount())]
        values = [max(table.sizeHintForColumn(c), 24) for c in range(table.columnCount())]
        names_px = min(names.sizeHint().width(), max(150, self.width() // 4))
        scroll_px = table.verticalScrollBar().sizeHint().width() if table.rowCount() else 0
        room = table.width() - 2 * table.frameWidth() - scroll_px
        over = names_px + sum(widths) - room
        if over > 0:
            cut = min(over, max(0, names_px - MIN_NAME_PX))
            names_px, over = names_px - cut, over - cut
        spare = [w - v for w, v in zip(widths, values)]
        if over > 0 and sum(spare) > 0:  # the run titles give way, each in proportion to its spare width
            share = min(1.0, over / sum(spare))
            widths = [w - int(math.ceil(s * share)) for w, s in zip(widths, spare)]
        names.setFixedWidth(names_px)
        for c, w in enumerate(widths):
            table.setColumnWidth(c, w)
        self._fit_run_titles(widths)

    def _fit_run_titles(self, widths: list[int] | None) -> None:
        """Each run's column title whole where it fits its column (``widths`` in px; None: every title
        whole), else the run's number alone (``#19``): a title cut at both ends reads as another name.
        The whole title stays in the tooltip."""
        table = self.metrics_table
        metrics = table.horizontalHeader().fontMetrics()
        margin_px = 2 * table.style().pixelMetric(QStyle.PM_HeaderMargin) + 2
        for c in range(table.columnCount()):
            item = table.horizontalHeaderItem(c)
            title = item.toolTip() if item is not None else ""
            if not title.startswith("#"):  # Unit and the delta columns
                continue
            lines = header_text(title)
            widest_px = max(metrics.horizontalAdvance(line) for line in lines.splitlines()) + margin_px
            item.setText(lines if widths is None or widest_px <= widths[c] else title.partition(" ")[0])

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.comparison is not None:
            self.fit_metric_columns()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self.comparison is not None:
            self.fit_metric_columns()

    def _fill_settings(self, cmp: ComparisonView, labels: tuple, kind: str) -> None:
        """The settings that differ, by IBM's names (the node's path as a tooltip), one column per run."""
        self.settings_table.setColumnCount(len(labels))
        self.settings_table.setHorizontalHeaderLabels([label.partition(" ")[0] for label in labels])
        for c, label in enumerate(labels):
            self.settings_table.horizontalHeaderItem(c).setToolTip(label)
        self.settings_table.setRowCount(len(cmp.settings))
        names = []
        for r, diff in enumerate(cmp.settings):
            names.append(diff.name or setting_name(diff.path, kind))
            for c, v in enumerate(diff.values):
                item = QTableWidgetItem(_fmt(v))
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.settings_table.setItem(r, c, item)
        self.settings_table.setVerticalHeaderLabels(names)
        for r, diff in enumerate(cmp.settings):
            self.settings_table.verticalHeaderItem(r).setToolTip(diff.path)
        self.settings_table.resizeColumnsToContents()

    def _systems(self, cmp: ComparisonView, short: list) -> None:
        """The Systems table and chart (bidirectional, peer-to-peer runs); hidden when no run has systems."""
        rows = tuple(getattr(cmp.comparison, "systems", ()))
        index = self.result_tabs.indexOf(self.systems_table)
        if not rows:
            self.systems_table.setRowCount(0)
            self.systems_chart.set_data([], {})
            if index >= 0:
                self.result_tabs.removeTab(index)
            return
        if index < 0:
            self.result_tabs.addTab(self.systems_table, "Systems")
        self.result_tabs.setCurrentWidget(self.systems_table)
        total = sum(self.tables.sizes())
        if total > 0:  # the systems table is wide: give it most of the row
            self.tables.setSizes([int(total * 0.28), total - int(total * 0.28)])
        self._fill_systems_table(rows, short)
        self._chart_systems(rows, short)

    def _fill_systems_table(self, rows: tuple, short: list) -> None:
        """One row per system figure: each run's value and, after the first, its delta and delta %."""
        headers = ["System", "Figure", "Unit", short[0]]
        for label in short[1:]:
            headers += [label, "\u0394", "\u0394 %"]
        self.systems_table.setColumnCount(len(headers))
        self.systems_table.setHorizontalHeaderLabels(headers)
        self.systems_table.setRowCount(len(rows))
        for r, m in enumerate(rows):
            cells = [m.system, m.label, m.unit, _fmt(m.values[0])]
            for v, a, pct in zip(m.values[1:], m.abs_delta[1:], m.pct_delta[1:]):
                cells += [
                    _fmt(v),
                    "" if a is None else ("+" if a > 0 else "") + format_number(a),
                    "" if pct is None else f"{pct:+.1f}%",
                ]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c >= 3:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if headers[c].startswith("\u0394") and text:
                    _colour_verdict(item, delta_verdict(m.metric, float(text.rstrip("%").replace(",", ""))))
                self.systems_table.setItem(r, c, item)
        header = self.systems_table.horizontalHeader()
        for c in range(len(headers)):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)

    def _chart_systems(self, rows: tuple, short: list) -> None:
        """CPU per row captured or applied of each system in each run, one bar group per run and system."""
        from app.panels.results import SYSTEM_CPU_SERIES

        systems = list(dict.fromkeys(m.system for m in rows))
        by_key = {(m.system, m.metric.split("_", 1)[1]): m for m in rows}
        categories, series = [], {legend: [] for _, legend in SYSTEM_CPU_SERIES}
        for i, run_label in enumerate(short):
            for system in systems:
                categories.append(f"{run_label} {system}")
                for figure, legend in SYSTEM_CPU_SERIES:
                    m = by_key.get((system, figure))
                    series[legend].append((m.values[i] if m is not None else None) or 0.0)
        self.systems_chart.set_data(
            categories, series, key_title="CPU per row captured or applied, by run and system"
        )

    def _charts(self, cmp: ComparisonView) -> None:
        """The latency breakdown, the key deltas and the time series of the runs; the charts that apply shown."""
        by_name = {m.metric: m for m in cmp.metrics}
        self._show_latency(cmp, by_name)
        keys = [k for k in KEY_METRICS if k in by_name and by_name[k].values[0]][:8]
        deltas_pct = {
            f"#{cmp.run_ids[i]}": [by_name[k].pct_delta[i] or 0.0 for k in keys]
            for i in range(1, len(cmp.labels))
        }
        kind = cmp.comparison.runs[0].scenario_kind
        self.delta_chart.set_data(
            [metric_label(k, kind) for k in keys],
            deltas_pct,
            key_title="Change against the first run (%)",
        )  # keys in the title, not over bars
        names = self._offer_series(cmp)
        has_systems = bool(getattr(cmp.comparison, "systems", ()))
        self.series_box.setVisible(bool(names))
        self.systems_chart.setVisible(has_systems and not names)
        self.latency_chart.setVisible(not names and not has_systems)
        self._plot_series()

    def _show_latency(self, cmp: ComparisonView, by_name: dict) -> None:
        """CAPTURE / Q / APPLY latency of each run (none drawn when no run has them)."""
        parts = ("capture_latency_ms", "qlatency_ms", "apply_latency_ms")
        latency_ms = [
            {k: (by_name[k].values[i] if k in by_name else None) for k in parts}
            for i in range(len(cmp.labels))
        ]
        has_latency = any(v for d in latency_ms for v in d.values())
        self.latency_chart.set_data(
            [f"#{i}" for i in cmp.run_ids] if has_latency else [], latency_ms if has_latency else []
        )

    def _offer_series(self, cmp: ComparisonView) -> list:
        """Offer the time series the runs have (the usual ones first), keeping the one chosen; their names."""
        names = list(dict.fromkeys(n for run in cmp.data for n in getattr(run, "timeseries", {})))
        ordered = [n for n in PREFERRED_SERIES if n in names] + sorted(
            n for n in names if n not in PREFERRED_SERIES
        )
        self.series_pick.blockSignals(True)
        keep = self.series_pick.currentData()
        self.series_pick.clear()
        for name in ordered:  # the user reads the title; the series' key rides along
            self.series_pick.addItem(series_label(name), name)
        if keep in ordered:
            self.series_pick.setCurrentIndex(ordered.index(keep))
        self.series_pick.blockSignals(False)
        return ordered

    def _plot_series(self) -> None:
        """Overlay the chosen time series of every run that has it, one curve per run."""
        cmp, name = self.comparison, self.series_pick.currentData() or ""
        lines = {}
        if cmp is not None and name:
            for run_id, run in zip(cmp.run_ids, cmp.data):
                series = getattr(run, "timeseries", {})
                if name in series:
                    lines[f"#{run_id}"] = series[name]
        self.series_chart.setTitle(series_label(name) if name else "", size="9pt")
        self.series_chart.set_series(lines)
