"""The Advisor's goal form: what to reach, in a DBA's words, with its value and unit and the node it is about.

The form lists the goal kinds :func:`engine.advise.goal_form.goal_kinds` offers for the open project
("Reach a target rate with the fewest apply agents", "Minimise END2END latency at a target rate",
...), then "Write the goal yourself" for a goal typed in the engine's syntax. The value field shows
its name and unit (``Target rate`` ... ``rows/s``); the node field (``Q Apply``, ``Q Capture``) lists
the nodes by label and shows only when the project has more than one. :meth:`GoalForm.goal_text`
builds the goal the engine takes (:func:`engine.advise.goal_form.goal_text`); a refusal names the field.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QLineEdit, QWidget

from engine.advise import goal_form

#: The last entry of the goal list: a goal written in the engine's syntax (the written-goal box).
WRITTEN = "Write the goal yourself"


def _narrow_combo(min_chars: int = 14) -> QComboBox:
    """A combo box whose long entries do not widen the dock (the full text is its tooltip)."""
    box = QComboBox()
    box.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(min_chars)
    return box


class GoalForm(QWidget):
    """Goal kind, value with its unit, and node by label, for the project ``project_fn()`` returns.

    Parameters
    ----------
    project_fn : callable
        Returns the open :class:`engine.model.Project`.
    written_box : QWidget
        The written-goal box, shown only while "Write the goal yourself" is chosen.
    """

    def __init__(self, project_fn, written_box: QWidget, parent=None):
        super().__init__(parent)
        self.project_fn = project_fn
        self.written_box = written_box
        self.kinds: list = []  # the GoalKind of each entry but the last
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setRowWrapPolicy(QFormLayout.WrapLongRows)
        self.kind_box = _narrow_combo()
        self.kind_box.setToolTip("What the advisor searches for")
        self.kind_box.currentIndexChanged.connect(self._show_kind)
        self.value_label = QLabel("Value")
        self.value = QLineEdit()
        self.unit = QLabel()
        self.value_row = QWidget()
        row = QFormLayout(self.value_row)  # value and unit side by side
        row.setContentsMargins(0, 0, 0, 0)
        row.addRow(self.value, self.unit)
        self.node_label = QLabel("Node")
        self.node_box = _narrow_combo()
        form.addRow("Goal", self.kind_box)
        form.addRow(self.value_label, self.value_row)
        form.addRow(self.node_label, self.node_box)
        form.addRow(written_box)
        self.value.setAccessibleName("goal value")
        self.node_box.setAccessibleName("goal node")
        self.reset()

    def reset(self) -> None:
        """Offer the goals of the open project, the first one chosen with its default value."""
        self.kinds = list(goal_form.goal_kinds(self.project_fn()))
        self.kind_box.blockSignals(True)
        self.kind_box.clear()
        for i, kind in enumerate(self.kinds):
            self.kind_box.addItem(kind.label)
            self.kind_box.setItemData(i, kind.label, Qt.ToolTipRole)  # the whole label in a narrow dock
        self.kind_box.addItem(WRITTEN)
        self.kind_box.setCurrentIndex(0)
        self.kind_box.blockSignals(False)
        self._show_kind(0)

    def current_kind(self):
        """The chosen :class:`engine.advise.goal_form.GoalKind`, or None for a written goal."""
        i = self.kind_box.currentIndex()
        return self.kinds[i] if 0 <= i < len(self.kinds) else None

    def choose(self, kind_id: str) -> bool:
        """Choose the goal kind ``kind_id`` (False when the project is not offered it)."""
        ids = [k.id for k in self.kinds]
        if kind_id not in ids:
            return False
        self.kind_box.setCurrentIndex(ids.index(kind_id))
        return True

    def _show_kind(self, _index: int) -> None:
        kind = self.current_kind()
        project = self.project_fn()
        self.kind_box.setToolTip(self.kind_box.currentText())
        has_value = kind is not None and bool(kind.value_field)
        for w in (self.value_label, self.value_row):
            w.setVisible(has_value)
        if has_value:
            self.value_label.setText(kind.value_field)
            self.unit.setText(kind.unit)
            default = goal_form.default_value(kind, project)
            self.value.setText(goal_form.number_text(default) if default is not None else "")
            self.value.setToolTip(
                f"{kind.value_field}, {goal_form.number_text(kind.minimum)} to "
                f"{goal_form.number_text(kind.maximum)} {kind.unit}"
            )
        self.refresh_nodes()
        if kind is not None and kind.node_field:
            self.node_label.setText(kind.node_field)
        self.written_box.setVisible(kind is None)

    def refresh_nodes(self) -> None:
        """List the nodes the chosen goal can be about, by label, keeping the one chosen if it is still
        there; the node field shows only when there are several."""
        kind = self.current_kind()
        labels = goal_form.node_labels(kind, self.project_fn()) if kind is not None else []
        chosen = self.node_box.currentText()
        self.node_box.clear()
        self.node_box.addItems(labels)
        if chosen in labels:
            self.node_box.setCurrentIndex(labels.index(chosen))
        for w in (self.node_label, self.node_box):
            w.setVisible(len(labels) > 1)

    def project_edited(self) -> None:
        """The open project changed: offer its goals anew if they differ, else refresh the node list
        (a second Q Apply drawn on the canvas shows the Q Apply field)."""
        offered = [k.id for k in goal_form.goal_kinds(self.project_fn())]
        if offered != [k.id for k in self.kinds]:
            self.reset()
        else:
            self.refresh_nodes()

    def describe(self) -> str:
        """The chosen goal in words, with its value and node (``Reach a target rate ... : 30,000 rows/s``)."""
        kind = self.current_kind()
        if kind is None:
            return ""
        parts = [f"{self.value.text().strip()} {kind.unit}".strip()] if kind.value_field else []
        if self.node_box.count() > 1:
            parts.append(self.node_box.currentText())
        return kind.label + (f": {', '.join(parts)}" if parts else "")

    def goal_text(self) -> str | None:
        """The goal the engine takes for the form as filled in; None for a written goal (the box holds it).

        Raises
        ------
        FieldError
            Naming the field (``Target rate``, ``Q Apply``), the value and what is allowed.
        """
        kind = self.current_kind()
        if kind is None:
            return None
        node = self.node_box.currentText() if self.node_box.count() > 1 else None
        return goal_form.goal_text(self.project_fn(), kind.id, self.value.text(), node)
