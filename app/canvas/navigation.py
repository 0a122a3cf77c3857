"""Which node the keyboard moves the selection to (no Qt widgets here).

Tab walks the nodes in reading order: lane by lane from the top (nodes whose boxes overlap
vertically share a lane), left to right within a lane. An arrow key goes to the nearest node
whose centre lies in that direction, favouring nodes straight ahead over nodes off to the side.
"""

from __future__ import annotations

import math

#: Arrow direction -> unit step (scene coordinates: y down).
DIRECTIONS = {"left": (-1.0, 0.0), "right": (1.0, 0.0), "up": (0.0, -1.0), "down": (0.0, 1.0)}
#: How much a sideways offset counts against a node, against the same distance straight ahead.
SIDEWAYS_WEIGHT = 2.0


def reading_order(centres: dict[str, tuple[float, float]], lane_height: float) -> list[str]:
    """Node ids sorted lane by lane (``lane_height`` apart or less shares a lane), then left to right.

    Parameters
    ----------
    centres : dict
        Node id -> (x, y) of its box's centre, scene units.
    lane_height : float
        Nodes whose centres are closer than this vertically are in one lane (a node's height).
    """
    ordered = sorted(centres, key=lambda n: (centres[n][1], centres[n][0]))
    lanes: list[list[str]] = []
    for node_id in ordered:
        if lanes and abs(centres[node_id][1] - centres[lanes[-1][0]][1]) < lane_height:
            lanes[-1].append(node_id)
        else:
            lanes.append([node_id])
    return [n for lane in lanes for n in sorted(lane, key=lambda n: centres[n][0])]


def step(order: list[str], current: str | None, forwards: bool) -> str | None:
    """The node after (or before) ``current`` in ``order``; None past either end.

    Without a current node the first (or, going backwards, the last) node.
    """
    if not order:
        return None
    if current not in order:
        return order[0] if forwards else order[-1]
    i = order.index(current) + (1 if forwards else -1)
    return order[i] if 0 <= i < len(order) else None


def nearest(centres: dict[str, tuple[float, float]], current: str, direction: str) -> str | None:
    """The nearest node from ``current`` in ``direction`` (``left``, ``right``, ``up``, ``down``), or None."""
    dx, dy = DIRECTIONS[direction]
    x0, y0 = centres[current]
    best, best_score = None, math.inf
    for node_id, (x, y) in centres.items():
        if node_id == current:
            continue
        ahead = (x - x0) * dx + (y - y0) * dy
        if ahead <= 1e-6:
            continue
        sideways = abs((x - x0) * dy - (y - y0) * dx)
        if sideways > 2 * ahead + 1e-6:  # outside the 2:1 cone in front of the node
            continue
        score = ahead + SIDEWAYS_WEIGHT * sideways
        if score < best_score:
            best, best_score = node_id, score
    return best
