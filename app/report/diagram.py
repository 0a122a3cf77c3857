"""The topology diagram of a report: the canvas's look, drawn as vectors from the model.

Nodes sit where the canvas placed them, in the canvas's shapes and colours
(:mod:`app.canvas.items`: kind colours, utilisation colours, the red bottleneck
frame and tag); links are the canvas's S-curves with arrow heads. Drawing from
the model rather than from a live scene keeps it safe in a worker thread.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPen

from app import style
from app.canvas.geometry import end_angle, facing_left
from app.canvas.items import (
    NODE_W,
    PORT_R,
    arrow_head,
    draw_link_label,
    draw_platform_tag,
    link_path,
    utilisation_colour,
)
from app.canvas.platform_marks import CLIENT_LINK_TEXT, is_client_link, platform_text
from app.report.layout import Context, report_font
from app.stages import node_loads
from engine.registry import KINDS

#: Height of a node's box in the report (the canvas's boxes are taller: they hold text at the screen's size).
NODE_H = 64.0


def _ends(a, b, left: dict) -> tuple[QPointF, QPointF, float, float]:
    """Output port of ``a`` and input port of ``b`` on the sides their data leaves and enters by."""
    out_dir = -1.0 if left[a.id] else 1.0
    in_dir = -1.0 if left[b.id] else 1.0
    start = QPointF(a.x + (0.0 if left[a.id] else NODE_W), a.y + NODE_H / 2)
    end = QPointF(b.x + (NODE_W if left[b.id] else 0.0), b.y + NODE_H / 2)
    return start, end, out_dir, in_dir


def _font(pt: float, bold: bool = False) -> QFont:
    return report_font(pt, bold)


def draw_topology(painter: QPainter, rect: QRectF, ctx: Context, project, run=None) -> None:
    """Draw ``project``'s nodes and links fitted into ``rect``, coloured by ``run``'s stage utilisation.

    Parameters
    ----------
    run : object with ``stages`` (name, utilisation) and ``bottleneck``, optional
        A :class:`engine.report.ReportRun` or a Prediction; None draws the kinds' colours.
    """
    if not project.nodes:
        return
    loads = node_loads(project, run) if run is not None and run.stages else {}
    xs = [n.x for n in project.nodes]
    ys = [n.y for n in project.nodes]
    scene = QRectF(
        min(xs) - PORT_R - 4,
        min(ys) - 20,
        max(xs) - min(xs) + NODE_W + 2 * PORT_R + 8,
        max(ys) - min(ys) + NODE_H + 36,  # the platform tags hang below the nodes
    )
    scale = min(rect.width() / scene.width(), rect.height() / scene.height())
    painter.save()
    painter.setRenderHint(QPainter.Antialiasing)
    # centre the drawing in rect, then work in scene units (font sizes scaled to stay readable)
    painter.translate(
        rect.left() + (rect.width() - scene.width() * scale) / 2,
        rect.top() + (rect.height() - scene.height() * scale) / 2,
    )
    painter.scale(scale, scale)
    painter.translate(-scene.left(), -scene.top())
    # the canvas's point sizes are for a 96 dpi screen where a scene unit is a pixel; here a scene
    # unit is ``scale`` device pixels at ctx.dpi, so the same text-to-box proportion needs this factor
    k = 1.3 * 96.0 / ctx.dpi  # 1.3: print the labels a little larger than on screen (boxes are small on A4)
    nodes = {n.id: n for n in project.nodes}
    left = facing_left(project)
    for link in project.links:
        a, b = nodes.get(link.source), nodes.get(link.target)
        if a is None or b is None:
            continue
        start, end, out_dir, in_dir = _ends(a, b, left)
        path = link_path(start, end, out_dir, in_dir)
        client = is_client_link(a, b)
        painter.setPen(QPen(QColor(style.OUTLINE), 1.8, Qt.DashLine if client else Qt.SolidLine))
        painter.setBrush(Qt.NoBrush)
        painter.drawPath(path)
        if client:
            label_font = _font(style.NODE_DETAIL_PT * k * 0.75)
            draw_link_label(painter, path, CLIENT_LINK_TEXT, QColor(style.OUTLINE), label_font)
        painter.setPen(Qt.NoPen)
        painter.setBrush(QColor(style.OUTLINE))
        painter.drawPolygon(arrow_head(end, end_angle(path)))
    for node in project.nodes:
        load = loads.get(node.id)
        box = QRectF(node.x, node.y, NODE_W, NODE_H)
        fill = (
            utilisation_colour(load.utilisation)
            if load
            else QColor(style.KIND_COLOURS.get(node.kind, style.NEUTRAL_FILL))
        )
        bottleneck = bool(load and load.bottleneck)
        painter.setPen(
            QPen(QColor(style.BOTTLENECK), 3.5) if bottleneck else QPen(QColor(style.OUTLINE), 1.2)
        )
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(box, 8, 8)
        painter.setFont(_font(style.NODE_TITLE_PT * k, True))
        painter.setPen(QColor(style.NODE_TEXT))
        painter.drawText(
            QRectF(node.x + 8, node.y + 4, NODE_W - 16, 22), Qt.AlignLeft | Qt.AlignVCenter, node.label
        )
        painter.setFont(
            _font(style.NODE_DETAIL_PT * k * 0.82)
        )  # the kind and load lines: as on screen, they fill the box
        painter.setPen(QColor(style.NODE_DETAIL_TEXT))
        painter.drawText(
            QRectF(node.x + 8, node.y + 24, NODE_W - 16, 18),
            Qt.AlignLeft | Qt.AlignVCenter,
            KINDS[node.kind].name,
        )
        if load:
            painter.drawText(
                QRectF(node.x + 8, node.y + 42, NODE_W - 16, 18),
                Qt.AlignLeft | Qt.AlignVCenter,
                f"{load.utilisation * 100:.0f}% busy",
            )
        if platform_text(node):
            tag_font = _font(style.NODE_DETAIL_PT * k * 0.7)
            draw_platform_tag(painter, QPointF(node.x, node.y + NODE_H + 1), platform_text(node), tag_font)
        if bottleneck:
            tag = QRectF(node.x + NODE_W - 96, node.y - 17, 96, 16)
            painter.setPen(Qt.NoPen)
            painter.setBrush(QColor(style.BOTTLENECK))
            painter.drawRoundedRect(tag, 4, 4)
            painter.setPen(QColor("white"))
            painter.setFont(_font(7.0 * k * 0.85, True))
            painter.drawText(tag, Qt.AlignCenter, "BOTTLENECK")
    painter.restore()
