"""Scene items drawn from model objects: nodes with ports, and links.

Items never change the model: the scene reads their positions after a drag and
asks the document to move the nodes. Text is written at the platform's default
font size on screen: when the canvas is zoomed out to fit, a node's text grows in
the scene so it keeps that size, wraps inside the box and gives up its least
needed lines first (the kind, then the load); the tooltip always has everything.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QGuiApplication,
    QPainter,
    QPainterPath,
    QPainterPathStroker,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsObject,
    QGraphicsPathItem,
    QStyle,
    QStyleOptionGraphicsItem,
)

from app import style
from app.canvas.geometry import arrow_head, end_angle, lane_offsets, link_path
from app.canvas.platform_marks import client_link_text, is_client_link, platform_text
from engine.metrics.stages import stage_label
from engine.model import Node
from engine.registry import KINDS

NODE_W = 150.0
NODE_H = 100.0
PORT_R = 7.0
#: Least zoom at which a node's text at the platform's size fits its box (the view's fit stops there).
READABLE_ZOOM = 0.48
#: Most a node's text grows in the scene to keep its screen size (zoomed out further, it shrinks with the canvas).
MAX_TEXT_GROWTH = 1.0 / READABLE_ZOOM
#: Room around a node for its bottleneck and platform tags at the largest text growth (scene units).
TAG_ROOM = 60.0
#: Length of a link's arrow head (scene units at 100%; it keeps most of its screen size when zoomed out).
ARROW_SIZE = 11.0
#: Scene distance between the strands of a link carrying several queue maps.
LANE_SPACING = 9.0
__all__ = ["NODE_H", "NODE_W", "PORT_R", "LinkItem", "NodeItem", "PortItem", "arrow_head", "link_path"]


def default_point_size() -> float:
    """The platform's default font size (points) that canvas text is written at on screen."""
    size = QGuiApplication.font().pointSizeF()
    return size if size > 0 else 9.0


def text_growth(painter: QPainter) -> float:
    """How much larger than its point size text is set in the scene so it keeps that size on screen."""
    lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform(painter.worldTransform())
    return min(max(1.0, 1.0 / max(lod, 1e-3)), MAX_TEXT_GROWTH)


def canvas_font(painter: QPainter, bold: bool = False) -> QFont:
    """The platform's default font at its default size on screen, for ``painter``'s zoom."""
    font = QFont(QGuiApplication.font())
    font.setPointSizeF(default_point_size() * text_growth(painter))
    font.setBold(bold)
    return font


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
    """A node's input or output port; links are dragged from output ports.

    The output port sits on the side the node's data leaves by (its right, or its left when the
    node faces left: :meth:`NodeItem.set_facing`), the input port on the other side.
    """

    def __init__(self, node_item: NodeItem, output: bool):
        super().__init__(node_item)
        self.node_item = node_item
        self.output = output
        self.place(facing_left=False)
        self.setAcceptHoverEvents(True)
        self._hover = False
        if output:
            self.setCursor(Qt.CrossCursor)
            self.setToolTip("Drag to another node to link")

    def place(self, facing_left: bool) -> None:
        """Put the port on its side for a node facing left or right."""
        on_right = self.output != facing_left
        self.setPos(NODE_W if on_right else 0.0, NODE_H / 2)

    def side(self) -> float:
        """+1 when the port is on its node's right side, -1 on its left."""
        return 1.0 if self.pos().x() > 0 else -1.0

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
    """One node: label, kind, utilisation colour and bottleneck mark; focusable for the keyboard."""

    def __init__(self, node: Node):
        super().__init__()
        self.node_id = node.id
        self.setFlags(
            QGraphicsItem.ItemIsMovable
            | QGraphicsItem.ItemIsSelectable
            | QGraphicsItem.ItemIsFocusable
            | QGraphicsItem.ItemSendsGeometryChanges
        )
        self.setZValue(1)
        self.in_port = PortItem(self, output=False)
        self.out_port = PortItem(self, output=True)
        self.links: list[LinkItem] = []
        self.utilisation: float | None = None
        self.stage_names: tuple[str, ...] = ()
        self.bottleneck = False
        self.facing_left = False
        #: A note under the kind (``4 queue maps``), set by the scene.
        self.note = ""
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

    def set_facing(self, facing_left: bool) -> None:
        """Turn the node's ports so its data leaves by its left side (``facing_left``) or its right."""
        if facing_left == self.facing_left:
            return
        self.facing_left = facing_left
        self.in_port.place(facing_left)
        self.out_port.place(facing_left)
        for link in self.links:
            link.update_path()

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
        if self.note:
            text += f"<br>{self.note}"
        if self.platform:
            text += f"<br>{self.platform}"
        if self.utilisation is not None:
            text += f"<br>utilisation {self.utilisation * 100:.0f}% ({', '.join(map(stage_label, self.stage_names))})"
        if self.bottleneck:
            text += "<br><b>bottleneck</b>"
        self.setToolTip(text)

    def set_note(self, note: str) -> None:
        """Write ``note`` (the queue maps a node carries) under its name."""
        if note != self.note:
            self.note = note
            self._update_tooltip()
            self.update()

    def box(self) -> QRectF:
        """The node's box in its own coordinates (what the view fits and the keyboard moves between)."""
        return QRectF(0, 0, NODE_W, NODE_H)

    def boundingRect(self) -> QRectF:
        # room for the bottleneck tag above and the platform tag below at the largest text growth
        return QRectF(-TAG_ROOM, -TAG_ROOM, NODE_W + 2 * TAG_ROOM, NODE_H + 2 * TAG_ROOM)

    def shape(self) -> QPainterPath:
        """What a click or a drop hits: the box (the ports are items of their own), not the tags' room."""
        path = QPainterPath()
        path.addRoundedRect(self.box(), 8, 8)
        return path

    def detail_lines(self) -> list[str]:
        """The lines under the name, most needed first: the load, the queue maps, the kind."""
        lines = []
        if self.utilisation is not None:
            lines.append(f"{self.utilisation * 100:.0f}% busy")
        if self.note:
            lines.append(self.note)
        lines.append(KINDS[self.kind].name)
        return lines

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        rect = self.box()
        fill = (
            utilisation_colour(self.utilisation)
            if self.utilisation is not None
            else QColor(style.KIND_COLOURS.get(self.kind, style.NEUTRAL_FILL))
        )
        selected = bool(option.state & QStyle.State_Selected)
        pen = QPen(QColor(style.SELECTED) if selected else QColor(style.OUTLINE), 3.0 if selected else 1.2)
        if self.bottleneck:
            pen = QPen(QColor(style.BOTTLENECK), 3.5)
        painter.setPen(pen)
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(rect, 8, 8)
        if selected and self.hasFocus():  # the keyboard's node: a second, dotted frame
            painter.setPen(QPen(QColor(style.SELECTED), 1.2, Qt.DotLine))
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(rect.adjusted(-5, -5, 5, 5), 10, 10)
        self._paint_text(painter)
        small = canvas_font(painter)
        if self.platform:
            draw_platform_tag(painter, QPointF(0, NODE_H + 2), self.platform, small)
        if self.bottleneck:
            draw_bottleneck_tag(painter, canvas_font(painter, bold=True))

    def _paint_text(self, painter: QPainter) -> None:
        """The name (wrapped) and as many detail lines as the box holds, at the screen's default size."""
        bold, small = canvas_font(painter, bold=True), canvas_font(painter)
        width = NODE_W - 12
        line_h = QFontMetricsF(bold).height()
        room = max(1, int((NODE_H - 6) // line_h))
        title_lines = _wrapped_lines(bold, width, self.label)
        metrics = QFontMetricsF(small)
        details = self.detail_lines()
        if metrics.horizontalAdvance(details[-1]) > width:  # the kind, least needed: whole or not at all
            details = details[:-1]
        keep = max(0, min(len(details), room - min(title_lines, 3)))  # the whole name first
        details = details[:keep]
        title_h = min(title_lines, room - keep) * line_h
        top = (NODE_H - title_h - keep * line_h) / 2
        title_box = QRectF(6, top, width, title_h)
        painter.save()
        painter.setClipRect(title_box)  # a name of more lines than fit is cut, never drawn over the rest
        painter.setFont(bold)
        painter.setPen(QColor(style.NODE_TEXT))
        painter.drawText(title_box, Qt.AlignHCenter | Qt.AlignTop | Qt.TextWordWrap, self.label)
        painter.restore()
        painter.setFont(small)
        painter.setPen(QColor(style.NODE_DETAIL_TEXT))
        for i, text in enumerate(details):
            painter.drawText(
                QRectF(6, title_box.bottom() + i * line_h, width, line_h),
                Qt.AlignHCenter | Qt.AlignVCenter,
                metrics.elidedText(text, Qt.ElideRight, width),
            )

    def itemChange(self, change, value):
        if change == QGraphicsItem.ItemPositionHasChanged:
            for link in self.links:
                link.update_path()
        return super().itemChange(change, value)


def _wrapped_lines(font: QFont, width: float, text: str) -> int:
    """Lines ``text`` takes in ``font`` wrapped at word boundaries to ``width``."""
    metrics = QFontMetricsF(font)
    height = metrics.boundingRect(QRectF(0, 0, width, 1e6), Qt.TextWordWrap, text).height()
    return max(1, round(height / metrics.lineSpacing()))


class LinkItem(QGraphicsPathItem):
    """A directed link from a node's output port to another node's input port.

    The arrow head points along the link into its target, whichever side the ports are on. A
    link inside a flow's queue-map section (Q Capture to Q Apply) of a Q Capture with several
    queue maps is drawn as one strand, one lane, per queue map (:attr:`lanes`).
    """

    def __init__(self, link_id: str, source: NodeItem, target: NodeItem):
        super().__init__()
        self.link_id = link_id
        self.source = source
        self.target = target
        self.lanes = 1
        self.setFlags(QGraphicsItem.ItemIsSelectable)
        self.setZValue(0)
        source.links.append(self)
        target.links.append(self)
        self._update_tooltip()
        self.update_path()

    def detach(self) -> None:
        for end in (self.source, self.target):
            if self in end.links:
                end.links.remove(self)

    def set_lanes(self, lanes: int) -> None:
        """Draw the link as ``lanes`` strands, one per queue map it carries."""
        if lanes != self.lanes:
            self.prepareGeometryChange()
            self.lanes = lanes
            self._update_tooltip()
            self.update()

    def _update_tooltip(self) -> None:
        text = f"{self.source.label} \u2192 {self.target.label}"
        if self.is_client():
            text += "<br>MQ client connection (SVRCONN channel)"
            if self.target.node.params.get("reads_send_queue"):
                text += f": {self.target.label} reads the send queue on {self.source.label}, no channel"
        if self.lanes > 1:
            text += f"<br>{self.lanes} queue maps, one lane each"
        self.setToolTip(text)

    def ends(self) -> tuple[QPointF, QPointF, float, float]:
        """Scene positions of the output and input ports and their directions (see :func:`link_path`)."""
        out, inp = self.source.out_port, self.target.in_port
        return out.scene_centre(), inp.scene_centre(), out.side(), -inp.side()

    def update_path(self) -> None:
        a, b, out_dir, in_dir = self.ends()
        self.setPath(link_path(a, b, out_dir, in_dir))

    def strands(self) -> list[QPainterPath]:
        """The link's path once per lane, side by side."""
        if self.lanes <= 1:
            return [self.path()]
        return [self.path().translated(0, dy) for dy in lane_offsets(self.lanes, LANE_SPACING)]

    def arrow_angle(self) -> float:
        """Direction (radians, y down) the arrow head points: along the link's end, into the target."""
        return end_angle(self.path())

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing)
        selected = bool(option.state & QStyle.State_Selected)
        colour = QColor(style.SELECTED) if selected else QColor(style.OUTLINE)
        client = self.is_client()
        grow = text_growth(painter)  # lines and arrow heads keep their screen size when zoomed out
        pen = QPen(colour, (3 if selected else 1.8) * grow, Qt.DashLine if client else Qt.SolidLine)
        painter.setPen(pen)
        painter.setBrush(Qt.NoBrush)
        strands = self.strands()
        for strand in strands:
            painter.drawPath(strand)
        if client:
            font = canvas_font(painter)
            text = client_link_text(self.target.node)
            widest = max(QFontMetricsF(font).horizontalAdvance(line) for line in text.split("\n"))
            if widest < self.path().length() - 2 * PORT_R:
                draw_link_label(painter, self.path(), text, colour, font)  # only where the gap holds it
        painter.setBrush(colour)
        painter.setPen(Qt.NoPen)
        angle = self.arrow_angle()
        for strand in strands:
            end = strand.pointAtPercent(1.0)
            back = QPointF(PORT_R * math.cos(angle), PORT_R * math.sin(angle))
            painter.drawPolygon(arrow_head(end - back, angle, ARROW_SIZE * min(grow, 1.6)))

    def is_client(self) -> bool:
        """The link is an MQ client connection (drawn dashed and labelled), not a bindings link."""
        return is_client_link(self.source.node, self.target.node)

    def shape(self) -> QPainterPath:
        stroker = QPainterPathStroker()
        stroker.setWidth(10 + LANE_SPACING * (self.lanes - 1))
        return stroker.createStroke(self.path())

    def boundingRect(self) -> QRectF:
        spread = LANE_SPACING * self.lanes
        # room for a client connection's label at the largest text growth
        return super().boundingRect().adjusted(-120, -TAG_ROOM - spread, 120, 12 + spread)


def _draw_tag(painter: QPainter, tag: QRectF, fill: str, text: str, font: QFont) -> None:
    """White ``text`` in ``font`` on a rounded ``fill`` tag."""
    painter.save()
    painter.setPen(Qt.NoPen)
    painter.setBrush(QColor(fill))
    painter.drawRoundedRect(tag, 4, 4)
    painter.setFont(font)
    painter.setPen(QColor("white"))
    painter.drawText(tag, Qt.AlignCenter, text)
    painter.restore()


def draw_platform_tag(painter: QPainter, top_left: QPointF, text: str, font: QFont) -> None:
    """A slate tag in ``font`` naming a node's platform, hanging below the node's bottom-left corner."""
    metrics = QFontMetricsF(font, painter.device())  # the device's resolution: a PDF is not 96 dpi
    width = min(metrics.horizontalAdvance(text) + 10, NODE_W)
    tag = QRectF(top_left.x(), top_left.y(), width, metrics.height() + 2)
    _draw_tag(painter, tag, style.PLATFORM_TAG, metrics.elidedText(text, Qt.ElideRight, width - 6), font)


def draw_bottleneck_tag(painter: QPainter, font: QFont) -> None:
    """The red BOTTLENECK tag above a node's top-right corner, in ``font``."""
    metrics = QFontMetricsF(font, painter.device())
    width = metrics.horizontalAdvance("BOTTLENECK") + 12
    height = metrics.height() + 2
    left = NODE_W - width if width <= NODE_W else (NODE_W - width) / 2  # wider than the node: centred
    _draw_tag(painter, QRectF(left, -height - 2, width, height), style.BOTTLENECK, "BOTTLENECK", font)


def draw_link_label(painter: QPainter, path: QPainterPath, text: str, colour: QColor, font: QFont) -> None:
    """Write ``text`` (one or more lines) in ``font`` above the middle of a link (a client connection's name)."""
    middle = path.pointAtPercent(0.5)
    metrics = QFontMetricsF(font, painter.device())  # the device's resolution: a PDF is not 96 dpi
    lines = text.split("\n")
    width = max(metrics.horizontalAdvance(line) for line in lines) + 4
    height = metrics.height() * len(lines)
    painter.save()
    painter.setFont(font)
    painter.setPen(colour)
    painter.drawText(
        QRectF(middle.x() - width / 2, middle.y() - height - 4, width, height), Qt.AlignCenter, text
    )
    painter.restore()
