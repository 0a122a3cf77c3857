"""The Monitor view: imported monitor intervals overlaid on the engine's predictions, and a fit.

Journey 8 ("does the model match my system?"): import IBMQREP_CAPMON, IBMQREP_CAPQMON
and IBMQREP_APPLYMON CSV exports, see measured and predicted throughput and END2END
latency over time, fit the engine's coefficients to the intervals and read the error on
the intervals held out of the fit before trusting any what-if. The view runs its work in
its own background worker (progress and Cancel in the view), so it never blocks a
simulation or sweep in the window's worker.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidgetItem,
    QWidget,
)

from app import style
from app.charts import LineChart
from app.panels.results import format_number
from app.panels.tables import add_grid, message_label, panel_column, read_only_table
from app.worker import TaskRunner
from engine.errors import QrtuneError
from engine.metrics import label as metric_label
from engine.monitor.timing import timing_label

#: (metric, chart title, unit) overlaid measured against predicted.
OVERLAID = (
    ("apply_rows_per_s", "ROWS_APPLIED per second", "rows/s"),
    ("end2end_latency_ms", "END2END_LATENCY", "ms"),
)


def fit_counts_text(fit, n_intervals: int, holdout_every: int) -> str:
    """How many intervals the fit used and held out, and why these numbers.

    ``Fitted on 300 intervals, 252 held out`` of 1,008 reads: every 4th interval (252) is held out
    for judging the fit; of the other 756 at most :data:`engine.calibrate.fit.MAX_INTERVALS` are fitted, evenly
    spaced in time, since every fit iteration predicts each fitted interval once per coefficient.
    """
    n_fit_all = getattr(fit, "n_fit_total", fit.n_fit) or fit.n_fit
    n_held_all = getattr(fit, "n_holdout_total", fit.n_holdout) or fit.n_holdout
    text = (
        f"Fitted on <b>{fit.n_fit:,}</b> intervals, <b>{fit.n_holdout:,}</b> held out, of {n_intervals:,}: "
        f"every {holdout_every}th interval ({n_held_all:,}) is held out of the fit to judge it"
    )
    if fit.n_fit < n_fit_all or fit.n_holdout < n_held_all:
        text += (
            f"; of the other {n_fit_all:,}, {fit.n_fit:,} evenly spaced in time are fitted (each fit step "
            "predicts every fitted interval once per coefficient)"
        )
    return text


#: What the view says before anything is imported or shown.
START_TEXT = "Import a week of monitor exports to see how well the engine matches your system."


def budget_text(fit) -> str:
    """Whether the fit stopped at its budget (:attr:`engine.calibrate.fit.FitResult.stopped_at`); empty when it converged."""
    stopped_at = getattr(fit, "stopped_at", "")
    if not stopped_at:
        return ""
    return (
        f"<b style='color:{style.NOTE_TEXT}'>The fit stopped at its budget</b> after {stopped_at}: "
        "these are the best coefficients it found until then. "
    )


def bound_text(fit) -> str:
    """The fit's coefficients at a bound of their range and what that means; empty when none is."""
    hits = list(fit.at_bound())
    if not hits:
        return ""
    from engine.calibrate.fit import AT_BOUND_ADVICE

    return f" <span style='color:{style.NOTE_TEXT}'>At a bound: <b>{', '.join(hits)}</b>. {AT_BOUND_ADVICE}</span>"


class MonitorView(QWidget):
    """Import, overlay, fit.

    Parameters
    ----------
    project_fn : callable
        Returns the open project.
    db_path_fn : callable
        Returns the run store path.

    Signals
    -------
    recorded()
        A fit or an import was written to the store.
    """

    recorded = Signal()

    def __init__(self, project_fn, db_path_fn, parent=None):
        super().__init__(parent)
        self.project_fn, self.db_path_fn = project_fn, db_path_fn
        self.tasks = TaskRunner(self)
        self.outcome = None
        layout = panel_column(self)
        row = QHBoxLayout()
        self.import_button = QPushButton("Import monitor CSVs...")
        self.import_button.setToolTip(
            "CSV exports of IBMQREP_CAPMON, IBMQREP_CAPQMON and IBMQREP_APPLYMON, "
            "imported for the open project"
        )
        self.show_button = QPushButton("Show")
        self.show_button.setToolTip("Overlay the intervals already imported for this project")
        self.fit_button = QPushButton("Fit to the intervals")
        self.holdout = QSpinBox()
        self.holdout.setRange(2, 20)
        self.holdout.setValue(4)
        self.holdout.setPrefix("hold out every ")
        self.holdout.setSuffix("th")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setMaximumWidth(160)
        self.progress.hide()
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.hide()
        for w in (self.import_button, self.show_button):
            row.addWidget(w)
        row.addStretch(1)
        fit_row = QHBoxLayout()  # two rows: the view fits a narrow window (150% scaling)
        for w in (self.fit_button, self.holdout):
            fit_row.addWidget(w)
        fit_row.addStretch(1)
        fit_row.addWidget(self.progress)
        fit_row.addWidget(self.cancel_button)
        layout.addLayout(row)
        layout.addLayout(fit_row)
        self.status = message_label(START_TEXT)
        layout.addWidget(self.status)
        self.summary = message_label(rich=True)
        layout.addWidget(self.summary)
        self.charts = {
            m: LineChart(title, "hours from the first interval", unit) for m, title, unit in OVERLAID
        }
        self.coefficients = read_only_table(
            ["Coefficient", "Unit", "Before", "Fitted", "Change"], resize_to_contents=True
        )
        self.errors = read_only_table(
            ["Held-out error (median)", "Before", "After", "After, fitted without the timing columns"],
            stretch_column=0,
        )
        add_grid(layout, [list(self.charts.values()), [self.coefficients, self.errors]])
        self.import_button.clicked.connect(self._import_dialog)
        self.show_button.clicked.connect(lambda: self.run())
        self.fit_button.clicked.connect(lambda: self.run(fit=True))
        self.cancel_button.clicked.connect(self.tasks.cancel)
        self.tasks.progress.connect(
            lambda f, t: (self.progress.setValue(int(f * 1000)), self.status.setText(t))
        )
        self.tasks.finished.connect(self._finished)
        self.tasks.failed.connect(self._failed)
        self.tasks.cancelled.connect(self._cancelled)

    # -- running ----------------------------------------------------------------------------
    def _import_dialog(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self, "Import monitor exports", "", "Monitor exports (*.csv *.del *.txt);;All (*)"
        )
        if files:
            self.run(files)

    def run(self, files=(), fit: bool = False) -> bool:
        """Import ``files`` (if any), predict every interval and, with ``fit``, fit; in the background."""
        from app.monitoring import monitor_task

        if self.tasks.busy():
            self.status.setText("Still working; cancel it first.")
            return False
        try:
            fn = monitor_task(self.project_fn(), self.db_path_fn(), list(files), fit, self.holdout.value())
        except QrtuneError as e:
            self.status.setText(str(e))
            return False
        self._busy(True)
        return self.tasks.start("Monitor", fn)

    def shutdown(self) -> None:
        """Stop the worker (the window is closing)."""
        if self.tasks.busy():
            self.tasks.cancel()
            self.tasks.wait(10000)

    def _busy(self, busy: bool) -> None:
        for w in (self.import_button, self.show_button, self.fit_button):
            w.setEnabled(not busy)
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setValue(0)

    def _failed(self, message: str) -> None:
        self._busy(False)
        self.status.setText(message.splitlines()[0])

    def _cancelled(self) -> None:
        self._busy(False)
        self.status.setText("Cancelled.")

    def _finished(self, outcome) -> None:
        self._busy(False)
        self.show_outcome(outcome)
        if outcome.imported_rows or outcome.fit_id is not None:
            self.recorded.emit()

    # -- showing -------------------------------------------------------------------------------
    def clear(self) -> None:
        """Back to the view as it starts (another project was opened): no overlay, no fit; a running task is cancelled."""
        if self.tasks.busy():
            self.tasks.cancel()
        self.outcome = None
        self.status.setText(START_TEXT)
        self.summary.clear()
        for chart in self.charts.values():
            chart.set_series({})
        self.coefficients.setRowCount(0)
        self.errors.setRowCount(0)

    def show_outcome(self, outcome) -> None:
        """Overlay measured and predicted values and show the fit of a :class:`app.monitoring.MonitorOutcome`."""
        self.outcome = outcome
        ivs = outcome.intervals
        imported = f"Imported {outcome.imported_rows} rows. " if outcome.imported_rows else ""
        if not ivs:
            self.status.setText(imported + "No monitor intervals are imported for this project yet.")
            self.summary.clear()
            for chart in self.charts.values():
                chart.set_series({})
            return
        t0 = ivs[0].monitor_time
        hours = [(iv.monitor_time - t0).total_seconds() / 3600.0 for iv in ivs]
        shown = f", {len(ivs):,} evenly spaced in time shown" if len(ivs) < outcome.n_intervals else ""
        self.status.setText(
            f"{imported}{outcome.n_intervals:,} intervals from {', '.join(outcome.tables)} "
            f"({ivs[0].monitor_time:%Y-%m-%d %H:%M} to {ivs[-1].monitor_time:%Y-%m-%d %H:%M}{shown})."
        )
        for metric, chart in self.charts.items():
            series = {
                "measured": (hours, [iv.measured.get(metric, math.nan) for iv in ivs]),
                "predicted": (hours, [p.get(metric, math.nan) for p in outcome.predicted]),
            }
            if outcome.fitted:
                series["predicted, fitted"] = (hours, [p.get(metric, math.nan) for p in outcome.fitted])
                held = [k for k, h in enumerate(outcome.held_out) if h]
                series["measured, held out"] = (
                    [hours[k] for k in held],
                    [ivs[k].measured.get(metric, math.nan) for k in held],
                )
            chart.set_series(series, unit="ms" if metric.endswith("_ms") else None)  # 1e6 ms reads 17 min
            if "measured, held out" in chart.curves:  # points only: the intervals the fit never saw
                chart.curves["measured, held out"].setPen(None)
                chart.curves["measured, held out"].setSymbol("o")
        self._show_fit(outcome.fit)

    def _show_coefficient(self, row: int, fit, name: str, before: float) -> None:
        """One row of the coefficients table; a coefficient fitted to a bound of its range is in the
        note colour, the bound and the range in its tooltip (the summary names it too)."""
        after = fit.fitted[name]
        hit = fit.bound_hit(name)
        change = f"{100 * (after - before) / before:+.1f}%" if before else ""
        cells = (name, fit.units.get(name, ""), format_number(before), format_number(after), change)
        for c, text in enumerate(cells):
            item = QTableWidgetItem(text)
            if c >= 2:
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            if hit:
                low, high = fit.bounds[name]
                item.setForeground(QColor(style.NOTE_TEXT))
                item.setToolTip(
                    f"Fitted to the {hit} bound: {name} ranges from {format_number(low)} to "
                    f"{format_number(high)} {fit.units.get(name, '')}"
                )
            self.coefficients.setItem(row, c, item)

    def _show_fit(self, fit) -> None:
        self.coefficients.setRowCount(0)
        self.errors.setRowCount(0)
        if fit is None:
            self.summary.setText(
                "Press <b>Fit to the intervals</b> to fit the engine's coefficients and see the "
                "error on intervals held out of the fit."
            )
            return
        b, a = fit.before, fit.after
        self.summary.setText(
            fit_counts_text(fit, self.outcome.n_intervals, self.holdout.value())
            + f" (fit #{self.outcome.fit_id}). "
            + budget_text(fit)
            + f"Error on the held-out intervals (mean over metrics of the median absolute %): "
            f"<b>{b['mean_metric_pct']:.1f}%</b> with the published coefficients, "
            f"<b style='color:{style.GOOD}'>{a['mean_metric_pct']:.1f}%</b> fitted." + bound_text(fit)
        )
        self.coefficients.setRowCount(len(fit.base))
        for r, (name, before) in enumerate(fit.base.items()):
            self._show_coefficient(r, fit, name, before)
        metrics = list(b["by_metric"])
        without = (fit.without_timing.get("after") or {}).get("by_metric", {})
        self.errors.setRowCount(len(metrics))
        for r, metric in enumerate(metrics):
            after, plain = a["by_metric"].get(metric), without.get(metric)
            for c, text in enumerate(
                (
                    timing_label(metric) or metric_label(metric),
                    f"{b['by_metric'][metric]:.1f}%",
                    "" if after is None else f"{after:.1f}%",
                    "" if plain is None else f"{plain:.1f}%",
                )
            ):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.errors.setItem(r, c, item)
