"""Scene items drawn from model objects: nodes with ports, and links.

Items never change the model: the scene reads their positions after a drag and
asks the document to move the nodes.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsObject,
    QGraphicsPathItem,
    QStyle,
    QStyleOptionGraphicsItem,
)

from app import style
from app.canvas.platform_marks import CLIENT_LINK_TEXT, is_client_link, platform_text
from engine.metrics.stages import stage_label
from engine.model import Node
from engine.registry import KINDS

NODE_W = 150.0
NODE_H = 64.0
#: Smallest on-screen size (points) of a node's title when the canvas is zoomed out.
MIN_SCREEN_PT = 8.0
PORT_R = 7.0


def utilisation_colour(u: float) -> QColor:
    """Green (idle) through yellow to red (saturated) for utilisation ``u`` in 0..1."""
    u = min(max(u, 0.0), 1.0)
    if u < 0.6:
        t = u / 0.6
        r, g, b = 0xC8 + (0xFF - 0xC8) * t, 0xE6 + (0xE8 - 0xE6) * t, 0xC9 + (0x9C - 0xC9) * t
    else:
        t = (u - 0.6) / 0.4
        r, g, b = 0xFF, 0xE8 + (0x9A - 0xE8) * t, 0x9C + (0x8F - 0x9C) * t
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
            QGraphicsItem.ItemIsMovable
            | QGraphicsItem.ItemIsSelectable
            | QGraphicsItem.ItemSendsGeometryChanges
        )
        self.setZValue(1)
        self.in_port = PortItem(self, output=False)
        self.out_port = PortItem(self, output=True)
        self.links: list[LinkItem] = []
        self.utilisation: float | None = None
        self.stage_names: tuple[str, ...] = ()
        self.bottleneck = False
        self.node = node
        self.update_from(node)

    def update_from(self, node: Node) -> None:
        """Refresh label, kind and position from the model."""
        self.label = node.label
        self.kind = node.kind
        self.node = node
        self.platform = platform_text(node)
        for link in self.links:  # a client connection is drawn from Q Apply's mq_connection
            link.update()
        self.out_port.setVisible(bool(KINDS[node.kind].links_to))
        self.in_port.setVisible(any(node.kind in k.links_to for k in KINDS.values()))
        if self.pos() != QPointF(node.x, node.y):
            self.setPos(node.x, node.y)
        self._update_tooltip()
        self.update()

    def set_load(
        self, utilisation: float | None, stages: tuple[str, ...] = (), bottleneck: bool = False
    ) -> None:
        """Colour by ``utilisation`` (None: no prediction) and mark the bottleneck."""
        self.utilisation = utilisation
        self.stage_names = stages
        self.bottleneck = bottleneck
        self._update_tooltip()
        self.update()

    def _update_tooltip(self) -> None:
        text = f"<b>{self.label}</b><br>{KINDS[self.kind].name}"
        if self.platform:
            text += f"<br>{self.platform}"
        if self.utilisation is not None:
            text += f"<br>utilisation {self.utilisation * 100:.0f}% ({', '.join(map(stage_label, self.stage_names))})"
        if self.bottleneck:
            text += "<br><b>bottleneck</b>"
        self.setToolTip(text)

    def boundingRect(self) -> QRectF:
        # room for a grown bottleneck tag above and the platform tag below
        return QRectF(-PORT_R - 2, -34, NODE_W + 2 * PORT_R + 4, NODE_H + 56)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        rect = QRectF(0, 0, NODE_W, NODE_H)
        fill = (
            utilisation_colour(self.utilisation)
            if self.utilisation is not None
            else QColor(style.KIND_COLOURS.get(self.kind, style.NEUTRAL_FILL))
        )
        selected = bool(option.state & QStyle.State_Selected)
        pen = QPen(QColor(style.SELECTED) if selected else QColor(style.OUTLINE), 2.5 if selected else 1.2)
        if self.bottleneck:
            pen = QPen(QColor(style.BOTTLENECK), 3.5)
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(rect, 8, 8)
        # text keeps a legible size on screen when the canvas is zoomed out to fit: it grows in the
        # scene (up to 1.5x, what still fits the box) and the kind line, the least needed, gives way
        lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
        grow = min(max(1.0, MIN_SCREEN_PT / (style.NODE_TITLE_PT * max(lod, 1e-3))), 1.5)
        zoomed_out = grow > 1.2
        bold = QFont(painter.font())
        bold.setBold(True)
        bold.setPointSizeF(style.NODE_TITLE_PT * grow)
        small = QFont(bold)
        small.setBold(False)
        small.setPointSizeF(style.NODE_DETAIL_PT * grow)
        line_h = QFontMetricsF(small).height()
        lines = [] if zoomed_out else [KINDS[self.kind].name]
        if self.utilisation is not None:
            lines.append(f"{self.utilisation * 100:.0f}% busy")
        title_box = QRectF(6, 2, NODE_W - 12, NODE_H - 4 - len(lines) * line_h)
        painter.save()
        painter.setClipRect(title_box)  # a title of more lines than fit is cut, never drawn over the rest
        painter.setFont(bold)
        painter.setPen(QColor(style.NODE_TEXT))
        painter.drawText(title_box, Qt.AlignLeft | Qt.AlignVCenter | Qt.TextWordWrap, self.label)
        painter.restore()
        painter.setFont(small)
        painter.setPen(QColor(style.NODE_DETAIL_TEXT))
        for i, text in enumerate(lines):
            painter.drawText(
                QRectF(6, title_box.bottom() + i * line_h, NODE_W - 12, line_h),
                Qt.AlignLeft | Qt.AlignVCenter,
                QFontMetricsF(small).elidedText(text, Qt.ElideRight, NODE_W - 12),
            )
        if self.platform:
            tag_font = QFont(small)
            tag_font.setPointSizeF(min(6.5 * grow, 10.0))
            draw_platform_tag(painter, QPointF(0, NODE_H + 1), self.platform, tag_font)
        if self.bottleneck:
            tag_font = QFont(small)
            tag_font.setBold(True)
            tag_font.setPointSizeF(min(7.0 * grow, 11.0))
            width = min(QFontMetricsF(tag_font).horizontalAdvance("BOTTLENECK") + 12, NODE_W)
            height = QFontMetricsF(tag_font).height() + 2
            tag = QRectF(NODE_W - width, -height - 1, width, height)
            painter.setPen(Qt.NoPen)
            painter.setBrush(QColor(style.BOTTLENECK))
            painter.drawRoundedRect(tag, 4, 4)
            painter.setFont(tag_font)
            painter.setPen(QColor("white"))
            painter.drawText(tag, Qt.AlignCenter, "BOTTLENECK")

    def itemChange(self, change, value):
        if change == QGraphicsItem.ItemPositionHasChanged:
            for link in self.links:
                link.update_path()
        return super().itemChange(change, value)


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
        client = self.is_client()
        painter.setPen(QPen(colour, 3 if selected else 1.8, Qt.DashLine if client else Qt.SolidLine))
        painter.setBrush(Qt.NoBrush)
        painter.drawPath(self.path())
        if client:
            font = QFont(painter.font())
            font.setPointSizeF(7.0)
            draw_link_label(painter, self.path(), CLIENT_LINK_TEXT, colour, font)
        b = self.target.in_port.scene_centre()
        painter.setBrush(colour)
        painter.setPen(Qt.NoPen)
        painter.drawPolygon(arrow_head(b - QPointF(PORT_R, 0), 0.0))

    def is_client(self) -> bool:
        """The link is an MQ client connection (drawn dashed and labelled), not a bindings link."""
        return is_client_link(self.source.node, self.target.node)

    def shape(self) -> QPainterPath:
        from PySide6.QtGui import QPainterPathStroker

        stroker = QPainterPathStroker()
        stroker.setWidth(10)
        return stroker.createStroke(self.path())

    def boundingRect(self) -> QRectF:
        return super().boundingRect().adjusted(-60, -22, 60, 12)  # room for a client connection's label


def draw_platform_tag(painter: QPainter, top_left: QPointF, text: str, font: QFont) -> None:
    """A small slate tag in ``font`` naming a node's platform, hanging below the node's bottom-left corner."""
    metrics = QFontMetricsF(font, painter.device())  # the device's resolution: a PDF is not 96 dpi
    width = min(metrics.horizontalAdvance(text) + 10, NODE_W)
    tag = QRectF(top_left.x(), top_left.y(), width, metrics.height() + 2)
    painter.save()
    painter.setPen(Qt.NoPen)
    painter.setBrush(QColor(style.PLATFORM_TAG))
    painter.drawRoundedRect(tag, 4, 4)
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(tag, Qt.AlignCenter, metrics.elidedText(text, Qt.ElideRight, width - 6))
    painter.restore()


def draw_link_label(painter: QPainter, path: QPainterPath, text: str, colour: QColor, font: QFont) -> None:
    """Write ``text`` in ``font`` above the middle of a link (a client connection's name)."""
    middle = path.pointAtPercent(0.5)
    metrics = QFontMetricsF(font, painter.device())  # the device's resolution: a PDF is not 96 dpi
    width, height = metrics.horizontalAdvance(text) + 4, metrics.height()
    painter.save()
    painter.setFont(font)
    painter.setPen(colour)
    painter.drawText(
        QRectF(middle.x() - width / 2, middle.y() - height - 4, width, height), Qt.AlignCenter, text
    )
    painter.restore()


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
