"""The canvas view: zoom with the wheel, pan with the middle button or Space, rubber-band select."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QGraphicsView

MIN_ZOOM = 0.15
MAX_ZOOM = 4.0


class CanvasView(QGraphicsView):
    """A view of a :class:`~app.canvas.scene.TopologyScene`."""

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self._space = False
        self._panning = False
        self._pan_last = QPointF()
        #: Fit every node whenever the view is resized, until the user zooms (Ctrl+0 turns it back on).
        self.auto_fit = True

    def zoom(self) -> float:
        """Current scale factor (1 = 100%)."""
        return self.transform().m11()

    def zoom_by(self, factor: float) -> None:
        """Multiply the zoom by ``factor``, kept within MIN_ZOOM..MAX_ZOOM."""
        self.auto_fit = False
        target = min(max(self.zoom() * factor, MIN_ZOOM), MAX_ZOOM)
        f = target / self.zoom()
        self.scale(f, f)

    def reset_zoom(self) -> None:
        self.auto_fit = False
        self.resetTransform()

    def fit_to_view(self) -> None:
        """Zoom and centre so every node is visible (at most 100%); keeps fitting on resize."""
        self.auto_fit = True
        scene = self.scene()
        rect = QRectF()
        for item in scene.nodes.values():
            rect = rect.united(item.sceneBoundingRect())
        if rect.isNull():
            self.resetTransform()
            return
        rect = rect.adjusted(-16, -16, 16, 16)
        self.fitInView(rect, Qt.KeepAspectRatio)
        if self.zoom() > 1.0:
            self.resetTransform()
            self.centerOn(rect.center())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit_to_view()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.auto_fit:
            self.fit_to_view()

    def wheelEvent(self, event) -> None:
        if event.angleDelta().y() == 0:
            return super().wheelEvent(event)
        self.zoom_by(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
        event.accept()

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.setDragMode(QGraphicsView.ScrollHandDrag)  # shows the open hand; the drag is ours
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.setDragMode(QGraphicsView.RubberBandDrag)
            event.accept()
            return
        super().keyReleaseEvent(event)

    # -- panning: the middle button, or the left button while Space is held, drags the canvas ---------
    def _pan_button(self, event) -> bool:
        return event.button() == Qt.MiddleButton or (event.button() == Qt.LeftButton and self._space)

    def mousePressEvent(self, event) -> None:
        if self._pan_button(event):
            # handled here, never by the scene: a pan that starts on a node must not move or select it
            self._panning = True
            self._pan_last = event.position()
            self.viewport().setCursor(Qt.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if self._panning:
            delta = event.position() - self._pan_last
            self._pan_last = event.position()
            h, v = self.horizontalScrollBar(), self.verticalScrollBar()
            h.setValue(h.value() - round(delta.x()))
            v.setValue(v.value() - round(delta.y()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._panning and (event.buttons() & (Qt.MiddleButton | Qt.LeftButton)) == Qt.NoButton:
            self._panning = False
            self.viewport().setCursor(Qt.OpenHandCursor if self._space else Qt.ArrowCursor)
            event.accept()
            return
        super().mouseReleaseEvent(event)
        event.accept()  # a rubber band or a click on empty canvas is handled, not passed on
