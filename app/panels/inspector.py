"""The knob inspector: the selected node's form, generated from the parameter registry.

Each parameter of the node's kind gets an editor by type (see
:mod:`app.panels.fields`), its IBM name, unit and a tooltip with help, allowed
values, default and seed section. A value goes to the document, which validates
it with the model; a refused value is marked inline with the model's message and
the typed text stays in the field, also when another node is selected and this
one again later (:attr:`Inspector.pending`). A knob the live prediction does not depend on
says so under its value, with the engine's reason (:meth:`Inspector.show_prediction`), so a
value changed without effect is explained. A knob that cannot apply to the node at all (its
platform's, :attr:`engine.registry.params.ParamSpec.platforms`, or its role's in the flow:
BUFFPOOL on a Linux queue manager) is not listed, unless "Show all knobs" is checked; the form
is rebuilt when the platform or role changes. With no node selected the inspector
edits the project's name and description. :meth:`Inspector.flush` commits what a
field shows but has not sent yet (the window calls it before saving or closing),
so a value typed and followed by Ctrl+S is saved.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QWidget,
)

from app import style
from app.document import Document
from app.panels.fields import ERROR_STYLE, ParamField, make_field, tooltip
from app.panels.tables import panel_column
from engine.errors import QrtuneError
from engine.metrics import knob_label
from engine.model import Project
from engine.predict import ignored_knobs
from engine.registry import KINDS
from engine.registry.params import applies


class Inspector(QWidget):
    """Form for one node (or the project when none is selected)."""

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self.node_id = ""
        self.fields: dict[str, ParamField] = {}
        #: Refused input kept per (node id, knob): (what was typed, the model's message).
        self.pending: dict[tuple[str, str], tuple] = {}
        #: Knobs the live prediction cannot depend on: (node id, knob) -> why.
        self.no_effect: dict[tuple[str, str], str] = {}
        outer = panel_column(self)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setTextFormat(Qt.RichText)
        outer.addWidget(self.title)
        #: Knobs that cannot apply to the node's platform or role are hidden unless this is checked.
        self.show_all = QCheckBox("Show all knobs")
        self.show_all.setToolTip(
            "Also list the knobs that cannot apply to this node's platform (BUFFPOOL on Linux) or its role "
            "in the flow (the run mode on the sending queue manager)"
        )
        self.show_all.toggled.connect(lambda _on: self.show_node(self.node_id))
        outer.addWidget(self.show_all)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll, 1)
        self.label_edit: QLineEdit | None = None
        self.label_error = QLabel()
        document.project_changed.connect(self._project_changed)
        self.show_node("")

    # -- building ---------------------------------------------------------------------
    def show_node(self, node_id: str) -> None:
        """Build the form of ``node_id`` ("" for the project properties)."""
        project = self.document.project
        self._keep_pending()
        if node_id and node_id not in {n.id for n in project.nodes}:
            node_id = ""
        self.node_id = node_id
        self.fields = {}
        body = QWidget()
        form = QFormLayout(body)
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        form.setLabelAlignment(Qt.AlignRight)
        form.setRowWrapPolicy(QFormLayout.WrapLongRows)  # long IBM names go above their field when narrow
        if not node_id:
            self.title.setText(f"<b>Project</b><br><small>{project.topology}</small>")
            self.name_edit = QLineEdit(project.name)
            self.name_edit.setCursorPosition(0)  # a long name shows its beginning
            self.name_edit.editingFinished.connect(
                lambda: self.document.set_project_text(name=self.name_edit.text().strip() or project.name)
            )
            form.addRow("Name", self.name_edit)
            self.description_edit = QPlainTextEdit(project.description)
            self.description_edit.setMaximumHeight(90)
            form.addRow("Description", self.description_edit)
            self.description_edit.textChanged.connect(self._description_changed)
            hint = QLabel("Select a node on the canvas to edit its knobs.")
            hint.setWordWrap(True)
            form.addRow(hint)
            self.show_all.hide()
        else:
            node = project.node(node_id)
            kind = KINDS[node.kind]
            self.title.setText(
                f"<b>{kind.name}</b><br><small>{kind.description}</small>"  # the node by its label (below), never its id
            )
            self.label_edit = QLineEdit(node.label)
            self.label_edit.setCursorPosition(0)
            self.label_edit.editingFinished.connect(self._label_finished)
            form.addRow("Label", self.label_edit)
            self.label_error = QLabel()
            self.label_error.setWordWrap(True)
            self.label_error.setStyleSheet(f"color: {style.BOTTLENECK}; font-size: {style.NOTE_PT}pt;")
            self.label_error.hide()
            form.addRow("", self.label_error)
            shown = self.shown_knobs(project, node_id)
            hidden = len(kind.params) - len(shown)
            self.show_all.setText(
                f"Show all knobs ({hidden} cannot apply here)"
                if hidden or self.show_all.isChecked()
                else "Show all knobs"
            )
            self.show_all.setVisible(bool(hidden) or self.show_all.isChecked())
            for spec in kind.params:
                if spec.name not in shown:
                    continue
                field = make_field(spec)
                field.set_value(node.params[spec.name])
                field.committed.connect(lambda value, name=spec.name: self.commit(name, value))
                label = QLabel(knob_label(spec.name))
                label.setToolTip(tooltip(spec))
                form.addRow(label, field)
                form.addRow(field.messages)
                self.fields[spec.name] = field
                if (node_id, spec.name) in self.pending:
                    field.restore(*self.pending[(node_id, spec.name)])
            self._mark_no_effect()
        self.scroll.setWidget(body)

    def applicable_knobs(self, project: Project, node_id: str) -> list[str]:
        """The knobs of ``node_id`` that can apply to its platform and its role in the flow."""
        from engine.topology import queue_manager_roles

        node = project.node(node_id)
        roles = queue_manager_roles(project).get(node_id) if node.kind == "queue_manager" else None
        return [spec.name for spec in KINDS[node.kind].params if applies(spec, node.params, roles)]

    def shown_knobs(self, project: Project, node_id: str) -> list[str]:
        """The knobs the form lists: those that can apply, or all of them with Show all knobs."""
        if self.show_all.isChecked():
            return [spec.name for spec in KINDS[project.node(node_id).kind].params]
        return self.applicable_knobs(project, node_id)

    def _rebuild_if_stale(self) -> None:
        """Rebuild the form when the knobs it lists are no longer those that apply."""
        project = self.document.project
        if self.node_id and self.node_id in {n.id for n in project.nodes}:
            if set(self.shown_knobs(project, self.node_id)) != set(self.fields):
                self.show_node(self.node_id)

    # -- the live prediction -------------------------------------------------------------
    def show_prediction(self, project: Project, prediction) -> None:
        """Mark the knobs ``prediction`` of ``project`` cannot depend on (None: no prediction, no marks)."""
        self.no_effect = ignored_knobs(project, prediction) if prediction is not None else {}
        self._mark_no_effect()

    def _mark_no_effect(self) -> None:
        for name, field in self.fields.items():
            field.show_no_effect(self.no_effect.get((self.node_id, name), ""))

    def _keep_pending(self) -> None:
        """Remember refused input of the form being replaced, so selecting the node again shows it."""
        for name, field in self.fields.items():
            raw = field.raw()
            if field.error and raw is not None:
                self.pending[(self.node_id, name)] = (raw, field.error)
            else:
                self.pending.pop((self.node_id, name), None)

    def refused_edits(self) -> list[str]:
        """The model's message for every value the user typed that it refused and that is still shown
        or pending (the fields of the node on show and of nodes shown before); [] when there is none."""
        shown = [field.error for field in self.fields.values() if field.error]
        pending = [message for key, (_, message) in self.pending.items() if key[0] != self.node_id]
        return shown + pending

    def flush(self) -> None:
        """Commit every edit the form shows but has not sent to the document yet."""
        for field in list(self.fields.values()):
            field.flush()
        if self.node_id and self.label_edit is not None:
            if self.label_edit.text().strip() != self.document.project.node(self.node_id).label:
                self._label_finished()
        elif not self.node_id and hasattr(self, "name_edit"):
            name = self.name_edit.text().strip()
            if name and name != self.document.project.name:
                self.document.set_project_text(name=name)

    # -- edits ------------------------------------------------------------------------------
    def commit(self, name: str, value) -> bool:
        """Send one knob value to the document; mark the field inline when the model refuses it."""
        field = self.fields[name]
        try:
            self.document.set_param(self.node_id, name, value)
        except QrtuneError as e:
            field.show_error(str(e))
            return False
        field.clear_error()
        self.pending.pop((self.node_id, name), None)
        return True

    def _label_finished(self) -> None:
        """Rename the node; an empty label is marked inline (the model keeps the old one)."""
        try:
            self.document.rename_node(self.node_id, self.label_edit.text())
        except ValueError as e:
            self.label_error.setText(
                f"label: {e}; expected any non-empty text "
                f"(still {self.document.project.node(self.node_id).label!r})"
            )
            self.label_error.show()
            self.label_edit.setStyleSheet(ERROR_STYLE)
            return
        self.label_error.hide()
        self.label_edit.setStyleSheet("")

    def _description_changed(self) -> None:
        self.document.set_project_text(description=self.description_edit.toPlainText())

    # -- follow the document (undo, redo, other views) ----------------------------------------
    def _project_changed(self, old: Project, new: Project) -> None:
        if not self.node_id:
            if old is None or old.topology != new.topology:
                self.title.setText(f"<b>Project</b><br><small>{new.topology}</small>")
            if (
                hasattr(self, "name_edit")
                and self.name_edit.text() != new.name
                and not self.name_edit.hasFocus()
            ):
                self.name_edit.setText(new.name)
                self.name_edit.setCursorPosition(0)
            if self.description_edit.toPlainText() != new.description:
                self.description_edit.blockSignals(True)
                self.description_edit.setPlainText(new.description)
                self.description_edit.blockSignals(False)
            return
        try:
            node = new.node(self.node_id)
        except KeyError:
            self.show_node("")
            return
        old_label = (
            next((n.label for n in old.nodes if n.id == self.node_id), None) if old is not None else None
        )
        if set(self.shown_knobs(new, self.node_id)) != set(self.fields):  # its platform or role changed
            # rebuilt once the edit's signal has returned: the field that sent it must outlive it
            QTimer.singleShot(0, self._rebuild_if_stale)
        if self.label_edit is not None and node.label != old_label:  # renamed (undo, redo): the model wins
            self.label_edit.setText(node.label)
            self.label_error.hide()
            self.label_edit.setStyleSheet("")
        for name, field in self.fields.items():
            value = node.params[name]
            if value != field.shown_value:
                field.set_value(value)  # the model changed this knob (undo, redo): its value wins
                self.pending.pop((self.node_id, name), None)
