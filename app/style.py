"""Colours and fonts of the workbench and its PDF reports, in one place.

Colours are ``#rrggbb`` strings (what Qt style sheets, rich text, :class:`QColor` and pyqtgraph
all take); no Qt is imported here. A colour is named by what it means, so the same meaning
looks the same in the window, its charts and the report.
"""

from __future__ import annotations

# -- meanings ---------------------------------------------------------------------------------------
BOTTLENECK = "#c0202a"
"""Red: the bottleneck, an error, a limit exceeded, a change for the worse."""
GOOD = "#1a7a30"
"""Green: saved, fitted, caught up, a change for the better."""
WITHIN_LIMIT = "#2a7a3a"
"""Green of the sizing views: the configured value holds the need."""
PICKED = "#1a5a2a"
"""Dark green of the sweep view's pick."""
MODIFIED = "#b8862a"
"""Amber: unsaved edits; a moderate deviation."""
NOTE_TEXT = "#8a4a00"
"""Brown text of a notice (extended region, warnings in notes)."""
NOTE_TEXT_SOFT = "#8a5a00"
"""Brown text of the simulation view's notices."""
NOTE_BACKGROUND = "#fff6e0"
"""Pale yellow behind a notice."""
CHANGED_MARK = "#a0520a"
"""Brown mark of a setting that differs from the reference."""
PLATFORM_TAG = "#4a5a6a"
"""Slate tag naming the platform a node runs on (z/OS, Linux x86-64...)."""
ERROR_TEXT = "#8a1c1c"
"""Dark red text of the window's error banner."""
ERROR_BACKGROUND = "#fdecea"
"""Pale red behind the window's error banner."""
ERROR_BORDER = "#e6a5a5"
"""Border of the window's error banner."""
FIELD_ERROR_BACKGROUND = "#fff0f0"
"""Pale red behind a field holding a value that is not allowed."""
SELECTED = "#1f5fbf"
"""Blue outline of the selected node or link."""
OUTLINE = "#556"
"""Grey outline of nodes, links and arrows."""
TARGET_LINE = "#8a5cc2"
"""Purple: a goal or target line on a chart."""

# -- the latency parts and chart series ------------------------------------------------------------
CAPTURE = "#4a7fd4"
"""Blue: CAPTURE_LATENCY, the current value, the first series."""
QUEUE = "#f0a030"
"""Orange: QLATENCY, the previous value, the second series."""
APPLY = "#3aa060"
"""Green: APPLY_LATENCY, the new value, the third series."""
PURPLE, TEAL, GREY, PINK = "#8a5cc2", "#2aa7b8", "#7f7f7f", "#c06080"
UNKNOWN_PART = "#999999"
"""Grey of a latency part without its own colour."""

PALETTE = (CAPTURE, QUEUE, APPLY, BOTTLENECK, PURPLE, TEAL, GREY, MODIFIED)
"""Series of the window's charts, in order."""
RUN_COLOURS = (CAPTURE, QUEUE, APPLY, PURPLE, TEAL, GREY, MODIFIED, PINK)
"""Runs of a report's charts, in order (no red: red marks the bottleneck)."""
SEQUENTIAL = ("#2b4c9b", "#2a8fb0", APPLY, "#9bb83a", "#e0a020", "#c0602a")
"""Ordered values of a second swept knob, from the lowest (blue) to the highest (red-brown)."""

# -- neutrals ----------------------------------------------------------------------------------------
TEXT = "#1d2430"
"""Body text of reports and charts."""
MUTED = "#5b6573"
"""Secondary text, axes."""
HEADING = "#17365d"
"""Report headings and table headers."""
SUBHEADING = "#24466e"
"""Report sub-headings and group rows."""
GRID = "#d5dae1"
"""Chart grid lines."""
RULE = "#b8c0cc"
"""Table borders and rules."""
CELL_BORDER = "#c4cad3"
"""Table cell borders."""
HEADER_BACKGROUND = "#e6ebf2"
"""Background of table headers."""
GROUP_BACKGROUND = "#f2f4f7"
"""Background of a table's group rows."""
CHANGED_BACKGROUND = "#fff4d6"
"""Background of a row whose setting changed."""
BOTTLENECK_BACKGROUND = "#fbe2e2"
"""Background of the bottleneck's row."""
PICKED_BACKGROUND = "#dff1e2"
"""Background of the picked sweep point's row."""
CANVAS_BACKGROUND = "#fafbfc"
"""Background of the topology canvas."""
PORT = "#ffffff"
"""An input port on the canvas."""
NEUTRAL_FILL = "#eeeeee"
"""Fill of a node kind without its own colour."""

KIND_COLOURS = {
    "source_db2": "#dbe9f6",
    "qcapture": "#e3f0d8",
    "queue_manager": "#f6ecd2",
    "channel": "#efe0f3",
    "qapply": "#e3f0d8",
    "target_db2": "#dbe9f6",
    "db2_mirror_node": "#dbe9f6",
    "roce_link": "#efe0f3",
    "mq_application": "#dbe9f6",
    "db2_v8_migration": "#f6ecd2",
}
"""Fill of each node kind when no prediction colours it."""

NODE_TEXT = "#222"
"""A node's name on the canvas and in the report's diagram."""
NODE_DETAIL_TEXT = "#444"
"""A node's kind and load on the canvas and in the report's diagram."""
PORT_OUTLINE = "#445"
"""Outline of a node's ports."""
CHART_FOREGROUND = "#333"
"""Axes, labels and annotations of the window's charts."""
CHART_RULE = "#ccc"
"""Light rules of the window's charts (a bar chart's frame, the zero line's neighbours)."""
REFERENCE_LINE = "#888"
"""A reference line on a chart: zero, identity (predicted = measured)."""

_ROLE_COLOURS = {
    "capture": CAPTURE,
    "queue": QUEUE,
    "apply": APPLY,
    "bottleneck": BOTTLENECK,
    "target": TARGET_LINE,
    "good": GOOD,
    "outage": BOTTLENECK,
}


def role_colour(role: str) -> str:
    """The colour of a chart role of :mod:`engine.report.charts`: a latency part, the bottleneck,
    or run ``runN`` (:data:`RUN_COLOURS` in turn); grey for a role without a colour."""
    if role.startswith("run") and role[3:].isdigit():
        return RUN_COLOURS[int(role[3:]) % len(RUN_COLOURS)]
    return _ROLE_COLOURS.get(role, UNKNOWN_PART)


def series_colour(i: int, n: int = 1) -> str:
    """Colour of curve ``i`` of ``n`` in a line chart (window and PDF): :data:`RUN_COLOURS` in turn, or
    for more curves than those the :data:`SEQUENTIAL` palette (neighbouring values of a second knob
    get neighbouring colours)."""
    if n <= len(RUN_COLOURS):
        return RUN_COLOURS[i % len(RUN_COLOURS)]
    f = i / (n - 1) * (len(SEQUENTIAL) - 1)
    k = min(int(f), len(SEQUENTIAL) - 2)
    a, b, t = SEQUENTIAL[k], SEQUENTIAL[k + 1], f - k
    channels = (
        int(a[j : j + 2], 16) + (int(b[j : j + 2], 16) - int(a[j : j + 2], 16)) * t for j in (1, 3, 5)
    )
    return "#" + "".join(f"{round(c):02x}" for c in channels)


def line_colour(role: str, i: int, n: int) -> str:
    """Colour of curve ``i`` of ``n`` with colour ``role`` (:mod:`engine.report.line_charts`): its
    role's, or its position's when it has none."""
    return role_colour(role) if role else series_colour(i, n)


# -- fonts -------------------------------------------------------------------------------------------
REPORT_FONT_FAMILY = "DejaVu Sans"
"""The PDF report's font (shipped with every Linux desktop; metrics do not depend on the system)."""
REPORT_BASE_PT = 8.5
"""Body text of the PDF report, points."""
NODE_TITLE_PT = 8.5
"""A node's name on the canvas, points."""
NODE_DETAIL_PT = 7.5
"""A node's kind and figures on the canvas, points."""
NOTE_PT = 8
"""Small print of the window: field errors, notes under a view, points."""
HEADLINE_PT = 11
"""The results view's headline, points."""
CHART_TITLE_SIZE = "9pt"
"""Title of a chart in the window (pyqtgraph takes the size as text)."""
CHART_LEGEND_SIZE = "8pt"
"""Legend entries of a chart in the window."""
