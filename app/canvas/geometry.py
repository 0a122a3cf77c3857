"""Where links leave and enter nodes, so every arrow points the way its data goes (no Qt widgets here).

A node faces the way its data flows: a node of a flow drawn right to left (the return flow of a
bidirectional or peer-to-peer project, placed under its partner with site A on the left) faces
left, its output port on its left side and its input port on its right. A link runs from the
source's output port to the target's input port and its arrow head points along the link's end,
into the target: from Q Capture towards Q Apply whichever way the flow is drawn.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath, QPolygonF


def faces_left(x: float, targets_x: list[float], sources_x: list[float]) -> bool:
    """True when a node at ``x`` sends its data leftwards: its targets lie, on balance, to its left
    and its sources to its right (``targets_x``, ``sources_x``: x of the nodes it links to and
    from). A node without links faces right."""
    balance = sum(t - x for t in targets_x) + sum(x - s for s in sources_x)
    return balance < 0


def facing_left(project) -> dict[str, bool]:
    """Node id -> whether the node faces left (:func:`faces_left`) from the project's links and positions."""
    by_id = {n.id: n for n in project.nodes}
    targets: dict[str, list[float]] = {n.id: [] for n in project.nodes}
    sources: dict[str, list[float]] = {n.id: [] for n in project.nodes}
    for link in project.links:
        if link.source in by_id and link.target in by_id:
            targets[link.source].append(by_id[link.target].x)
            sources[link.target].append(by_id[link.source].x)
    return {n.id: faces_left(n.x, targets[n.id], sources[n.id]) for n in project.nodes}


def link_path(a: QPointF, b: QPointF, out_dir: float = 1.0, in_dir: float = 1.0) -> QPainterPath:
    """A smooth S-curve from ``a`` (an output port) to ``b`` (an input port).

    Parameters
    ----------
    a, b : QPointF
        Scene positions of the two ports.
    out_dir : float
        +1 when the output port is on its node's right side (the curve leaves rightwards), -1 on its left.
    in_dir : float
        +1 when the data enters the target moving rightwards (its input port on its left side), -1
        when it enters moving leftwards (the input port on the right side).
    """
    path = QPainterPath(a)
    dx = max(abs(b.x() - a.x()) * 0.5, 40.0)
    path.cubicTo(a + QPointF(out_dir * dx, 0), b - QPointF(in_dir * dx, 0), b)
    return path


def end_angle(path: QPainterPath) -> float:
    """Direction (radians, scene coordinates: y down) in which ``path`` arrives at its end."""
    end = path.pointAtPercent(1.0)
    before = path.pointAtPercent(0.98)
    return math.atan2(end.y() - before.y(), end.x() - before.x())


def arrow_head(tip: QPointF, angle: float, size: float = 9.0) -> QPolygonF:
    """A triangle pointing along ``angle`` (radians) with its tip at ``tip``."""
    left = tip - QPointF(math.cos(angle - 0.45) * size, math.sin(angle - 0.45) * size)
    right = tip - QPointF(math.cos(angle + 0.45) * size, math.sin(angle + 0.45) * size)
    return QPolygonF([tip, left, right])


def lane_offsets(lanes: int, spacing: float) -> list[float]:
    """Vertical offsets of ``lanes`` parallel strands ``spacing`` apart, centred on 0."""
    return [(i - (lanes - 1) / 2) * spacing for i in range(lanes)]
