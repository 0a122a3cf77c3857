"""The load profile form: how many rows per second the source commits over a simulated run.

The form edits the project's :attr:`engine.model.Project.simulation` profile through the document
(one undo step per change, saved in the project file): the project's own workload, a constant
rate, steps (typed, or imported from a CSV of ``t_s,rows_per_s``), a daily peak and quiet night,
or a batch window of large transactions. Each kind is a document of :mod:`engine.sim.profiles`.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app import style
from app.document import Document
from engine.errors import FieldError, QrtuneError
from engine.outage_events import duration_text, parse_duration_s

#: Kinds the form offers: profile kind (None: the project's workload) -> what the user reads.
PROFILE_KINDS = {
    None: "The project's workload",
    "constant": "Constant rate",
    "steps": "Steps (or a CSV file)",
    "bursts": "Daily peak and quiet night",
    "batch_window": "Batch window",
}
#: The fields of each kind: (key, label, what: rate, time or count, default).
PROFILE_FIELDS = {
    "constant": (("rows_per_s", "Rows per second", "rate", 2000.0),),
    "bursts": (
        ("base_rows_per_s", "Quiet rows per second", "rate", 200.0),
        ("burst_rows_per_s", "Peak rows per second", "rate", 5000.0),
        ("start_s", "Peak starts at", "time", 8 * 3600.0),
        ("burst_s", "Peak lasts", "time", 3600.0),
        ("period_s", "Peak repeats every", "time", 24 * 3600.0),
    ),
    "batch_window": (
        ("base_rows_per_s", "OLTP rows per second", "rate", 2000.0),
        ("start_s", "Batch starts at", "time", 600.0),
        ("duration_s", "Batch lasts", "time", 1200.0),
        ("batch_rows_per_s", "Batch rows per second", "rate", 20000.0),
        ("batch_rows_per_txn", "Rows per batch transaction", "count", 10000.0),
    ),
}
#: A new steps profile: a quiet first hour, then the day's rate (start s, rows/s).
DEFAULT_STEPS = [[0.0, 500.0], [3600.0, 2000.0]]
#: Labels of the fields the engine's messages name (the steps' own, too).
FIELD_LABELS = {key: label for fields in PROFILE_FIELDS.values() for key, label, _, _ in fields} | {
    "steps": "Steps",
    "kind": "Profile",
}


def default_profile(kind: str | None) -> dict | None:
    """A new profile document of ``kind`` (None: the project's workload) with the form's defaults."""
    if kind is None:
        return None
    if kind == "steps":
        return {"kind": "steps", "steps": [list(p) for p in DEFAULT_STEPS]}
    doc: dict = {"kind": kind}
    for key, _, what, default in PROFILE_FIELDS[kind]:
        doc[key] = int(default) if what == "count" else default
    return doc


def user_message(error: QrtuneError, labels: dict) -> str:
    """``error`` as the form's user reads it: the field by its label, never a settings path."""
    if not isinstance(error, FieldError):
        return str(error)
    key = error.path.rsplit(".", 1)[-1]
    return f"{labels.get(key, 'This value')}: {error.value} is not allowed; expected {error.allowed}"


def time_edit(seconds: float) -> QLineEdit:
    """A field holding a time as ``20m``, ``1h`` or ``90s`` (any of ``600``, ``90s``, ``20m``, ``1h`` is read)."""
    edit = QLineEdit(duration_text(seconds))
    edit.setToolTip("A time such as 600, 90s, 20m or 1h")
    edit.setMaximumWidth(90)
    return edit


def rate_spin(value: float, maximum: float = 1e7, suffix: str = " rows/s") -> QDoubleSpinBox:
    """A spin box of a rate (or count), whole numbers, committed when editing finishes."""
    spin = QDoubleSpinBox()
    spin.setRange(0.0, maximum)
    spin.setDecimals(0)
    spin.setGroupSeparatorShown(True)
    spin.setSuffix(suffix)
    spin.setKeyboardTracking(False)
    spin.setValue(value)
    return spin


class SimulationForm(QGroupBox):
    """A form of the project's simulation setup: its edits and the line that says why one was refused.

    Parameters
    ----------
    title : str
        The group's title.
    document : Document
        The open project.
    labels : dict
        Field key -> the label the form shows it under (what a refusal names).
    """

    def __init__(self, title: str, document: Document, labels: dict, parent=None):
        super().__init__(title, parent)
        self.document = document
        self.labels = labels
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {style.BOTTLENECK};")
        self.message.hide()

    def edit(self, text: str, **change) -> bool:
        """Set ``change`` (``profile=`` or ``events=``) in the project as one undo step named ``text``;
        a refused one is said under the form and nothing changes."""
        try:
            self.document.set_simulation(replace(self.document.project.simulation, **change), text)
        except QrtuneError as e:
            self._refused(user_message(e, self.labels))
            return False
        self.message.hide()
        self.refresh()
        return True

    def refresh(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def _refused(self, text: str) -> None:
        self.message.setText(text)
        self.message.show()


class ProfileEditor(SimulationForm):
    """The project's load profile as a form (edits go to ``document``, one undo step each)."""

    def __init__(self, document: Document, parent=None):
        super().__init__("Load profile", document, FIELD_LABELS, parent)
        self.shown: dict | None = None  # the profile document the form shows
        self._built = False
        layout = QVBoxLayout(self)
        self.kind = QComboBox()
        for kind, text in PROFILE_KINDS.items():
            self.kind.addItem(text, kind)
        self.kind.setToolTip("What the source commits over the simulated run")
        layout.addWidget(self.kind)
        self.pages = QStackedWidget()
        layout.addWidget(self.pages)
        layout.addWidget(self.message)
        self.editors: dict[str, dict[str, QWidget]] = {}
        self.page_of: dict[str | None, int] = {}
        for kind in PROFILE_KINDS:
            self.page_of[kind] = self.pages.addWidget(self._page(kind))
        self.kind.activated.connect(self._kind_chosen)
        document.project_changed.connect(lambda _old, _new: self.refresh())
        self.refresh()

    # -- building ----------------------------------------------------------------------------
    def _page(self, kind: str | None) -> QWidget:
        page = QWidget()
        if kind is None:
            note = QLabel(
                "The source's Offered rows per second (or, when none is set, the predicted capacity)."
            )
            note.setWordWrap(True)
            QVBoxLayout(page).addWidget(note)
            return page
        if kind == "steps":
            return self._steps_page(page)
        form = QFormLayout(page)
        form.setRowWrapPolicy(QFormLayout.WrapLongRows)
        editors = {}
        for key, label, what, default in PROFILE_FIELDS[kind]:
            if what == "time":
                editor = time_edit(default)
                editor.editingFinished.connect(self._commit_fields)
            else:
                editor = rate_spin(default, suffix=" rows/s" if what == "rate" else " rows")
                editor.setMinimum(1.0 if what == "count" else 0.0)
                editor.valueChanged.connect(self._commit_fields)
            form.addRow(label, editor)
            editors[key] = editor
        self.editors[kind] = editors
        return page

    def _steps_page(self, page: QWidget) -> QWidget:
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        self.steps = QTableWidget(0, 2)
        self.steps.setHorizontalHeaderLabels(["From", "Rows per second"])
        self.steps.verticalHeader().hide()
        self.steps.horizontalHeader().setStretchLastSection(True)
        self.steps.setToolTip("Each rate holds from its time to the next step's (times as 600, 90s, 20m, 1h)")
        self.steps.itemChanged.connect(lambda _item: self._commit_steps())
        layout.addWidget(self.steps)
        buttons = QHBoxLayout()
        self.add_step = QPushButton("Add step")
        self.remove_step = QPushButton("Remove step")
        self.import_csv = QPushButton("Import CSV...")
        self.import_csv.setToolTip("A CSV of t_s,rows_per_s: the rate holds from each time to the next")
        for b in (self.add_step, self.remove_step, self.import_csv):
            buttons.addWidget(b)
        layout.addLayout(buttons)
        self.add_step.clicked.connect(self._add_step)
        self.remove_step.clicked.connect(self._remove_step)
        self.import_csv.clicked.connect(lambda: self.import_file(self._ask_csv()))
        return page

    # -- showing the project's profile ------------------------------------------------------------
    def refresh(self) -> None:
        """Show the project's profile (after an edit, undo, redo or open) unless it is already shown."""
        doc = self.document.project.simulation.profile
        doc = dict(doc) if doc is not None else None
        if self._built and doc == self.shown:
            return
        self.shown, self._built = doc, True
        kind = doc.get("kind") if doc else None
        kind = kind if kind in PROFILE_KINDS else "steps"
        self.kind.setCurrentIndex(list(PROFILE_KINDS).index(kind))
        self.show_page(self.page_of[kind])
        self.message.hide()
        if kind == "steps":
            self._show_steps(doc.get("steps") or [])
        elif kind is not None:
            for key, editor in self.editors[kind].items():
                default = next(d for k, _, _, d in PROFILE_FIELDS[kind] if k == key)
                value = float(doc.get(key, default))
                editor.blockSignals(True)
                if isinstance(editor, QLineEdit):
                    editor.setText(duration_text(value))
                else:
                    editor.setValue(value)
                editor.blockSignals(False)

    def show_page(self, index: int) -> None:
        """Show the fields of page ``index``; the form is as tall as they are, not as the tallest page."""
        for i in range(self.pages.count()):
            policy = QSizePolicy.Preferred if i == index else QSizePolicy.Ignored
            self.pages.widget(i).setSizePolicy(policy, policy)
        self.pages.setCurrentIndex(index)
        self.pages.adjustSize()

    def _show_steps(self, steps: list) -> None:
        self.steps.blockSignals(True)
        self.steps.setRowCount(len(steps))
        for r, (t_s, rate) in enumerate(steps):
            when = QTableWidgetItem(duration_text(float(t_s)))
            value = QTableWidgetItem(f"{float(rate):,.0f}")
            value.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            self.steps.setItem(r, 0, when)
            self.steps.setItem(r, 1, value)
        self.steps.blockSignals(False)

    # -- edits -------------------------------------------------------------------------------------
    def _kind_chosen(self, index: int) -> None:
        kind = self.kind.itemData(index)
        current = self.document.project.simulation.profile
        if (current or {}).get("kind") == kind and kind is not None:
            return
        self.commit(default_profile(kind), f"Load profile: {PROFILE_KINDS[kind]}")

    def _commit_fields(self) -> None:
        kind = self.kind.currentData()
        doc: dict = {"kind": kind}
        for key, editor in self.editors[kind].items():
            if isinstance(editor, QLineEdit):
                label = FIELD_LABELS[key]
                try:
                    doc[key] = parse_duration_s(editor.text(), label)
                except FieldError as e:
                    self._refused(f"{label}: {e.value!r} is not allowed; expected {e.allowed}")
                    return
            else:
                doc[key] = int(editor.value()) if key == "batch_rows_per_txn" else editor.value()
        self.commit(doc, f"Load profile: {PROFILE_KINDS[kind]}")

    def _steps_from_table(self) -> list:
        steps = []
        for r in range(self.steps.rowCount()):
            when, rate = (self.steps.item(r, c).text() if self.steps.item(r, c) else "" for c in (0, 1))
            t_s = parse_duration_s(when, f"Step {r + 1} from")
            try:
                value = float(rate.replace(",", ""))
            except ValueError:
                raise FieldError(f"Step {r + 1} rows per second", rate, "a number >= 0") from None
            steps.append([t_s, value])
        return steps

    def _commit_steps(self) -> None:
        try:
            steps = self._steps_from_table()
        except FieldError as e:
            self._refused(f"{e.path}: {e.value!r} is not allowed; expected {e.allowed}")
            return
        self.commit({**(self.shown or {}), "kind": "steps", "steps": steps}, "Load profile: steps")

    def _add_step(self) -> None:
        steps = list((self.shown or {}).get("steps") or DEFAULT_STEPS)
        last_s, last_rate = steps[-1]
        self.commit({"kind": "steps", "steps": steps + [[last_s + 3600.0, last_rate]]}, "Add a load step")

    def _remove_step(self) -> None:
        steps = list((self.shown or {}).get("steps") or [])
        row = self.steps.currentRow() if self.steps.currentRow() >= 0 else len(steps) - 1
        if len(steps) > 1:
            self.commit({"kind": "steps", "steps": steps[:row] + steps[row + 1 :]}, "Remove a load step")

    def _ask_csv(self) -> str:
        path, _ = QFileDialog.getOpenFileName(self, "Import a load profile", "", "CSV files (*.csv)")
        return path

    def import_file(self, path: str) -> bool:
        """Import a CSV of ``t_s,rows_per_s`` as the steps of the profile (one undo step)."""
        if not path:
            return False
        from pathlib import Path

        from engine.load_profiles import from_csv

        try:
            doc = from_csv(path).to_json()
        except QrtuneError as e:
            self._refused(str(e))
            return False
        name = Path(path).name
        return self.commit(
            {"kind": "steps", "steps": doc["steps"], "source": name}, f"Import load profile {name}"
        )

    def commit(self, doc: dict | None, text: str) -> bool:
        """Make ``doc`` the project's profile; a refused one is said under the form (nothing changes)."""
        return self.edit(text, profile=doc)
