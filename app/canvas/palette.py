"""The node palette: every kind of the registry, dragged onto the canvas (or double-clicked)."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem

from app.canvas.scene import KIND_MIME
from engine.registry import KINDS


class NodePalette(QListWidget):
    """One entry per node kind of :data:`engine.registry.KINDS`.

    Signals
    -------
    kind_activated(str)
        A kind was double-clicked or Enter pressed: add it at the view centre.
    """

    kind_activated = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setDragEnabled(True)
        self.setSelectionMode(QAbstractItemView.SingleSelection)
        for kind in KINDS.values():
            item = QListWidgetItem(kind.name)
            item.setData(Qt.UserRole, kind.id)
            item.setToolTip(f"<b>{kind.name}</b><br>{kind.description}<br><i>Drag onto the canvas.</i>")
            self.addItem(item)
        self.itemActivated.connect(lambda item: self.kind_activated.emit(item.data(Qt.UserRole)))

    def mimeTypes(self):
        return [KIND_MIME]

    def mimeData(self, items) -> QMimeData:
        """The drag payload: the kind id of the (first) dragged entry under :data:`KIND_MIME`."""
        mime = QMimeData()
        if items:
            mime.setData(KIND_MIME, items[0].data(Qt.UserRole).encode())
        return mime

    def startDrag(self, actions) -> None:
        item = self.currentItem()
        if item is None:
            return
        drag = QDrag(self)
        drag.setMimeData(self.mimeData([item]))
        drag.exec(Qt.CopyAction)
