"""The workbench main window (first version: opens a project and lists its nodes)."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow, QMessageBox, QTreeWidget, QTreeWidgetItem

from engine import projectfile
from engine.errors import QrtuneError
from engine.model import Project
from engine.registry import KINDS


class MainWindow(QMainWindow):
    """Main window: the open project's nodes and their parameters."""

    def __init__(self):
        super().__init__()
        self.setWindowTitle("qrtune")
        self.project: Project | None = None
        self.nodes_view = QTreeWidget()
        self.nodes_view.setHeaderLabels(["Node", "Kind", "Parameters"])
        self.setCentralWidget(self.nodes_view)

    def open_project(self, path: str) -> bool:
        """Load ``path``; on error show the message and keep the current project."""
        try:
            project = projectfile.load(path)
        except QrtuneError as e:
            QMessageBox.warning(self, "Cannot open project", str(e))
            return False
        self.set_project(project)
        return True

    def set_project(self, project: Project) -> None:
        """Show ``project``'s nodes."""
        self.project = project
        self.setWindowTitle(f"qrtune - {project.name}")
        self.nodes_view.clear()
        for node in project.nodes:
            item = QTreeWidgetItem([node.label, KINDS[node.kind].name, f"{len(node.params)}"])
            for name, value in node.params.items():
                item.addChild(QTreeWidgetItem([name.upper(), "", str(value)]))
            self.nodes_view.addTopLevelItem(item)
        self.nodes_view.resizeColumnToContents(0)

    def smoke_views(self) -> dict:
        """The main views to screenshot, by name."""
        return {"main_window": self}
