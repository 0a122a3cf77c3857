"""Scene items drawn from model objects: nodes with ports, and links.

Items never change the model: the scene reads their positions after a drag and
asks the document to move the nodes.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QGraphicsObject, QGraphicsPathItem, QStyle

from app import style
from engine.model import Node
from engine.registry import KINDS

NODE_W = 150.0
NODE_H = 64.0
PORT_R = 7.0



def utilisation_colour(u: float) -> QColor:
    """Green (idle) through yellow to red (saturated) for utilisation ``u`` in 0..1."""
    u = min(max(u, 0.0), 1.0)
    if u < 0.6:
        t = u / 0.6
        r, g, b = 0xc8 + (0xff - 0xc8) * t, 0xe6 + (0xe8 - 0xe6) * t, 0xc9 + (0x9c - 0xc9) * t
    else:
        t = (u - 0.6) / 0.4
        r, g, b = 0xff, 0xe8 + (0x9a - 0xe8) * t, 0x9c + (0x8f - 0x9c) * t
    return QColor(int(r), int(g), int(b))


class PortItem(QGraphicsItem):
    """A node's input (left) or output (right) port; links are dragged from output ports."""

    def __init__(self, node_item: NodeItem, output: bool):
        super().__init__(node_item)
        self.node_item = node_item
        self.output = output
        self.setPos(NODE_W if output else 0.0, NODE_H / 2)
        self.setAcceptHoverEvents(True)
        self._hover = False
        if output:
            self.setCursor(Qt.CrossCursor)
            self.setToolTip("Drag to another node to link")

    def boundingRect(self) -> QRectF:
        r = PORT_R + 2
        return QRectF(-r, -r, 2 * r, 2 * r)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        painter.setPen(QPen(QColor(style.PORT_OUTLINE), 1.2))
        fill = style.CAPTURE if self.output else style.PORT
        if self._hover:
            fill = style.QUEUE
        painter.setBrush(QBrush(QColor(fill)))
        painter.drawEllipse(QPointF(0, 0), PORT_R, PORT_R)

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()

    def scene_centre(self) -> QPointF:
        return self.mapToScene(QPointF(0, 0))


class NodeItem(QGraphicsObject):
    """One node: label, kind, utilisation colour and bottleneck mark."""

    def __init__(self, node: Node):
        super().__init__()
        self.node_id = node.id
        self.setFlags(
            QGraphicsItem.ItemIsMovable | QGraphicsItem.ItemIsSelectable | QGraphicsItem.ItemSendsGeometryChanges
        )
        self.setZValue(1)
        self.in_port = PortItem(self, output=False)
        self.out_port = PortItem(self, output=True)
        self.links: list[LinkItem] = []
        self.utilisation: float | None = None
        self.stage_names: tuple[str, ...] = ()
        self.bottleneck = False
        self.update_from(node)

    def update_from(self, node: Node) -> None:
        """Refresh label, kind and position from the model."""
        self.label = node.label
        self.kind = node.kind
        self.out_port.setVisible(bool(KINDS[node.kind].links_to))
        self.in_port.setVisible(any(node.kind in k.links_to for k in KINDS.values()))
        if self.pos() != QPointF(node.x, node.y):
            self.setPos(node.x, node.y)
        self._update_tooltip()
        self.update()

    def set_load(self, utilisation: float | None, stages: tuple[str, ...] = (), bottleneck: bool = False) -> None:
        """Colour by ``utilisation`` (None: no prediction) and mark the bottleneck."""
        self.utilisation = utilisation
        self.stage_names = stages
        self.bottleneck = bottleneck
        self._update_tooltip()
        self.update()

    def _update_tooltip(self) -> None:
        text = f"<b>{self.label}</b><br>{KINDS[self.kind].name}"
        if self.utilisation is not None:
            text += f"<br>utilisation {self.utilisation * 100:.0f}% ({', '.join(self.stage_names)})"
        if self.bottleneck:
            text += "<br><b>bottleneck</b>"
        self.setToolTip(text)

    def boundingRect(self) -> QRectF:
        return QRectF(-PORT_R - 2, -18, NODE_W + 2 * PORT_R + 4, NODE_H + 20)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        rect = QRectF(0, 0, NODE_W, NODE_H)
        fill = utilisation_colour(self.utilisation) if self.utilisation is not None else QColor(
            style.KIND_COLOURS.get(self.kind, style.NEUTRAL_FILL))
        selected = bool(option.state & QStyle.State_Selected)
        pen = QPen(QColor(style.SELECTED) if selected else QColor(style.OUTLINE), 2.5 if selected else 1.2)
        if self.bottleneck:
            pen = QPen(QColor(style.BOTTLENECK), 3.5)
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(rect, 8, 8)
        painter.setPen(QColor(style.NODE_TEXT))
        bold = QFont(painter.font())
        bold.setBold(True)
        bold.setPointSizeF(style.NODE_TITLE_PT)
        painter.setFont(bold)
        painter.drawText(QRectF(8, 4, NODE_W - 16, 22), Qt.AlignLeft | Qt.AlignVCenter | Qt.TextSingleLine,
                         _elide(self.label, 24))
        small = QFont(bold)
        small.setBold(False)
        small.setPointSizeF(style.NODE_DETAIL_PT)
        painter.setFont(small)
        painter.setPen(QColor(style.NODE_DETAIL_TEXT))
        painter.drawText(QRectF(8, 24, NODE_W - 16, 18), Qt.AlignLeft | Qt.AlignVCenter, KINDS[self.kind].name)
        if self.utilisation is not None:
            painter.drawText(QRectF(8, 42, NODE_W - 16, 18), Qt.AlignLeft | Qt.AlignVCenter,
                             f"{self.utilisation * 100:.0f}% busy")
        if self.bottleneck:
            tag = QRectF(NODE_W - 84, -16, 84, 15)
            painter.setPen(Qt.NoPen)
            painter.setBrush(QColor(style.BOTTLENECK))
            painter.drawRoundedRect(tag, 4, 4)
            painter.setPen(QColor("white"))
            painter.drawText(tag, Qt.AlignCenter, "BOTTLENECK")

    def itemChange(self, change, value):
        if change == QGraphicsItem.ItemPositionHasChanged:
            for link in self.links:
                link.update_path()
        return super().itemChange(change, value)


def _elide(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


class LinkItem(QGraphicsPathItem):
    """A directed link from a node's output port to another node's input port."""

    def __init__(self, link_id: str, source: NodeItem, target: NodeItem):
        super().__init__()
        self.link_id = link_id
        self.source = source
        self.target = target
        self.setFlags(QGraphicsItem.ItemIsSelectable)
        self.setZValue(0)
        source.links.append(self)
        target.links.append(self)
        self.setToolTip(f"{source.label} \u2192 {target.label}")
        self.update_path()

    def detach(self) -> None:
        for end in (self.source, self.target):
            if self in end.links:
                end.links.remove(self)

    def update_path(self) -> None:
        a = self.source.out_port.scene_centre()
        b = self.target.in_port.scene_centre()
        self.setPath(link_path(a, b))

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        selected = bool(option.state & QStyle.State_Selected)
        colour = QColor(style.SELECTED) if selected else QColor(style.OUTLINE)
        painter.setPen(QPen(colour, 3 if selected else 1.8))
        painter.setBrush(Qt.NoBrush)
        painter.drawPath(self.path())
        b = self.target.in_port.scene_centre()
        painter.setBrush(colour)
        painter.setPen(Qt.NoPen)
        painter.drawPolygon(arrow_head(b - QPointF(PORT_R, 0), 0.0))

    def shape(self) -> QPainterPath:
        from PySide6.QtGui import QPainterPathStroker

        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        return stroker.createStroke(self.path())

    def boundingRect(self) -> QRectF:
        return super().boundingRect().adjusted(-12, -12, 12, 12)


def link_path(a: QPointF, b: QPointF) -> QPainterPath:
    """A smooth S-curve from ``a`` (output port) to ``b`` (input port)."""
    path = QPainterPath(a)
    dx = max(abs(b.x() - a.x()) * 0.5, 40.0)
    path.cubicTo(a + QPointF(dx, 0), b - QPointF(dx, 0), b)
    return path


def arrow_head(tip: QPointF, angle: float, size: float = 9.0) -> QPolygonF:
    """A triangle pointing along ``angle`` (radians) with its tip at ``tip``."""
    left = tip - QPointF(math.cos(angle - 0.45) * size, math.sin(angle - 0.45) * size)
    right = tip - QPointF(math.cos(angle + 0.45) * size, math.sin(angle + 0.45) * size)
    return QPolygonF([tip, left, right])
