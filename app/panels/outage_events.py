"""The outage events form: channel stops, Q Apply stops, target slow-downs and Db2 Mirror suspends.

One row per event of the project's :attr:`engine.model.Project.simulation`, with its kind, start,
length and (for a slow-down) the target's speed; every change goes to the document as one undo
step and is saved in the project file. The kinds offered are those the project's topology can
simulate (Db2 Mirror suspends only on a Db2 Mirror pair).
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHeaderView,
    QTableWidget,
    QVBoxLayout,
)

from app.document import Document
from app.panels.fields import add_remove_row
from app.panels.load_profile import SimulationForm, time_edit
from engine.errors import FieldError
from engine.outage_events import EVENT_LABELS, parse_duration_s

#: The form's columns.
COLUMNS = ("Event", "Starts at", "Lasts", "Speed")
#: Labels of the fields the engine's messages name.
FIELD_LABELS = {"kind": "Event", "start_s": "Starts at", "duration_s": "Lasts", "factor": "Speed"}
#: Most events the table shows without scrolling.
VISIBLE_ROWS = 4
#: A new event: the MQ channel stopped 2 minutes in, for 20 minutes (journey 4).
NEW_EVENT = {"start_s": 120.0, "duration_s": 1200.0}


def event_kinds(topology: str) -> list[str]:
    """The event kinds a project of ``topology`` can simulate."""
    if topology == "db2-mirror-pair":
        return ["mirror_suspend"]
    return ["channel_stop", "apply_stop", "target_slow"]


def new_event(kind: str, after: dict | None = None) -> dict:
    """An event of ``kind``: 2 minutes in for 20 minutes, or just after ``after`` ends."""
    start = after["start_s"] + after["duration_s"] + 600.0 if after else NEW_EVENT["start_s"]
    return {
        "kind": kind,
        "start_s": start,
        "duration_s": NEW_EVENT["duration_s"],
        "factor": 0.5 if kind == "target_slow" else 0.0,
    }


class EventsEditor(SimulationForm):
    """The project's outage events as rows of fields (edits go to ``document``)."""

    def __init__(self, document: Document, parent=None):
        super().__init__("Outages and slow-downs", document, FIELD_LABELS, parent)
        self.shown: tuple | None = None
        layout = QVBoxLayout(self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setToolTip(
            "Times as 600, 90s, 20m or 1h from the start of the run; Speed is the target Db2's "
            "speed while it is slowed down (0.5: half speed)"
        )
        layout.addWidget(self.table)
        buttons, self.add_button, self.remove_button = add_remove_row("Add event", "Remove event")
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.add_button.clicked.connect(self.add_event)
        self.remove_button.clicked.connect(self.remove_event)
        document.project_changed.connect(lambda _old, _new: self.refresh())
        self.refresh()

    @property
    def events(self) -> list[dict]:
        """The project's events as plain data."""
        return [dict(e) for e in self.document.project.simulation.events]

    # -- showing ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Rebuild the rows from the project's events unless they are already shown."""
        events = self.document.project.simulation.events
        if events == self.shown:
            return
        self.shown = events
        kinds = event_kinds(self.document.project.topology)
        self.table.setRowCount(len(events))
        for row, event in enumerate(events):
            kind = QComboBox()
            for k in dict.fromkeys(kinds + [event["kind"]]):
                kind.addItem(EVENT_LABELS[k], k)
            kind.setCurrentIndex(kind.findData(event["kind"]))
            kind.activated.connect(lambda _i, r=row, box=kind: self.change(r, kind=box.currentData()))
            start, length = time_edit(event["start_s"]), time_edit(event["duration_s"])
            for edit in (start, length):
                edit.setMaximumWidth(edit.fontMetrics().horizontalAdvance("00000s") + 12)
            start.editingFinished.connect(lambda r=row, e=start: self._time_changed(r, "start_s", e.text()))
            length.editingFinished.connect(
                lambda r=row, e=length: self._time_changed(r, "duration_s", e.text())
            )
            speed = QDoubleSpinBox()
            speed.setRange(0.01, 1.0)
            speed.setSingleStep(0.1)
            speed.setKeyboardTracking(False)
            slow = event["kind"] == "target_slow"
            speed.setValue(event["factor"] if slow else 1.0)
            speed.setEnabled(slow)
            speed.setToolTip(
                "Target Db2 speed while slowed down (1: normal)" if slow else "A stop: nothing runs"
            )
            speed.valueChanged.connect(lambda v, r=row: self.change(r, factor=v))
            for col, widget in enumerate((kind, start, length, speed)):
                self.table.setCellWidget(row, col, widget)
        header = self.table.horizontalHeader()
        for col in range(1, len(COLUMNS)):  # times and speed as narrow as they read; the event takes the rest
            header.setSectionResizeMode(col, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        rows = max(2, min(len(events), VISIBLE_ROWS))  # the table as tall as its events, scrolling beyond
        self.table.setFixedHeight(
            header.sizeHint().height() + rows * self.table.verticalHeader().defaultSectionSize() + 4
        )

    # -- edits ----------------------------------------------------------------------------------
    def _time_changed(self, row: int, key: str, text: str) -> None:
        try:
            value = parse_duration_s(text, FIELD_LABELS[key])
        except FieldError as e:
            self._refused(f"{FIELD_LABELS[key]}: {e.value!r} is not allowed; expected {e.allowed}")
            return
        self.change(row, **{key: value})

    def change(self, row: int, **values) -> bool:
        """Change fields of event ``row`` (``kind``, ``start_s``, ``duration_s``, ``factor``)."""
        events = self.events
        if row >= len(events):
            return False
        event = {**events[row], **values}
        if "kind" in values:  # a stop has no speed; a slow-down starts at half speed
            event["factor"] = 0.5 if event["kind"] == "target_slow" else 0.0
        if event == events[row]:
            return True
        events[row] = event
        return self._commit(events, f"Change event {row + 1}: {EVENT_LABELS[event['kind']]}")

    def add_event(self) -> bool:
        """Add an event of the topology's first kind after the last one."""
        events = self.events
        kind = event_kinds(self.document.project.topology)[0]
        events.append(new_event(kind, events[-1] if events else None))
        return self._commit(events, f"Add event: {EVENT_LABELS[kind]}")

    def remove_event(self) -> bool:
        """Remove the selected event (the last when none is selected)."""
        events = self.events
        if not events:
            return False
        row = self.table.currentRow() if 0 <= self.table.currentRow() < len(events) else len(events) - 1
        gone = events.pop(row)
        return self._commit(events, f"Remove event: {EVENT_LABELS[gone['kind']]}")

    def _commit(self, events: list[dict], text: str) -> bool:
        return self.edit(text, events=tuple(events))
