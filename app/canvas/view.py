"""The canvas view: zoom with the wheel, pan with the middle button or Space, rubber-band select.

The keyboard reaches every node: Tab and Shift+Tab walk the nodes in reading order (and, past
the last, on to the next part of the window), the arrow keys move the selection to the nearest
node that way, Ctrl+arrows move the selected nodes (Ctrl+Shift+arrows by one unit), Enter opens
the node's properties, the Menu key (or Shift+F10) its menu, and Escape leaves the canvas.

The view fits every node's box to its width and height when shown and resized, until the user
zooms or works on the canvas (a press on a node or a link, a keyboard move): from then on a
resize (a longer headline above the canvas, a message shown) never moves the drawing under the
pointer; Fit to View (Ctrl+0) fits again.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtWidgets import QGraphicsView, QWidget

from app.canvas.items import READABLE_ZOOM
from app.canvas.scene import NUDGE

MIN_ZOOM = 0.15
MAX_ZOOM = 4.0
#: Scene margin kept around the nodes' boxes by Fit to View (room for the tags above and below).
FIT_MARGIN = 40.0
#: Screen pixels kept around the nodes for their tags (a line of the default font and a little).
TAG_SCREEN_PX = 30.0
#: The canvas's mouse and keyboard use, as the shortcut list shows it: (what it does, keys).
CANVAS_KEYS = (
    ("Pan the canvas", "middle button, or Space + drag"),
    ("Zoom the canvas", "mouse wheel"),
    ("Select the next or previous node", "Tab, Shift+Tab"),
    ("Select the nearest node that way", "arrow keys"),
    ("Move the selected nodes", "Ctrl+arrow keys (Ctrl+Shift: finely)"),
    ("Open the selected node's properties", "Enter"),
    ("Menu of a node, a link or the canvas", "right button, Menu key or Shift+F10"),
    ("Leave the canvas", "Escape"),
)
_ARROWS = {Qt.Key_Left: "left", Qt.Key_Right: "right", Qt.Key_Up: "up", Qt.Key_Down: "down"}


class CanvasView(QGraphicsView):
    """A view of a :class:`~app.canvas.scene.TopologyScene`."""

    def __init__(self, scene, parent=None):
        super().__init__(scene, parent)
        self.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
        self.setDragMode(QGraphicsView.RubberBandDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.StrongFocus)
        scene.fit_requested.connect(self.fit_whole)
        self._space = False
        self._panning = False
        self._pan_last = QPointF()
        #: Fit every node whenever the view is resized, until the user zooms or works on the canvas
        #: (Ctrl+0 turns it back on).
        self.auto_fit = True
        self._fit_readable = True  # the last fit's kind: readable (opening a project) or whole (Ctrl+0)

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

    def nodes_rect(self, margin: float = FIT_MARGIN) -> QRectF:
        """The scene rectangle of every node's box with ``margin`` (null without nodes)."""
        rect = QRectF()
        for item in self.scene().nodes.values():
            rect = rect.united(item.mapRectToScene(item.box()))
        return rect.adjusted(-margin, -margin, margin, margin) if not rect.isNull() else rect

    def fit_to_view(self) -> None:
        """Zoom so every node fits the view's width and height (at most 100%) and centre them;
        keeps fitting on resize until the user zooms or works on the canvas.

        This fit (a project opened, the window resized) never zooms out below
        :data:`READABLE_ZOOM`, where a node's text at the platform's size no longer fits its box: a
        drawing wider than that shows its left part (where the flows start) and scrolls sideways.
        :meth:`fit_whole` (Fit to View) shows every node however small.
        """
        self._fit(readable=True)

    def fit_whole(self) -> None:
        """Fit to View: every node in sight, zoomed out below the readable zoom if need be (the
        text then shrinks with the drawing); keeps fitting on resize like :meth:`fit_to_view`."""
        self._fit(readable=False)

    def _fit(self, readable: bool) -> None:
        """Fit the nodes' boxes and a margin holding their tags at screen size (:data:`TAG_SCREEN_PX`)."""
        self.auto_fit, self._fit_readable = True, readable
        rect = self.nodes_rect()
        if rect.isNull():
            self.resetTransform()
            return
        least = READABLE_ZOOM if readable else MIN_ZOOM
        for _ in range(2):  # the margin depends on the zoom the fit gives
            self.fitInView(rect, Qt.KeepAspectRatio)
            if not least <= self.zoom() <= 1.0:
                zoom = min(max(self.zoom(), least), 1.0)
                self.setTransform(QTransform.fromScale(zoom, zoom))
            rect = self.nodes_rect(max(FIT_MARGIN, TAG_SCREEN_PX / self.zoom()))
        centre = rect.center()
        half_width = self.viewport().width() / 2 / self.zoom()
        if rect.width() > 2 * half_width:  # too wide to read whole: its left part
            centre.setX(rect.left() + half_width)
        self.centerOn(centre)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self.auto_fit:
            self._fit(self._fit_readable)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.auto_fit:
            self._fit(self._fit_readable)

    def wheelEvent(self, event) -> None:
        if event.angleDelta().y() == 0:
            return super().wheelEvent(event)
        self.zoom_by(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
        event.accept()

    # -- keyboard ----------------------------------------------------------------------------------
    def event(self, event) -> bool:
        # Tab is the canvas's own (the scene would otherwise walk its items' focus chain)
        if event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Tab, Qt.Key_Backtab):
            if not event.modifiers() & (Qt.ControlModifier | Qt.AltModifier):
                forwards = event.key() == Qt.Key_Tab and not event.modifiers() & Qt.ShiftModifier
                self.focusNextPrevChild(forwards)
                return True
        return super().event(event)

    def focusNextPrevChild(self, forwards: bool) -> bool:
        """Tab walks the nodes; past the last (or before the first) node it leaves the canvas."""
        if self.scene().select_step(forwards):
            self._stay_put()
            self.ensure_visible(self.scene().current_node_id())
            return True
        return super().focusNextPrevChild(forwards)

    def leave(self) -> None:
        """Give the keyboard focus to the next part of the window (Escape)."""
        self.scene().clearSelection()
        QWidget.focusNextPrevChild(self, True)

    def ensure_visible(self, node_id: str | None) -> None:
        """Scroll the node into view if it is not (a node already visible stays where it is)."""
        if node_id is not None:
            item = self.scene().nodes[node_id]
            self.ensureVisible(item.mapRectToScene(item.box()), 8, 8)

    def _stay_put(self) -> None:
        self.auto_fit = False

    def keyPressEvent(self, event) -> None:
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.setDragMode(QGraphicsView.ScrollHandDrag)  # shows the open hand; the drag is ours
            event.accept()
            return
        if self._canvas_key(event):
            event.accept()
            return
        super().keyPressEvent(event)

    def _canvas_key(self, event) -> bool:
        """Handle a key of the canvas's keyboard use (see the module's docstring); False for others."""
        scene, key, mods = self.scene(), event.key(), event.modifiers()
        if key == Qt.Key_Escape:
            self.leave()
            return True
        if key in (Qt.Key_Return, Qt.Key_Enter) and scene.current_node_id():
            scene.properties_requested.emit(scene.current_node_id())
            return True
        if key == Qt.Key_Menu or (key == Qt.Key_F10 and mods & Qt.ShiftModifier):
            self.open_menu_at_current()
            return True
        if key not in _ARROWS:
            return False
        self._stay_put()
        if mods & Qt.ControlModifier:
            step = 1.0 if mods & Qt.ShiftModifier else NUDGE
            dx, dy = {"left": (-step, 0), "right": (step, 0), "up": (0, -step), "down": (0, step)}[
                _ARROWS[key]
            ]
            scene.nudge_selected(dx, dy)
        else:
            scene.select_towards(_ARROWS[key])
        self.ensure_visible(scene.current_node_id())
        return True

    def open_menu_at_current(self) -> None:
        """The current node's menu (the canvas's without one), under the node."""
        from app.canvas.menus import menu_for

        scene = self.scene()
        node_id = scene.current_node_id()
        if node_id is not None:
            item = scene.nodes[node_id]
            pos = item.mapToScene(item.box().center())
        else:
            pos = self.mapToScene(self.viewport().rect().center())
        menu_for(scene, pos, self).exec(self.viewport().mapToGlobal(self.mapFromScene(pos)))

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
        if self.itemAt(event.position().toPoint()) is not None:
            self._stay_put()  # work on the drawing: a later resize must not move it under the pointer
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
