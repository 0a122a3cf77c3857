"""The topology scene: a mirror of the document's project.

The scene keeps ``dict[node_id, NodeItem]`` and ``dict[link_id, LinkItem]`` and
rebuilds only what changed between two project snapshots. User gestures become
document edits: dropping a kind adds a node, dragging from an output port to a
node adds a link (a refused link reports the model's message unchanged through
:attr:`TopologyScene.message`), releasing a drag moves the nodes, Delete removes
the selection, a right click opens the node's, the link's or the canvas's menu
(:mod:`app.canvas.menus`), and the keyboard moves the selection and the nodes
(:meth:`TopologyScene.select_step`, :meth:`TopologyScene.select_towards`,
:meth:`TopologyScene.nudge_selected`).

After every change the scene turns each node to face the way its data flows and
draws the links of a flow's queue-map section one lane per queue map.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsScene

from app import style
from app.canvas import navigation
from app.canvas.geometry import facing_left, link_path
from app.canvas.items import NODE_H, NODE_W, LinkItem, NodeItem, PortItem
from app.document import Document
from app.stages import NodeLoad
from engine.errors import QrtuneError
from engine.model import Project
from engine.registry import KINDS
from engine.topology import ROLE_FLOWS, flows

#: Scene units a node moves per arrow key with Ctrl (with Ctrl+Shift: one unit).
NUDGE = 10.0

#: Mime type of a node kind dragged from the palette (payload: the kind id, UTF-8).
KIND_MIME = "application/x-qrtune-kind"


class TopologyScene(QGraphicsScene):
    """Scene items mirroring ``document.project``.

    Signals
    -------
    message(str)
        Something the user should read: a refused link (the model's message), a refused drop.
    node_selected(str)
        The id of the single selected node, or "" when none or several.
    properties_requested(str)
        The user asked for a node's properties (Enter, or Properties in a menu).
    fit_requested()
        Fit to View was chosen in a menu.
    """

    message = Signal(str)
    node_selected = Signal(str)
    properties_requested = Signal(str)
    fit_requested = Signal()

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self.nodes: dict[str, NodeItem] = {}
        self.links: dict[str, LinkItem] = {}
        self._drag_line: QGraphicsPathItem | None = None
        self._drag_port: PortItem | None = None
        self._press_positions: dict[str, QPointF] = {}
        self.setSceneRect(-2000, -2000, 6000, 4000)
        self.setBackgroundBrush(QColor(style.CANVAS_BACKGROUND))
        document.project_changed.connect(self._sync)
        self.selectionChanged.connect(self._selection_changed)
        self._sync(None, document.project)

    # -- mirror the model -----------------------------------------------------------------
    def _sync(self, old: Project | None, new: Project) -> None:
        keep = {n.id for n in new.nodes}
        for link_id in [k for k in self.links if k not in {link.id for link in new.links}]:
            self._remove_link_item(link_id)
        for node_id in [k for k in self.nodes if k not in keep]:
            item = self.nodes.pop(node_id)
            for link in list(item.links):
                self._remove_link_item(link.link_id)
            self.removeItem(item)
        old_nodes = {n.id: n for n in old.nodes} if old is not None else {}
        for node in new.nodes:
            item = self.nodes.get(node.id)
            if item is None:
                item = NodeItem(node)
                self.nodes[node.id] = item
                self.addItem(item)
            elif old_nodes.get(node.id) != node or item.pos() != QPointF(node.x, node.y):
                item.update_from(node)
        for link in new.links:
            item = self.links.get(link.id)
            if item is not None and (item.source.node_id, item.target.node_id) != (link.source, link.target):
                self._remove_link_item(link.id)
                item = None
            if item is None:
                item = LinkItem(link.id, self.nodes[link.source], self.nodes[link.target])
                self.links[link.id] = item
                self.addItem(item)
            else:
                item.update_path()
        self._arrange(new)

    def _arrange(self, project: Project) -> None:
        """Turn each node to face its data's way and split queue-map sections into lanes."""
        for node_id, left in facing_left(project).items():
            self.nodes[node_id].set_facing(left)
        lanes, notes = queue_map_lanes(project)
        for node in project.nodes_of("qapply"):
            if node.params.get("mq_connection") == "client":
                notes.setdefault(node.id, "MQ client")
        for link_id, item in self.links.items():
            item.set_lanes(lanes.get(link_id, 1))
        for node_id, item in self.nodes.items():
            item.set_note(notes.get(node_id, ""))

    def _remove_link_item(self, link_id: str) -> None:
        item = self.links.pop(link_id, None)
        if item is not None:
            item.detach()
            self.removeItem(item)

    def set_loads(self, loads: dict[str, NodeLoad] | None) -> None:
        """Colour nodes by predicted utilisation; ``None`` clears every colour."""
        for node_id, item in self.nodes.items():
            load = (loads or {}).get(node_id)
            if load is None:
                item.set_load(None)
            else:
                item.set_load(load.utilisation, load.stages, load.bottleneck)

    # -- selection -------------------------------------------------------------------------
    def selected_node_ids(self) -> list[str]:
        return [i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)]

    def selected_link_ids(self) -> list[str]:
        return [i.link_id for i in self.selectedItems() if isinstance(i, LinkItem)]

    def _selection_changed(self) -> None:
        ids = self.selected_node_ids()
        self.node_selected.emit(ids[0] if len(ids) == 1 else "")

    def select_node(self, node_id: str) -> None:
        """Select exactly the node ``node_id``."""
        self.clearSelection()
        if node_id in self.nodes:
            self.nodes[node_id].setSelected(True)

    def delete_selected(self) -> None:
        """Delete the selected nodes and links as one undo step."""
        self.document.remove_items(self.selected_node_ids(), self.selected_link_ids())

    def select_all(self) -> None:
        """Select every node."""
        for item in self.nodes.values():
            item.setSelected(True)

    def open_properties(self, node_id: str) -> None:
        """Select ``node_id`` and ask for its properties."""
        self.select_node(node_id)
        self.properties_requested.emit(node_id)

    # -- keyboard ----------------------------------------------------------------------------
    def _centres(self) -> dict[str, tuple[float, float]]:
        return {
            node_id: (item.pos().x() + NODE_W / 2, item.pos().y() + NODE_H / 2)
            for node_id, item in self.nodes.items()
        }

    def current_node_id(self) -> str | None:
        """The keyboard's node: the focused node if selected, else the single selected node."""
        focus = self.focusItem()
        if isinstance(focus, NodeItem) and focus.isSelected():
            return focus.node_id
        ids = self.selected_node_ids()
        return ids[0] if len(ids) == 1 else None

    def focus_node(self, node_id: str) -> None:
        """Select ``node_id`` alone and give it the keyboard focus (drawn with a dotted frame)."""
        self.select_node(node_id)
        self.setFocusItem(self.nodes[node_id])

    def select_step(self, forwards: bool) -> bool:
        """Select the next (or previous) node in reading order; False past the last (or first) node,
        where the selection is cleared so Tab can leave the canvas."""
        order = navigation.reading_order(self._centres(), NODE_H)
        node_id = navigation.step(order, self.current_node_id(), forwards)
        if node_id is None:
            self.clearSelection()
            self.setFocusItem(None)
            return False
        self.focus_node(node_id)
        return True

    def select_towards(self, direction: str) -> bool:
        """Select the nearest node ``direction`` (``left``...) of the current one (the first without one)."""
        current = self.current_node_id()
        if current is None:
            return self.select_step(forwards=True)
        node_id = navigation.nearest(self._centres(), current, direction)
        if node_id is not None:
            self.focus_node(node_id)
        return node_id is not None

    def nudge_selected(self, dx: float, dy: float) -> None:
        """Move the selected nodes by (``dx``, ``dy``) scene units; consecutive nudges are one undo step."""
        ids = self.selected_node_ids()
        if not ids:
            return
        positions = {}
        for node_id in ids:
            node = self.document.project.node(node_id)
            positions[node_id] = (round(node.x + dx, 1), round(node.y + dy, 1))
        self.document.move_nodes(positions, merge=True)

    # -- gestures ----------------------------------------------------------------------------
    def try_link(self, source_id: str, target_id: str) -> bool:
        """Ask the document to link two nodes; a refusal emits the model's message unchanged."""
        try:
            self.document.add_link(source_id, target_id)
        except QrtuneError as e:
            self.message.emit(str(e))
            return False
        return True

    def add_kind_at(self, kind_id: str, pos: QPointF) -> str | None:
        """Add a node of ``kind_id`` centred at scene position ``pos``."""
        if kind_id not in KINDS:
            self.message.emit(f"unknown node kind {kind_id!r}")
            return None
        node_id = self.document.add_node(kind_id, round(pos.x() - NODE_W / 2), round(pos.y() - NODE_H / 2))
        self.select_node(node_id)
        return node_id

    def contextMenuEvent(self, event) -> None:
        from app.canvas.menus import menu_for

        menu_for(self, event.scenePos(), event.widget()).exec(event.screenPos())
        event.accept()

    def mousePressEvent(self, event) -> None:
        item = self.itemAt(event.scenePos(), self.views()[0].transform() if self.views() else _identity())
        if isinstance(item, PortItem) and item.output and event.button() == Qt.LeftButton:
            self._drag_port = item
            self._drag_line = QGraphicsPathItem()
            self._drag_line.setPen(QPen(QColor(style.QUEUE), 2, Qt.DashLine))
            self._drag_line.setZValue(5)
            self.addItem(self._drag_line)
            self._drag_line.setPath(link_path(item.scene_centre(), event.scenePos(), item.side()))
            event.accept()
            return
        if event.button() == Qt.RightButton:  # the menu's press: keep the selection the menu acts on
            event.accept()
            return
        super().mousePressEvent(event)
        self._press_positions = {
            i.node_id: QPointF(i.pos()) for i in self.selectedItems() if isinstance(i, NodeItem)
        }

    def mouseMoveEvent(self, event) -> None:
        if self._drag_line is not None:
            port = self._drag_port
            self._drag_line.setPath(link_path(port.scene_centre(), event.scenePos(), port.side()))
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._drag_line is not None:
            source = self._drag_port.node_item
            self.removeItem(self._drag_line)
            self._drag_line = None
            self._drag_port = None
            target = self.node_at(event.scenePos())
            if target is not None and target is not source:
                self.try_link(source.node_id, target.node_id)
            event.accept()
            return
        super().mouseReleaseEvent(event)
        self.commit_moves()

    def commit_moves(self) -> None:
        """Turn dragged item positions into one document move."""
        moved = {}
        for node_id, item in self.nodes.items():
            node = self.document.project.node(node_id)
            if (item.pos().x(), item.pos().y()) != (node.x, node.y):
                moved[node_id] = (round(item.pos().x(), 1), round(item.pos().y(), 1))
        self._press_positions = {}
        if moved:
            self.document.move_nodes(moved)

    def node_at(self, pos: QPointF) -> NodeItem | None:
        """The node item under scene position ``pos``, if any."""
        for item in self.items(pos):
            while item is not None and not isinstance(item, NodeItem):
                item = item.parentItem()
            if isinstance(item, NodeItem):
                return item
        return None

    def link_at(self, pos: QPointF) -> LinkItem | None:
        """The link item under scene position ``pos``, if any."""
        return next((i for i in self.items(pos) if isinstance(i, LinkItem) and i.shape().contains(pos)), None)

    # -- drops from the palette ------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:
        if event.mimeData().hasFormat(KIND_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:
        if event.mimeData().hasFormat(KIND_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:
        if event.mimeData().hasFormat(KIND_MIME):
            kind_id = bytes(event.mimeData().data(KIND_MIME)).decode()
            self.add_kind_at(kind_id, event.scenePos())
            event.acceptProposedAction()
        else:
            super().dropEvent(event)


def queue_map_lanes(project: Project) -> tuple[dict[str, int], dict[str, str]]:
    """Lanes of each link inside a flow's queue-map section, and the note of the nodes carrying them.

    A Q Capture with ``queue_maps`` above one sends each map over its own send queue, channel and
    receive queue to its own Q Apply browser: every link from Q Capture to Q Apply of its flows
    is drawn as one lane per queue map, and Q Capture and the channel say how many.

    Returns
    -------
    (dict, dict)
        Link id -> lanes (only links with more than one); node id -> note (``4 queue maps``).
    """
    if project.topology not in ("unidirectional", "bidirectional", "peer-to-peer"):
        return {}, {}
    link_ids = {(link.source, link.target): link.id for link in project.links}
    lanes: dict[str, int] = {}
    notes: dict[str, str] = {}
    for flow in flows(project, limit=ROLE_FLOWS):
        maps = int(flow[1].params.get("queue_maps", 1) or 1)
        if maps <= 1:
            continue
        section = flow[1:-1]  # Q Capture .. Q Apply
        for a, b in zip(section, section[1:]):
            lanes[link_ids[(a.id, b.id)]] = maps
        for node in section:
            if node.kind in ("qcapture", "channel"):
                notes[node.id] = f"{maps} queue maps"
    return lanes, notes


def _identity():
    from PySide6.QtGui import QTransform

    return QTransform()
