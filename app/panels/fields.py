"""One editor widget per parameter type, generated from a :class:`~engine.registry.ParamSpec`.

Every field shows the value, emits :attr:`ParamField.committed` with what the
user entered (parsed as far as the text allows; the model does the checking)
and can show an inline error. Text the user typed stays in the field while it is
marked wrong, so no edit is lost.
"""

from __future__ import annotations

import json
import re
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
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

from app import style
from engine.metrics import knob_label, source_title
from engine.registry import ParamSpec

ERROR_STYLE = f"border: 2px solid {style.BOTTLENECK}; background: {style.FIELD_ERROR_BACKGROUND};"


def add_remove_row(add_text: str, remove_text: str) -> tuple[QHBoxLayout, QPushButton, QPushButton]:
    """A row of an Add and a Remove button (left-aligned) under a table; returns it and the buttons."""
    row = QHBoxLayout()
    add_button, remove_button = QPushButton(add_text), QPushButton(remove_text)
    row.addWidget(add_button)
    row.addWidget(remove_button)
    row.addStretch(1)
    return row, add_button, remove_button


def tooltip(spec: ParamSpec) -> str:
    """Help, allowed values, product default and the seed section, as rich text."""
    default = "null" if spec.default is None else json.dumps(spec.default)
    return (
        f"<b>{knob_label(spec.name)}</b>{' (' + spec.unit + ')' if spec.unit else ''}<br>{spec.help}<br>"
        f"<i>Allowed:</i> {spec.allowed()}<br><i>Default:</i> {default}<br>"
        f"<i>Source:</i> {source_title(spec.seed)}"
    )


def format_value(spec: ParamSpec, value: Any) -> str:
    """The text a line edit shows for ``value``."""
    if value is None:
        return ""
    if spec.type == "float":
        return f"{value:g}" if abs(value) < 1e15 else str(value)
    if spec.type == "int_pair":
        return f"{value[0]}, {value[1]}"
    return str(value)


#: A number written with thousands separators: 1,000 or -12,345.5 (Python's own int/float take 1_000).
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")


def parse_text(spec: ParamSpec, text: str) -> Any:
    """Turn typed text into the value to check; text that does not parse is passed on unchanged.

    An empty field means ``None`` (the model accepts it only for nullable knobs).
    """
    text = text.strip()
    if text == "":
        return None
    if spec.type in ("int", "float"):
        # commas only as thousands separators (1,000,000): "1,2,3" is not 123
        clean = text.replace(",", "") if _THOUSANDS.fullmatch(text) else text
        try:
            return int(clean)
        except ValueError:
            try:
                return float(clean)
            except ValueError:
                return text
    if spec.type == "int_pair":
        parts = [p.strip() for p in text.strip("[]").replace(";", ",").split(",")]
        try:
            return [int(p) for p in parts]
        except ValueError:
            return text
    return text


class ParamField(QWidget):
    """Base of the editors: a value widget and its unit, with an error line and a no-effect note.

    The error and the note live in :attr:`messages`, a widget of their own that the form places
    as a full-width row under the knob's label and value, so a long note reads across the
    panel instead of being squeezed into the value column.

    Signals
    -------
    committed(object)
        The user finished entering a value.
    """

    committed = Signal(object)

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.spec = spec
        self.shown_value: Any = object()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(1)
        self.row = QHBoxLayout()
        self.row.setSpacing(4)
        self._layout.addLayout(self.row)
        #: The error line and the no-effect note, shown under the form row (hidden when both are).
        self.messages = QWidget(self)  # until the form takes it into its own row
        lines = QVBoxLayout(self.messages)
        lines.setContentsMargins(0, 0, 0, 2)
        lines.setSpacing(1)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {style.BOTTLENECK}; font-size: {style.NOTE_PT}pt;")
        self.error_label.hide()
        lines.addWidget(self.error_label)
        #: Why the knob cannot change the live prediction (hidden when it can).
        self.note_label = QLabel()
        self.note_label.setWordWrap(True)
        self.note_label.setStyleSheet(f"color: {style.MUTED}; font-size: {style.NOTE_PT}pt;")
        self.note_label.hide()
        lines.addWidget(self.note_label)
        self.messages.hide()
        self.setToolTip(tooltip(spec))
        #: The widget taking the value (marked when the value is refused); set by each editor.
        self.editor: QWidget | None = None

    def place_editor(self, editor: QWidget) -> None:
        """Put ``editor``, the widget taking the value, in the row (with the width left), then the unit."""
        self.editor = editor
        self.row.addWidget(editor, 1)
        if self.spec.unit:
            unit = QLabel(self.spec.unit)
            unit.setMinimumWidth(unit.sizeHint().width())  # a unit is never cut ("MB", not "ME")
            self.row.addWidget(unit)

    @property
    def error(self) -> str:
        """The inline error shown, or ""."""
        return self.error_label.text() if not self.error_label.isHidden() else ""

    def show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.show()
        self.editor_widget().setStyleSheet(ERROR_STYLE)
        self._show_messages()

    def clear_error(self) -> None:
        self.error_label.clear()
        self.error_label.hide()
        self.editor_widget().setStyleSheet("")
        self._show_messages()

    def _show_messages(self) -> None:
        """Show the messages row while the error or the note has something to say."""
        self.messages.setVisible(not (self.error_label.isHidden() and self.note_label.isHidden()))

    @property
    def note(self) -> str:
        """Why the knob has no effect on the live prediction, or ""."""
        return self.note_label.text() if not self.note_label.isHidden() else ""

    def show_no_effect(self, reason: str) -> None:
        """Say under the value that it cannot change the prediction, and why ("" when it can)."""
        self.note_label.setText(f"No effect on this prediction: {reason}" if reason else "")
        self.note_label.setVisible(bool(reason))
        self._show_messages()

    def set_value(self, value: Any) -> None:
        """Show the model's ``value`` (clears any error)."""
        self.shown_value = value
        self.clear_error()
        self._show(value)

    def raw(self) -> Any:
        """What the user entered, as typed (kept while the model refuses it); None when nothing can be pending."""
        return None

    def restore(self, raw: Any, message: str) -> None:
        """Show text the user typed earlier (from :meth:`raw`) marked with the model's ``message``."""

    def flush(self) -> None:
        """Commit what the editor shows if it differs from the model (before a save or close)."""

    def editor_widget(self) -> QWidget:
        return self.editor

    def _show(self, value: Any) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class TextField(ParamField):
    """int, float, str and int_pair values in a line edit; empty means null for nullable knobs."""

    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.edit = QLineEdit()
        self.edit.setMinimumWidth(70)
        if spec.nullable:
            self.edit.setPlaceholderText(f"null: {spec.null_meaning}")
        if spec.type in ("int", "float"):
            self.edit.setAlignment(Qt.AlignRight)
        self.place_editor(self.edit)
        self.edit.editingFinished.connect(self._finished)

    def _show(self, value: Any) -> None:
        self.edit.setText(format_value(self.spec, value))
        self.edit.setCursorPosition(0)  # a value wider than the field shows its beginning, not its end

    def raw(self) -> str:
        return self.edit.text()

    def restore(self, raw: Any, message: str) -> None:
        self.edit.setText(str(raw))
        self.show_error(message)

    def flush(self) -> None:
        if self.edit.text() != format_value(self.spec, self.shown_value) or self.error:
            self._finished()

    def _finished(self) -> None:
        value = parse_text(self.spec, self.edit.text()) if self.spec.type != "str" else self.edit.text()
        if value == self.shown_value and not self.error:
            return
        self.committed.emit(value)


class BoolField(ParamField):
    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.box = self.editor = QCheckBox()
        self.row.addWidget(self.box)
        self.row.addStretch(1)
        self.box.toggled.connect(lambda on: self.committed.emit(bool(on)) if on != self.shown_value else None)

    def _show(self, value: Any) -> None:
        self.box.blockSignals(True)
        self.box.setChecked(bool(value))
        self.box.blockSignals(False)


class EnumField(ParamField):
    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.combo = QComboBox()
        self.combo.setMinimumContentsLength(6)
        self.combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        for choice in spec.choices:
            self.combo.addItem(str(choice), choice)
        if spec.nullable:
            self.combo.addItem(f"(null: {spec.null_meaning})", None)
        self.place_editor(self.combo)
        self.combo.activated.connect(self._activated)

    def _activated(self, index: int) -> None:
        value = self.combo.itemData(index)
        if value != self.shown_value:
            self.committed.emit(value)

    def _show(self, value: Any) -> None:
        i = self.combo.findData(value)
        self.combo.setCurrentIndex(max(i, 0))


class ColumnMapField(ParamField):
    """A table of Db2 column type and column count, with add and remove buttons."""

    def __init__(self, spec: ParamSpec, parent=None):
        super().__init__(spec, parent)
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["Column type", "Columns"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.Stretch)
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setMaximumHeight(150)
        self.table.setMinimumWidth(120)
        self.table.horizontalHeader().setMinimumSectionSize(40)
        self.total = QLabel()
        col = QVBoxLayout()
        col.addWidget(self.table)
        buttons, self.add_button, self.remove_button = add_remove_row("Add", "Remove")
        self.add_button.setToolTip("Add a column type")
        col.addLayout(buttons)
        col.addWidget(self.total)
        self.row.addLayout(col, 1)
        self.add_button.clicked.connect(self._add_row)
        self.remove_button.clicked.connect(self._remove_row)
        self.table.itemChanged.connect(self._changed)
        self._loading = False
        self.editor = self.table

    def _show(self, value: Any) -> None:
        self._loading = True
        self.table.setRowCount(0)
        for col_type, count in (value or {}).items():
            r = self.table.rowCount()
            self.table.insertRow(r)
            self.table.setItem(r, 0, QTableWidgetItem(col_type))
            item = QTableWidgetItem(str(count))
            item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            self.table.setItem(r, 1, item)
        self.total.setText(f"{sum((value or {}).values())} columns")
        self._loading = False

    def rows(self) -> list[tuple[str, str]]:
        """(column type, count) texts of every row, as typed."""
        out = []
        for r in range(self.table.rowCount()):
            key_item, count_item = self.table.item(r, 0), self.table.item(r, 1)
            out.append(
                (key_item.text().strip() if key_item else "", count_item.text().strip() if count_item else "")
            )
        return out

    def current(self) -> Any:
        """The mapping the table shows; a count that is not an integer is passed on as text."""
        out: dict = {}
        for key, text in self.rows():
            if not key:
                continue
            try:
                out[key] = int(text)
            except ValueError:
                out[key] = text
        return out

    def row_problem(self) -> str:
        """Why the rows cannot become a mapping (an empty or repeated column type), or ""."""
        seen = set()
        for r, (key, _) in enumerate(self.rows(), start=1):
            if not key:
                return (
                    f"{self.spec.name}: row {r} has no column type; "
                    "expected a Db2 column type such as INTEGER or CHAR(20) (or Remove the row)"
                )
            if key in seen:
                return f"{self.spec.name}: column type {key} appears twice; expected each type once with its count"
            seen.add(key)
        return ""

    def raw(self) -> list:
        return self.rows()

    def restore(self, raw: Any, message: str) -> None:
        self._loading = True
        self.table.setRowCount(0)
        for key, text in raw:
            r = self.table.rowCount()
            self.table.insertRow(r)
            self.table.setItem(r, 0, QTableWidgetItem(key))
            self.table.setItem(r, 1, QTableWidgetItem(text))
        self._loading = False
        self.show_error(message)

    def _changed(self) -> None:
        if self._loading:
            return
        problem = self.row_problem()
        if problem:
            self.show_error(problem)  # nothing is dropped: the rows stay as typed until fixed
            return
        self.committed.emit(self.current())

    def _add_row(self) -> None:
        used = {self.table.item(r, 0).text() for r in range(self.table.rowCount()) if self.table.item(r, 0)}
        name, i = "VARCHAR(100)", 2
        while name in used:
            name, i = f"CHAR({i * 10})", i + 1
        self._loading = True
        r = self.table.rowCount()
        self.table.insertRow(r)
        self.table.setItem(r, 0, QTableWidgetItem(name))
        self.table.setItem(r, 1, QTableWidgetItem("1"))
        self._loading = False
        self._changed()

    def _remove_row(self) -> None:
        rows = sorted({i.row() for i in self.table.selectedIndexes()}, reverse=True) or [
            self.table.rowCount() - 1
        ]
        self._loading = True
        for r in rows:
            if r >= 0:
                self.table.removeRow(r)
        self._loading = False
        self._changed()


def make_field(spec: ParamSpec, parent: QWidget | None = None) -> ParamField:
    """The editor for ``spec``'s type."""
    if spec.type == "bool":
        return BoolField(spec, parent)
    if spec.type == "enum":
        return EnumField(spec, parent)
    if spec.type == "column_map":
        return ColumnMapField(spec, parent)
    return TextField(spec, parent)
