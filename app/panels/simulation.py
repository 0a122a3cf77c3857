"""The simulation view: workload and outage settings, queue depth and latency over time, the summary."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QSplitter,
    QTabWidget,
    QToolButton,
    QWidget,
)

from app import style
from app.charts import SpecLineChart
from app.panels.results import format_number
from app.panels.tables import (
    add_grid,
    message_label,
    metric_cells,
    metric_item,
    panel_column,
    read_only_table,
)
from engine.errors import QrtuneError
from engine.report.sim_charts import event_spans, simulation_charts

#: Charts keep at least this height (px), enough to read them; the results scroll below it.
CHART_MIN_HEIGHT_PX = 230
#: Share of the view's height the shown forms take at most (their fields scroll beyond it).
FORMS_SHARE = 0.38
#: What the view says before its first simulation.
START_TEXT = "Simulate the open project over time: bursts, outages, backlog and catch-up."


def parse_duration_s(text: str) -> float:
    """``600``, ``90s``, ``10m``, ``1h`` -> seconds (the simulator's own parser).

    Raises
    ------
    FieldError
        With a message naming the text and the allowed forms.
    """
    from engine.sim.events import parse_duration_s as parse

    value = parse(text, "duration")
    if value <= 0:
        from engine.errors import FieldError

        raise FieldError("duration", text, "a time above 0 such as 600, 90s, 20m or 1h")
    return value


class SimulationView(QWidget):
    """Simulation settings (duration, seed, the project's load profile and outage events) and results.

    Parameters
    ----------
    document : app.document.Document, optional
        The open project, whose load profile and events the forms edit; without one the view
        only shows outcomes.

    Signals
    -------
    run_requested(float, int, list)
        Duration in s, seed, the project's events in the command line's form.
    """

    run_requested = Signal(float, int, list)

    def __init__(self, document=None, parent=None):
        super().__init__(parent)
        self.document = document
        layout = panel_column(self)
        row = QHBoxLayout()
        self.duration = QLineEdit("10m")
        self.duration.setMaximumWidth(80)
        self.duration.setToolTip("Simulated time: 600, 90s, 20m, 1h or 24h")
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setValue(1)
        self.run_button = QPushButton("Simulate")
        for w in (QLabel("Duration"), self.duration, QLabel("Seed"), self.seed):
            row.addWidget(w)
        self.forms_button = QToolButton()
        self.forms_button.setCheckable(True)
        self.forms_button.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.forms_button.setToolTip(
            "Show or hide the load profile and the outage events (the charts take the room)"
        )
        self.forms_button.toggled.connect(self.show_forms)
        row.addWidget(self.forms_button)
        row.addStretch(1)
        row.addWidget(self.run_button)
        layout.addLayout(row)
        self.split = split = QSplitter(Qt.Vertical)
        split.setChildrenCollapsible(False)
        layout.addWidget(split, 1)
        self.profile_editor = self.events_editor = None
        self.forms = None
        if document is not None:
            self.forms = self._setup_forms(document)
            split.addWidget(self.forms)
        self.forms_button.setVisible(self.forms is not None)
        results = QWidget()
        column = panel_column(results)
        column.setContentsMargins(0, 0, 0, 0)
        self.status = message_label(START_TEXT)
        column.addWidget(self.status)
        self.headline = message_label(rich=True)
        self.headline.hide()
        column.addWidget(self.headline)
        self.depth_chart = SpecLineChart("Queue depth")
        self.latency_chart = SpecLineChart("Latency over time")
        self.rate_chart = SpecLineChart("Rows per second over time")
        self.castout_chart = SpecLineChart("Messages read back from the page set")
        for chart in self.charts().values():  # as tall as the room allows, never below readable
            chart.setMinimumHeight(CHART_MIN_HEIGHT_PX)
            chart.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Ignored)
        self.summary = read_only_table(["Summary", "Value", "Unit"], stretch_column=0)
        self.lower = QTabWidget()
        self.lower.setDocumentMode(True)
        self.lower.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Ignored)
        self.lower.addTab(self.summary, "Summary")
        self.lower.addTab(self.castout_chart, "Page set")
        add_grid(column, [[self.depth_chart, self.latency_chart], [self.rate_chart, self.lower]])
        scroll = QScrollArea()  # the charts never squashed: with the forms shown the results scroll
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        scroll.setWidget(results)
        split.addWidget(scroll)
        split.setStretchFactor(split.count() - 1, 1)
        self.show_forms(True)
        self.run_button.clicked.connect(self._run)
        self.outcome = None

    def _setup_forms(self, document) -> QWidget:
        """The load profile and outage event forms side by side, scrolling when the window is short."""
        from app.panels.load_profile import ProfileEditor
        from app.panels.outage_events import EventsEditor

        body = QWidget()
        row = QHBoxLayout(body)
        row.setContentsMargins(0, 0, 0, 0)
        self.profile_editor = ProfileEditor(document)
        self.events_editor = EventsEditor(document)
        row.addWidget(self.profile_editor, 1, Qt.AlignTop)
        row.addWidget(self.events_editor, 1, Qt.AlignTop)
        self.forms_body = body
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setWidget(body)
        scroll.setMinimumHeight(120)
        return scroll

    def charts(self) -> dict[str, SpecLineChart]:
        """The charts by kind (:data:`engine.report.sim_charts.KINDS`)."""
        return {
            "depth": self.depth_chart,
            "latency": self.latency_chart,
            "rate": self.rate_chart,
            "castout": self.castout_chart,
        }

    def show_forms(self, shown: bool) -> None:
        """Show the load profile and outage forms (as tall as their fields), or hide them: the charts
        take the room (at 1280x800 they are too short to read under the forms)."""
        if self.forms is None:
            return
        self.forms_button.blockSignals(True)
        self.forms_button.setChecked(shown)
        self.forms_button.blockSignals(False)
        self.forms_button.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
        self.forms_button.setText("Load profile and outages" + ("" if shown else f": {self.forms_summary()}"))
        self.forms.setVisible(shown)
        if shown:  # as tall as their fields, up to a share of the view (they scroll beyond it)
            room_px = self.split.height() if self.split.height() > 100 else 10_000
            forms_px = min(self.forms_body.sizeHint().height() + 2, max(120, int(FORMS_SHARE * room_px)))
            self.split.setSizes([forms_px, max(room_px - forms_px, 1)])

    def forms_summary(self) -> str:
        """What the hidden forms hold, in a few words: ``steady workload, 1 event``."""
        if self.document is None:
            return ""
        sim = self.document.project.simulation
        n = len(sim.events)
        profile = "the project's workload" if sim.profile is None else "a load profile"
        return f"{profile}, {n} event{'s' if n != 1 else ''}"

    def event_texts(self) -> list[str]:
        """The project's events in the command line's form (none without a document)."""
        return self.document.project.simulation.event_texts() if self.document is not None else []

    def _run(self) -> None:
        try:
            duration = parse_duration_s(self.duration.text())
        except (ValueError, QrtuneError) as e:
            self.status.setText(str(e))
            self.duration.setStyleSheet(f"border: 2px solid {style.BOTTLENECK};")
            return
        self.duration.setStyleSheet("")
        self.run_requested.emit(duration, int(self.seed.value()), self.event_texts())

    def show_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)

    def clear(self) -> None:
        """Back to the view as it starts (another project was opened): no outcome, charts or summary."""
        self.outcome = None
        for chart in self.charts().values():
            chart.show_chart(None)
        self.show_forms(True)
        self.summary.setRowCount(0)
        self.headline.clear()
        self.headline.hide()
        self.status.setText(START_TEXT)

    def show_message(self, text: str) -> None:
        self.status.setText(text)

    def show_outcome(self, outcome) -> None:
        """Plot a :class:`app.simadapter.SimulationOutcome` (:func:`engine.report.sim_charts.simulation_charts`,
        as a report of the run draws it); the forms fold away so the charts have the room."""
        self.outcome = outcome
        specs = simulation_charts(
            outcome.timeseries,
            event_spans(getattr(outcome, "events", ()) or ()),
            getattr(outcome, "buffer_pool_msgs", None),
        )
        for kind, chart in self.charts().items():
            chart.show_chart(specs[kind])
        self.show_forms(False)
        rows = [(k, v) for k, v in outcome.metrics.items() if isinstance(v, (int, float))]
        self.summary.setRowCount(len(rows))
        for r, (k, v) in enumerate(rows):
            cell, unit = metric_cells(k, v, outcome.units.get(k, ""))
            for c, item in enumerate((metric_item(k), cell, unit)):
                self.summary.setItem(r, c, item)
        run = f" (run #{outcome.run_id})" if outcome.run_id is not None else ""
        self.status.setText(f"Simulated in {outcome.elapsed_s:.2f} s{run}.")
        text = headline(outcome)
        self.headline.setText(text)
        self.headline.setVisible(bool(text))


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.2f} h"


def buffer_pool_note(outcome) -> str:
    """When the transmit queue outgrew its buffer pool: that BUFFPOOL and READ_AHEAD act in this run,
    although the inspector's notes (the steady-state prediction, where no backlog builds) may say
    they have no effect; "" otherwise."""
    m = outcome.metrics
    pool = getattr(outcome, "buffer_pool_msgs", None)
    peak = m.get("peak_xmitq_depth_msgs")
    if not pool or peak is None or peak <= pool:
        return ""
    read_back = m.get("pageset_msgs")
    back = f"; {format_number(read_back)} messages were read back from the page set" if read_back else ""
    return (
        f"The transmit queue outgrew its buffer pool (peak {format_number(peak)} messages, the pool holds "
        f"{format_number(pool)}){back}: BUFFPOOL and READ_AHEAD act in this run, whatever the inspector's "
        "notes of the steady state say"
    )


def headline(outcome) -> str:
    """What the user came for, as rich text: each event's peak backlog and catch-up time (the time,
    after the event ends, to apply everything in flight: the recovery time to promise), and a warning
    when the workload is at the predicted capacity, where no backlog can ever drain."""
    m = outcome.metrics
    lines = []
    for ev in getattr(outcome, "events", ()) or ():
        from engine.sim.events import EVENT_LABELS

        kind = ev.get("kind") or ev.get("type") or "event"
        name = EVENT_LABELS.get(kind, kind.replace("_", " "))
        start, end = ev.get("start_s"), ev.get("end_s")
        when = (
            f" at {_duration(start)} for {_duration(end - start)}"
            if start is not None and end is not None
            else ""
        )
        peak = ev.get("peak_backlog_rows")
        text = (
            f"<b>{name}{when}</b>: peak backlog {format_number(peak)} rows"
            if peak is not None
            else f"<b>{name}</b>"
        )
        if ev.get("catch_up_s") is not None:
            text += (
                f"; <b style='color:{style.GOOD}'>caught up {_duration(ev['catch_up_s'])}</b> after it ended"
            )
        else:
            left = m.get("rows_in_flight_at_end")
            text += f"; <b style='color:{style.BOTTLENECK}'>not caught up by the end of the run</b>" + (
                f" ({format_number(left)} rows still in flight)" if left is not None else ""
            )
        lines.append(text)
    drain = m.get("in_flight_drain_s")
    if drain is not None:
        from engine.metrics import format_metric

        lines.insert(
            0,
            f"<b>Planned switch-over</b>: stop the source at the end of this run and everything in "
            f"flight is applied in <b style='color:{style.GOOD}'>{format_metric('in_flight_drain_s', drain)}"
            "</b>: the recovery time to promise under this workload",
        )
    overflow = buffer_pool_note(outcome)
    if overflow:
        lines.append(overflow)
    offered = m.get("offered_rows_per_s")
    if lines and getattr(outcome, "drive_to_maximum", False) and offered:
        lines.append(
            f"<span style='color:{style.NOTE_TEXT_SOFT}'>No offered rate is set, so the workload runs at the predicted "
            f"capacity ({format_number(offered)} rows/s) and a backlog cannot drain: set "
            "the source's Offered rows per second below it (or the Sweep tab's target rate) to see the catch-up.</span>"
        )
    return "<br>".join(lines)
