"""The run history list: every recorded run, newest first; pick two or more to compare."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.panels.tables import panel_column, read_only_table
from engine.limit import bottleneck_label

COLUMNS = ("Run", "Label", "Kind", "Bottleneck", "Started (UTC)", "Project")


class RunsPanel(QWidget):
    """Table of stored runs.

    Signals
    -------
    compare_requested(list)
        Run ids the user chose to compare (two or more, in list order).
    """

    compare_requested = Signal(list)

    def __init__(self, history, project_name_fn=lambda: None, parent=None):
        super().__init__(parent)
        self.history = history
        self.project_name_fn = project_name_fn
        layout = panel_column(self)
        top = QVBoxLayout()  # buttons stacked: the dock stays narrow at 150% scaling
        self.only_project = QCheckBox("This project only")
        self.only_project.setChecked(True)
        self.only_project.toggled.connect(self.refresh)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.compare_button = QPushButton("Compare selected")
        self.compare_button.setEnabled(False)
        self.compare_button.clicked.connect(self._compare)
        layout.addWidget(self.only_project)
        top.addWidget(self.refresh_button)
        top.addWidget(self.compare_button)
        top.addStretch(1)
        layout.addLayout(top)
        self.table = read_only_table(COLUMNS, stretch_column=1)  # the label tells runs apart
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.ExtendedSelection)
        self.table.setWordWrap(False)
        self.table.setMinimumWidth(120)
        self.table.verticalHeader().setDefaultSectionSize(22)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(lambda _: self._compare())
        layout.addWidget(self.table, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setMinimumWidth(100)
        layout.addWidget(self.status)
        self.runs: list = []
        history.runs_changed.connect(self.refresh)

    def refresh(self) -> None:
        """Reload the list from the store (errors are shown, never raised); the selected runs stay
        selected by their ids, wherever new runs put their rows."""
        selected = self.selected_ids()
        name = self.project_name_fn() if self.only_project.isChecked() else None
        try:
            self.runs = self.history.list_runs(project_name=name)
        except Exception as e:  # noqa: BLE001 - a locked or foreign store file
            self.status.setText(f"Cannot read the run store: {e}")
            return
        self.status.setText(
            f"{len(self.runs)} run{'s' if len(self.runs) != 1 else ''} in {self.history.db_path}"
        )
        self.table.setRowCount(len(self.runs))
        for r, run in enumerate(self.runs):
            kind = run.kind if run.status == "ok" else f"{run.kind} (failed)"
            values = (
                run.id,
                run.label or kind,
                kind,
                bottleneck_label(run.bottleneck),
                run.started.strftime("%Y-%m-%d %H:%M:%S") if run.started else "",
                run.project_name,
            )
            for c, v in enumerate(values):
                item = QTableWidgetItem(str(v))
                if c == 0:
                    item.setData(Qt.UserRole, int(run.id))
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                item.setToolTip(
                    run.error
                    if run.status != "ok"
                    else f"#{run.id} {kind}: {run.label}\n{run.project_name}, bottleneck {bottleneck_label(run.bottleneck) or '-'}"
                )
                self.table.setItem(r, c, item)
        self.table.resizeColumnToContents(0)
        self.select_ids(selected)

    def selected_ids(self) -> list[int]:
        """Selected run ids, oldest first (the oldest is the comparison's reference)."""
        rows = sorted({i.row() for i in self.table.selectedIndexes()})
        return sorted(int(self.table.item(r, 0).data(Qt.UserRole)) for r in rows)

    def select_ids(self, run_ids) -> None:
        """Select the rows of ``run_ids``."""
        wanted = {int(i) for i in run_ids}
        self.table.blockSignals(True)  # one selection change, at the end
        self.table.clearSelection()
        mode = self.table.selectionMode()
        self.table.setSelectionMode(QAbstractItemView.MultiSelection)
        for r in range(self.table.rowCount()):
            if int(self.table.item(r, 0).data(Qt.UserRole)) in wanted:
                self.table.selectRow(r)
        self.table.setSelectionMode(mode)
        self.table.blockSignals(False)
        self._selection_changed()

    def _selection_changed(self) -> None:
        self.compare_button.setEnabled(len(self.selected_ids()) >= 2)

    def _compare(self) -> None:
        ids = self.selected_ids()
        if len(ids) >= 2:
            self.compare_requested.emit(ids)
